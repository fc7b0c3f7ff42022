import { test, expect } from './fixtures';
import { newConversation, send } from './chat';

test('an auto-approved call runs at once and the agent reports it', async ({ page }) => {
  await newConversation(page);
  await send(page, 'list files');
  const card = page.getByRole('article', { name: 'list_directory call' });
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Completed');
  await expect(card).toContainText('list_directory matches auto_approved_tools');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('The workspace has 3 file(s)');
});

test('a pending call waits, is approved, runs, and the agent replies', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  await expect(card).toContainText('Pending approval');
  await expect(card).toContainText('delete_file is listed in require_approval');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Approved by sam');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted notes.txt.');
  // Reloading shows exactly the stored state.
  await page.reload();
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveAttribute('data-status', 'completed');
});

test('a rejection with a reason is shown and the agent acknowledges it', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete todo.md');
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  // Reject reveals a reason box; Cancel closes it without deciding.
  await expect(card.getByRole('textbox', { name: 'Reason' })).toBeHidden();
  await card.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(card.getByRole('textbox', { name: 'Reason' })).toBeVisible();
  await card.getByRole('button', { name: 'Cancel' }).click();
  await expect(card.getByRole('textbox', { name: 'Reason' })).toBeHidden();
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  await card.getByRole('button', { name: 'Reject', exact: true }).click();
  await card.getByRole('textbox', { name: 'Reason' }).fill('the list is still needed');
  await card.getByRole('button', { name: 'Confirm reject' }).click();
  await expect(card).toHaveAttribute('data-status', 'rejected');
  await expect(card).toContainText('Rejected by sam: the list is still needed');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText(
    'You rejected deleting todo.md ("the list is still needed"), so I left it alone.',
  );
});

test('a decision in one tab shows in another', async ({ page, context }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const other = await context.newPage();
  await other.goto(page.url());
  const mine = page.getByRole('article', { name: 'delete_file call' });
  const theirs = other.getByRole('article', { name: 'delete_file call' });
  await expect(theirs).toHaveAttribute('data-status', 'pending_approval');
  await expect(other.getByRole('button', { name: 'Send' })).toBeDisabled(); // hydrated
  await mine.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(theirs).toHaveAttribute('data-status', 'completed');
  await expect(other.getByRole('list', { name: 'Messages' })).toContainText('I deleted notes.txt.');
});

test('a call pending across a server restart is approved and runs', async ({ page, airlock }) => {
  await newConversation(page);
  await send(page, 'delete drafts/plan.md');
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveAttribute('data-status', 'pending_approval');
  await airlock.restart();
  await page.reload();
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled(); // hydrated
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted drafts/plan.md.');
});

test('tool arguments with markup render as text', async ({ page }) => {
  await newConversation(page);
  const hostile = '<img src=x onerror="window.__pwned=1">.txt';
  await send(page, `delete ${hostile}`);
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toContainText(hostile.replace(/"/g, '\\"'));
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.getByRole('img')).toHaveCount(0);
});

test('model text with markup renders as text, and its Markdown as formatting', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const card = page.getByRole('article', { name: 'delete_file call' });
  await card.getByRole('button', { name: 'Reject', exact: true }).click();
  const hostile = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> **kept**';
  await card.getByRole('textbox', { name: 'Reason' }).fill(hostile);
  await card.getByRole('button', { name: 'Confirm reject' }).click();
  const messages = page.getByRole('list', { name: 'Messages' });
  // The agent quotes the reason back: the markup shows as text, the Markdown as bold.
  await expect(messages).toContainText('<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">');
  await expect(messages.getByRole('strong').filter({ hasText: 'kept' })).toBeVisible();
  await expect(page.getByRole('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await page.reload();
  await expect(messages).toContainText('<script>window.__pwned=1</script>');
  await expect(messages.getByRole('strong').filter({ hasText: 'kept' })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});

test('a lost race says who decided, and a reconnect catches up', async ({ page, context }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const mine = page.getByRole('article', { name: 'delete_file call' });
  await expect(mine).toHaveAttribute('data-status', 'pending_approval');
  // The other tab loses its live stream, so it still shows the call as pending.
  const other = await context.newPage();
  await other.route('**/api/conversations/*/events*', (route) => route.abort());
  await other.goto(page.url());
  await expect(other.getByRole('status').filter({ hasText: 'Reconnecting…' })).toBeVisible();
  const theirs = other.getByRole('article', { name: 'delete_file call' });
  await mine.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(mine).toHaveAttribute('data-status', 'completed');
  await theirs.getByRole('button', { name: 'Reject', exact: true }).click();
  await theirs.getByRole('button', { name: 'Confirm reject' }).click();
  await expect(theirs.getByRole('alert')).toHaveText('Already decided by sam');
  // The stream comes back, catches up, and the card takes the winning state.
  await other.unroute('**/api/conversations/*/events*');
  await expect(theirs).toHaveAttribute('data-status', 'completed', { timeout: 15_000 });
  await expect(other.getByRole('status').filter({ hasText: 'Reconnecting…' })).toBeHidden();
  await expect(other.getByRole('list', { name: 'Messages' })).toContainText('I deleted notes.txt.');
});
