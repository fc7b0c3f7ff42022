import { test, expect } from './fixtures';
import { newConversation, send } from './chat';

test('the review page answers without JavaScript', async ({ page, browser, airlock }) => {
  // A link made in a chat with JavaScript; reviewed in a browser without.
  const chat = await (await browser.newContext({ baseURL: airlock.url, javaScriptEnabled: true })).newPage();
  await newConversation(chat);
  await send(chat, 'delete notes.txt');
  const card = chat.getByRole('article', { name: 'delete_file call' });
  await card.getByRole('button', { name: 'Copy review link' }).click();
  const link = await card.getByRole('textbox', { name: 'Review link' }).inputValue();

  const stale = await page.context().newPage();
  await stale.goto(link);
  await page.goto(link);
  await page.getByRole('textbox', { name: 'Your name' }).fill('Grace');
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByRole('textbox', { name: 'Reason' }).fill('not today');
  await page.getByRole('button', { name: 'Confirm reject' }).click();
  await expect(page).toHaveURL(link);
  await expect(page.getByRole('status')).toContainText('Rejected by Grace');
  await expect(card).toHaveAttribute('data-status', 'rejected');

  // A second reviewer who opened the link before is told who decided.
  await stale.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(stale.getByRole('alert')).toContainText('Already decided by Grace');
  await expect(stale.getByRole('status')).toContainText('Rejected by Grace');
  await expect(card).toHaveAttribute('data-status', 'rejected');

  // The same answer, opened where the page comes alive, keeps telling it.
  expect(stale.url()).toContain('__err=');
  const alive = await chat.context().newPage();
  const problems: string[] = [];
  alive.on('pageerror', (e) => problems.push(e.message));
  await alive.goto(stale.url());
  await expect(alive.getByRole('alert')).toContainText('Already decided by Grace');
  await expect(alive.getByRole('status')).toContainText('Rejected by Grace');
  expect(problems).toEqual([]);
});

test('without JavaScript, Copy review link shows the link on the page', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\/conv_[0-9a-f]{32}$/);
  await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt');
  await page.getByRole('button', { name: 'Send' }).click();
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(async () => {
    await page.reload();
    await expect(card).toHaveAttribute('data-status', 'pending_approval', { timeout: 500 });
  }).toPass();

  await card.getByRole('button', { name: 'Copy review link' }).click();
  await expect(page).toHaveURL(/\/c\/conv_[0-9a-f]{32}\?review_link=call_[0-9a-f]{32}\./);
  const field = card.getByRole('textbox', { name: 'Review link' });
  await expect(field).toHaveValue(/^http:\/\/[^/]+\/review\/review_[\w-]+\?token=[\w-]{43}$/);
  await expect(card.getByText('Anyone with this link can decide.')).toBeVisible();

  // The link opens the call's review, here too without JavaScript.
  await page.goto(await field.inputValue());
  await expect(page.getByRole('heading', { level: 1 })).toContainText('delete_file');
});
