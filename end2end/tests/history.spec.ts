// A long conversation opens at its newest messages and reads earlier ones
// on demand, a page at a time, while it stays live; the earlier part also
// has pages of its own, for a browser without JavaScript.
import { test, expect } from './fixtures';
import { send } from './chat';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes `count` alternating messages into a conversation's store. */
function seed(dataDir: string, conversation: string, count: number) {
  const script = `
import sqlite3, sys, time, uuid
db = sqlite3.connect(sys.argv[1], timeout=10)
now = int(time.time() * 1000)
rows = [("msg_" + uuid.uuid4().hex, sys.argv[2], n, "user" if n % 2 else "assistant", f"message {n}", now - 10000 + n)
        for n in range(1, int(sys.argv[3]) + 1)]
db.executemany("insert into messages (message_id, conversation_id, seq, role, content, created_at) values (?, ?, ?, ?, ?, ?)", rows)
db.execute("update conversations set message_seq = ? where conversation_id = ?", (int(sys.argv[3]), sys.argv[2]))
db.commit()
`;
  execFileSync('python3', ['-c', script, join(dataDir, 'airlock.db'), conversation, String(count)]);
}

test('a conversation of 2,000 messages opens at the newest and shows earlier ones', async ({ page, airlock }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\/conv_/);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  seed(airlock.dataDir, id, 2000);

  await page.goto(`/c/${id}`);
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages.getByText('message 2000', { exact: true })).toBeVisible();
  await expect(messages.getByText('message 1901', { exact: true })).toBeVisible();
  await expect(messages.getByText('message 1900', { exact: true })).toHaveCount(0);
  const earlier = page.getByRole('link', { name: 'Show earlier messages' });
  await expect(earlier).toHaveAttribute('href', `/c/${id}?before=1901`);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();

  // Earlier messages join the chat above, twice, without leaving the page.
  await earlier.click();
  await expect(messages.getByText('message 1801', { exact: true })).toBeVisible();
  await expect(earlier).toHaveAttribute('href', `/c/${id}?before=1801`);
  await earlier.click();
  await expect(messages.getByText('message 1701', { exact: true })).toBeVisible();
  expect(new URL(page.url()).search).toBe('');

  // The chat stays live: a new message and the agent's answer arrive below.
  await send(page, 'list files');
  await expect(messages.getByText('list files', { exact: true })).toBeVisible();
  await expect(page.getByRole('article', { name: 'list_directory call' })).toHaveAttribute('data-status', 'completed');

  // The earlier part's own page: a window of the past, and the way back.
  await page.goto(`/c/${id}?before=1901`);
  await expect(messages.getByText('message 1900', { exact: true })).toBeVisible();
  await expect(messages.getByText('message 1801', { exact: true })).toBeVisible();
  await expect(messages.getByText('message 1901', { exact: true })).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Back to the latest' }).click();
  await expect(messages.getByText('message 2000', { exact: true })).toBeVisible();
});
