import { test, expect } from './fixtures';
import { newConversation } from './chat';

// The demo model writes its whole reply at once, so this stream stands in
// for a model midway through a reply: the server renders the lines it has
// finished (engine/src/markdown.rs), the line being written is still text.
const midway = [
  'retry: 600000',
  '',
  'event: message.created',
  'data: ' +
    JSON.stringify({
      id: 'msg_01a20ec39c9b74ed9cd660cfc51c9d1a',
      seq: 1,
      role: 'user',
      content: 'read notes.txt',
      created_at: '2026-11-24T10:00:00Z',
    }),
  '',
  'event: run.updated',
  'data: {"status": "running"}',
  '',
  'event: message.delta',
  'data: ' +
    JSON.stringify({
      text: 'Friday\n- ship the ',
      html: '<p>Here is <strong>notes.txt</strong>:</p>\n<ul>\n<li>budget review on Friday</li>\n</ul>\n',
    }),
  '',
  '',
].join('\n');

test('a reply being written shows its finished lines formatted', async ({ page }) => {
  await page.route('**/api/conversations/*/events*', (route) =>
    route.fulfill({ status: 200, contentType: 'text/event-stream', body: midway }),
  );
  await newConversation(page);
  const writing = page.getByRole('listitem', { name: 'Agent is writing' });
  await expect(writing.locator('strong')).toHaveText('notes.txt');
  await expect(writing.getByRole('listitem')).toHaveText('budget review on Friday');
  await expect(writing).toContainText('- ship the');
  await expect(writing).not.toContainText('**');
});

// Each later line sends only what follows the part of the rendering the
// browser has (`keep` bytes of it), not the whole reply again.
const kept = '<p>Here is <strong>notes.txt</strong>:</p>\n<ul>\n<li>budget review on Friday</li>\n';
const later =
  midway +
  [
    'event: message.delta',
    'data: ' +
      JSON.stringify({
        text: 'approvals inbox\n',
        html: '<li>ship the approvals inbox</li>\n</ul>\n',
        keep: kept.length,
      }),
    '',
    '',
  ].join('\n');

test('a reply being written extends what it shows line by line', async ({ page }) => {
  await page.route('**/api/conversations/*/events*', (route) =>
    route.fulfill({ status: 200, contentType: 'text/event-stream', body: later }),
  );
  await newConversation(page);
  const writing = page.getByRole('listitem', { name: 'Agent is writing' });
  await expect(writing.getByRole('listitem')).toHaveText([
    'budget review on Friday',
    'ship the approvals inbox',
  ]);
  await expect(writing.locator('strong')).toHaveText('notes.txt');
  await expect(writing).not.toContainText('- ship the');
});
