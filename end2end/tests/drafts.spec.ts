import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { newConversation } from './chat';

/** One event of a conversation's stream, as the server sends it. */
const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

// The demo model writes its whole reply at once, so this stream stands in
// for a model midway through a reply: the server renders the lines it has
// finished (engine/src/markdown.rs), the line being written is still text.
const firstLines = '<p>Here is <strong>notes.txt</strong>:</p>\n<ul>\n<li>budget review on Friday</li>\n';
const midway =
  'retry: 600000\n\n' +
  sse('message.created', {
    id: 'msg_01a20ec39c9b74ed9cd660cfc51c9d1a',
    seq: 1,
    role: 'user',
    content: 'read notes.txt',
    created_at: '2026-11-24T10:00:00Z',
  }) +
  sse('run.updated', { status: 'running' }) +
  sse('message.delta', { text: 'Friday\n- ship the ', html: firstLines + '</ul>\n' });

// Each later line sends only what follows the part of the rendering the
// browser has (`keep` bytes of it), not the whole reply again.
const later =
  midway +
  sse('message.delta', {
    text: 'approvals inbox\n',
    html: '<li>ship the approvals inbox</li>\n</ul>\n',
    keep: firstLines.length,
  });

/** A new conversation whose event stream is `body`; the reply being written. */
async function writing(page: Page, body: string) {
  await page.route('**/api/conversations/*/events*', (route) =>
    route.fulfill({ status: 200, contentType: 'text/event-stream', body }),
  );
  await newConversation(page);
  return page.getByRole('listitem', { name: 'Agent is writing' });
}

test('a reply being written shows its finished lines formatted', async ({ page }) => {
  const reply = await writing(page, midway);
  await expect(reply.locator('strong')).toHaveText('notes.txt');
  await expect(reply.getByRole('listitem')).toHaveText('budget review on Friday');
  await expect(reply).toContainText('- ship the');
  await expect(reply).not.toContainText('**');
});

test('a reply being written extends what it shows line by line', async ({ page }) => {
  const reply = await writing(page, later);
  await expect(reply.getByRole('listitem')).toHaveText([
    'budget review on Friday',
    'ship the approvals inbox',
  ]);
  await expect(reply.locator('strong')).toHaveText('notes.txt');
  await expect(reply).not.toContainText('- ship the');
});
