import { test, expect } from './fixtures';
import { newConversation, send } from './chat';

test('pages are sent with their security headers and work under them', async ({ page }) => {
  const response = await page.goto('/');
  const headers = response!.headers();
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['access-control-allow-origin']).toBeUndefined();
  const policy = headers['content-security-policy'];
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9_-]{16,}'/);

  // The hydrated page works: a message goes out and the agent's card comes back live.
  await page.getByRole('button', { name: 'New conversation' }).click();
  const send = page.getByRole('button', { name: 'Send' });
  await expect(send).toBeDisabled();
  await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt');
  await send.click();
  const card = page.getByRole('article', { name: 'delete_file call' });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
});

test('another site cannot make the browser decide a call', async ({ page, airlock }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  const inbox = await (await page.request.get('/api/fn/list_approvals')).json();
  const callId: string = inbox.items[0].call.id;

  // A page of another site posts the Approve form as the person's browser.
  await page.route('http://evil.example/**', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<form method="post" action="${airlock.url}/api/fn/approve_call">
               <input name="call_id" value="${callId}"><button>Win a prize</button></form>`,
    }),
  );
  await page.goto('http://evil.example/');
  const [answer] = await Promise.all([
    page.waitForResponse(`${airlock.url}/api/fn/approve_call`),
    page.getByRole('button', { name: 'Win a prize' }).click(),
  ]);
  expect(answer.status()).toBe(403);
  await expect(page.locator('body')).toContainText('cross_site_request');

  await page.goto(`${airlock.url}/approvals`);
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveAttribute('data-status', 'pending_approval');
});
