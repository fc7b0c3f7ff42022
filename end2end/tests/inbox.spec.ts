import { test, expect, AirlockServer } from './fixtures';
import { createHash } from 'node:crypto';
import { newConversation, send } from './chat';

test('the inbox lists and decides approvals of two conversations, live', async ({ page, context }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveAttribute('data-status', 'pending_approval');
  const inbox = await context.newPage();
  await inbox.goto('/approvals');
  const cards = inbox.getByRole('article', { name: 'delete_file call' });
  await expect(cards).toHaveCount(1);
  await expect(inbox.getByRole('status').filter({ hasText: 'waiting' })).toHaveText('1 waiting');
  // A call proposed in another conversation appears while the inbox is open.
  await newConversation(page);
  await send(page, 'write plan.md: ship friday');
  const writeCard = inbox.getByRole('article', { name: 'write_file call' });
  await expect(writeCard).toHaveAttribute('data-status', 'pending_approval');
  await expect(inbox.getByRole('status').filter({ hasText: 'waiting' })).toHaveText('2 waiting');
  const list = inbox.getByRole('list', { name: 'Waiting approvals' });
  await expect(list.getByRole('listitem').nth(0)).toContainText('delete notes.txt');
  await expect(list.getByRole('link', { name: 'write plan.md: ship friday' })).toBeVisible();
  await expect(list.getByRole('listitem').nth(0)).toContainText('expires');

  // Decide both from the inbox; the chat follows.
  await cards.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(cards).toHaveAttribute('data-status', 'completed');
  await writeCard.getByRole('button', { name: 'Reject', exact: true }).click();
  await writeCard.getByRole('textbox', { name: 'Reason' }).fill('not yet');
  await writeCard.getByRole('button', { name: 'Confirm reject' }).click();
  await expect(writeCard).toHaveAttribute('data-status', 'rejected');
  await expect(page.getByRole('article', { name: 'write_file call' })).toHaveAttribute('data-status', 'rejected');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('You rejected writing plan.md ("not yet")');
  await inbox.reload();
  await expect(inbox.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();
});

test('the conversation list counts what waits for approval', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt and todo.md');
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveCount(2);
  await page.goto('/');
  const link = page.getByRole('link', { name: /delete notes.txt and todo.md/ });
  await expect(link).toContainText('2 waiting for approval');
});

test('an open conversation list follows other tabs live', async ({ page, context }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'No conversations yet' })).toBeVisible();
  const chat = await context.newPage();
  await newConversation(chat);
  await send(chat, 'delete notes.txt');
  // The list learns of the conversation, its name and its waiting call.
  const link = page.getByRole('link', { name: /delete notes.txt/ });
  await expect(link).toContainText('1 waiting for approval');
  await expect(page.getByRole('heading', { name: 'No conversations yet' })).toBeHidden();
  // Decided in the chat: the count goes, the agent's reply counts.
  await chat.getByRole('article', { name: 'delete_file call' }).getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(link).not.toContainText('waiting for approval');
  await expect(link).toContainText('2 messages');
});

test("the inbox groups calls by conversation and approves a conversation's calls together", async ({ page, context }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt and todo.md');
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveCount(2);
  const chat = page.url();
  await newConversation(page);
  await send(page, 'write plan.md: ship friday');
  await expect(page.getByRole('article', { name: 'write_file call' })).toHaveAttribute('data-status', 'pending_approval');

  const inbox = await context.newPage();
  // Decided cards stay in place only once the island is alive (it follows
  // the inbox's events); a click before that posts the form and reloads.
  const alive = inbox.waitForRequest((request) => request.url().includes('/api/approvals/events'));
  await inbox.goto('/approvals');
  await alive;
  const groups = inbox.getByRole('list', { name: 'Waiting approvals' }).getByRole('listitem');
  await expect(groups).toHaveCount(2);
  await expect(groups.nth(0).getByRole('article', { name: 'delete_file call' })).toHaveCount(2);
  // One call alone needs no Approve all.
  await expect(inbox.getByRole('region', { name: 'Pending approvals of write plan.md: ship friday' })).toBeHidden();
  const bar = inbox.getByRole('region', { name: 'Pending approvals of delete notes.txt and todo.md' });
  await expect(bar).toContainText('2 tool calls waiting for approval');
  await bar.getByRole('button', { name: 'Approve all' }).click();

  const deletes = groups.nth(0).getByRole('article', { name: 'delete_file call' });
  await expect(deletes.nth(0)).toHaveAttribute('data-status', 'completed');
  await expect(deletes.nth(1)).toHaveAttribute('data-status', 'completed');
  await expect(bar).toBeHidden();
  await expect(inbox.getByRole('status').filter({ hasText: 'waiting' })).toHaveText('1 waiting');
  await expect(inbox.getByRole('article', { name: 'write_file call' })).toHaveAttribute('data-status', 'pending_approval');
  await page.goto(chat);
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted todo.md.');
});

test('the inbox counts every waiting call, not only the page it shows', async ({ browser }) => {
  const key = 'e2e-inbox-key';
  const sha = createHash('sha256').update(key).digest('hex');
  const server = await AirlockServer.start(
    `gateway:\n  api_keys:\n    - name: many\n      sha256: ${sha}\n` +
      `sources:\n  mail:\n    policy_only: true\n    require_approval: [send_email]\n`,
  );
  try {
    // 1,001 calls wait, asked ten at a time.
    const ask = async (i: number) => {
      const asked = await fetch(`${server.url}/api/v1/tool-calls`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'mail', tool: 'send_email', arguments: { to: `p${i}@example.com` } }),
      });
      expect(asked.status).toBe(202);
    };
    for (let i = 0; i < 1001; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, 1001 - i) }, (_, j) => ask(i + j)));
    }
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/approvals`);
    await expect(page.getByRole('article', { name: 'send_email call' })).toHaveCount(100);
    await expect(page.getByRole('status').filter({ hasText: 'waiting' })).toHaveText('100 of 1,001 waiting');
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 600 });
      await page.screenshot({ path: test.info().outputPath(`inbox-count-${width}.png`) });
    }
    // Deciding one here leaves 99 here of 1,000.
    await page.getByRole('article', { name: 'send_email call' }).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: 'waiting' })).toHaveText('99 of 1,000 waiting');
    await page.context().close();
  } finally {
    await server.stop();
    server.dispose();
  }
});
