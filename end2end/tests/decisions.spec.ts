import { test, expect } from './fixtures';
import { newConversation, send } from './chat';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

test('edited arguments are checked, run as edited, and the card shows the change', async ({ page }) => {
  await newConversation(page);
  await send(page, 'write ideas.md: first draft');
  const card = page.getByRole('article', { name: 'write_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  await card.getByRole('button', { name: 'Edit arguments' }).click();
  const editor = card.getByRole('textbox', { name: 'Arguments (JSON)' });
  await expect(editor).toHaveValue(/"path": "ideas.md"/);
  await editor.fill('{"path": "ideas-final.md", ');
  await expect(card.getByRole('alert')).toContainText('not valid JSON');
  await expect(card.getByRole('button', { name: 'Approve with changes' })).toBeDisabled();
  await editor.fill('["not", "an object"]');
  await expect(card.getByRole('alert')).toContainText('must be a JSON object');
  await editor.fill('{"path": "ideas-final.md", "content": "second draft"}');
  await expect(card.getByRole('alert')).toHaveCount(0);
  await card.getByRole('button', { name: 'Approve with changes' }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Approved with changes by sam');
  const changes = card.getByRole('list', { name: 'Changed arguments' });
  await expect(changes).toContainText('"ideas.md" → "ideas-final.md"');
  await expect(changes).toContainText('"first draft" → "second draft"');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I wrote ideas-final.md. (You changed the arguments');
  // The edited file is what the workspace now holds.
  await send(page, 'read ideas-final.md');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('second draft');
});

test('an edit the policy denies is refused and the call still waits', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  await card.getByRole('button', { name: 'Edit arguments' }).click();
  await card.getByRole('textbox', { name: 'Arguments (JSON)' }).fill('{"path": "../outside.txt"}');
  await card.getByRole('button', { name: 'Approve with changes' }).click();
  await expect(card.getByRole('alert')).toContainText('the policy denies the edited call');
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
});

test('always allow in this conversation lets the next same call run without asking', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const first = page.getByRole('article', { name: 'delete_file call' });
  await expect(first).toHaveAttribute('data-status', 'pending_approval');
  await first.getByRole('button', { name: 'Always allow' }).click();
  await first.getByRole('button', { name: 'In this conversation' }).click();
  await expect(first).toHaveAttribute('data-status', 'completed');
  await expect(first).toContainText('Always allowed by sam');
  await send(page, 'delete todo.md');
  const second = page.getByRole('article', { name: 'delete_file call' }).nth(1);
  await expect(second).toHaveAttribute('data-status', 'completed');
  await expect(second.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted todo.md.');
  // Elsewhere the tool still asks.
  await newConversation(page);
  await send(page, 'delete drafts/plan.md');
  await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveAttribute('data-status', 'pending_approval');
});

test('a tool always allowed shows on the Allowed page until revoked, and then asks again', async ({ page }) => {
  await newConversation(page);
  const chat = new URL(page.url()).pathname;
  await send(page, 'delete notes.txt');
  const first = page.getByRole('article', { name: 'delete_file call' });
  await first.getByRole('button', { name: 'Always allow' }).click();
  await first.getByRole('button', { name: 'In this conversation' }).click();
  await expect(first).toHaveAttribute('data-status', 'completed');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Allowed' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Always allowed' })).toBeVisible();
  const active = page.getByRole('list', { name: 'Always allowed tools' }).getByRole('listitem');
  await expect(active).toHaveCount(1);
  await expect(active).toContainText('delete_file');
  await expect(active).toContainText('In delete notes.txt');
  await expect(active).toContainText('Allowed by sam · just now');
  await active.getByRole('button', { name: 'Revoke' }).click();

  await expect(page).toHaveURL(/\/allowed$/);
  await expect(page.getByRole('list', { name: 'Always allowed tools' })).toHaveCount(0);
  await expect(page.getByText('Nothing is always allowed now.')).toBeVisible();
  const revoked = page.getByRole('list', { name: 'Revoked' }).getByRole('listitem');
  await expect(revoked).toContainText('delete_file');
  await expect(revoked).toContainText('revoked just now');
  await expect(revoked.getByRole('button')).toHaveCount(0);

  // Back in the conversation, the tool waits for approval again.
  await revoked.getByRole('link', { name: 'delete notes.txt' }).click();
  await expect(page).toHaveURL(chat);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await send(page, 'delete todo.md');
  const second = page.getByRole('article', { name: 'delete_file call' }).nth(1);
  await expect(second).toHaveAttribute('data-status', 'pending_approval');
});

test('the Allowed page shows grants made and revoked in other tabs as they happen', async ({ page, context }) => {
  await page.goto('/allowed');
  await expect(page.getByRole('heading', { name: 'Nothing is always allowed' })).toBeVisible();

  const chat = await context.newPage();
  await newConversation(chat);
  await send(chat, 'delete notes.txt');
  const card = chat.getByRole('article', { name: 'delete_file call' });
  await card.getByRole('button', { name: 'Always allow' }).click();
  // For a while only: the grant says until when.
  await card.getByLabel('For how long').selectOption({ label: 'For an hour' });
  await card.getByRole('button', { name: 'Everywhere' }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  const active = page.getByRole('list', { name: 'Always allowed tools' }).getByRole('listitem');
  await expect(active).toHaveCount(1);
  await expect(active).toContainText('delete_file');
  await expect(active).toContainText('Everywhere');
  await expect(active).toContainText(/until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);

  // Revoked from another Allowed tab, it moves to Revoked here too.
  const other = await context.newPage();
  await other.goto('/allowed');
  await other.getByRole('list', { name: 'Always allowed tools' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(other.getByText('Nothing is always allowed now.')).toBeVisible();
  await expect(page.getByText('Nothing is always allowed now.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Revoked' }).getByRole('listitem')).toContainText('revoked just now');
  // The stream's list keeps working forms: revoked entries have none.
  await expect(page.getByRole('list', { name: 'Revoked' }).getByRole('button')).toHaveCount(0);
});

test('several waiting calls: decide one by one, then Approve all the rest', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt, todo.md, drafts/plan.md and ghost.txt');
  const cards = page.getByRole('article', { name: 'delete_file call' });
  await expect(cards).toHaveCount(4);
  const bar = page.getByRole('region', { name: 'Pending approvals' });
  await expect(bar).toContainText('4 tool calls waiting for approval');
  await cards.nth(0).getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(bar).toContainText('3 tool calls waiting for approval');
  await cards.nth(1).getByRole('button', { name: 'Reject', exact: true }).click();
  await cards.nth(1).getByRole('textbox', { name: 'Reason' }).fill('keep the list');
  await cards.nth(1).getByRole('button', { name: 'Confirm reject' }).click();
  await expect(bar).toContainText('2 tool calls waiting for approval');
  await bar.getByRole('button', { name: 'Approve all' }).click();
  await expect(bar).toBeHidden();
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'rejected');
  await expect(cards.nth(2)).toHaveAttribute('data-status', 'completed');
  // ghost.txt does not exist: approved, it runs and fails.
  await expect(cards.nth(3)).toHaveAttribute('data-status', 'failed');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted drafts/plan.md.');
});

test('Reject all rejects every waiting call with one reason', async ({ page }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt and todo.md');
  const cards = page.getByRole('article', { name: 'delete_file call' });
  await expect(cards).toHaveCount(2);
  const bar = page.getByRole('region', { name: 'Pending approvals' });
  await bar.getByRole('button', { name: 'Reject all', exact: true }).click();
  await bar.getByRole('textbox', { name: 'Reason for rejecting all' }).fill('not today');
  await bar.getByRole('button', { name: 'Confirm reject all' }).click();
  await expect(cards.nth(0)).toHaveAttribute('data-status', 'rejected');
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'rejected');
  await expect(cards.nth(1)).toContainText('Rejected by sam: not today');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('You rejected deleting todo.md ("not today")');
});

test('a question is answered with a choice, and another in free text', async ({ page }) => {
  await newConversation(page);
  await send(page, 'ask me which file to keep: notes.txt or todo.md');
  const card = page.getByRole('article', { name: 'Question from the agent' });
  await expect(card).toContainText('Which file to keep?');
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  await card.getByRole('button', { name: 'todo.md' }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Answered by sam: todo.md');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('you answered: "todo.md"');

  await send(page, 'ask me what to name the report');
  const second = page.getByRole('article', { name: 'Question from the agent' }).nth(1);
  await expect(second).toContainText('What to name the report?');
  await second.getByRole('textbox', { name: 'Answer' }).fill('Weekly summary');
  await second.getByRole('button', { name: 'Send answer' }).click();
  await expect(second).toContainText('Answered by sam: Weekly summary');
});

test('a tool always allowed for one folder runs there and still asks elsewhere', async ({ page }) => {
  await newConversation(page);
  await send(page, 'write drafts/a.md: first');
  const card = page.getByRole('article', { name: 'write_file call' });
  await card.getByRole('button', { name: 'Always allow' }).click();
  // The card says the rule in words before it is saved.
  await card.getByLabel('Which calls').selectOption({ label: 'with `path` in `drafts/` or below' });
  await card.getByRole('button', { name: 'In this conversation' }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');

  await send(page, 'write drafts/b.md: second');
  const cards = page.getByRole('article', { name: 'write_file call' });
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'completed');
  await send(page, 'write todo.md: third');
  await expect(cards.nth(2)).toHaveAttribute('data-status', 'pending_approval');

  await page.goto('/allowed');
  const active = page.getByRole('list', { name: 'Always allowed tools' }).getByRole('listitem');
  await expect(active).toContainText('write_file');
  await expect(active).toContainText('with `path` in `drafts/` or below');
});

test('an always-allow for an hour stops applying when its hour is over', async ({ page, airlock }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const cards = page.getByRole('article', { name: 'delete_file call' });
  await cards.nth(0).getByRole('button', { name: 'Always allow' }).click();
  await cards.nth(0).getByLabel('For how long').selectOption({ label: 'For an hour' });
  await cards.nth(0).getByRole('button', { name: 'In this conversation' }).click();
  await expect(cards.nth(0)).toHaveAttribute('data-status', 'completed');
  await send(page, 'delete todo.md');
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'completed');

  // The hour passes: the grant's end is moved into the past in the store.
  const script = `
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=10)
db.execute("update grants set expires_at = ?", (int(time.time() * 1000) - 1000,))
db.commit()
`;
  execFileSync('python3', ['-c', script, join(airlock.dataDir, 'airlock.db')]);
  await send(page, 'delete drafts/plan.md');
  await expect(cards.nth(2)).toHaveAttribute('data-status', 'pending_approval');

  await page.goto('/allowed');
  await expect(page.getByText('Nothing is always allowed now.')).toBeVisible();
  const record = page.getByRole('list', { name: 'Revoked or ended' });
  await expect(record).toContainText('delete_file');
  await expect(record).toContainText('ended');
});
