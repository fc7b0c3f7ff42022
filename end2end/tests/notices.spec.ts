// Notices: a call that waits is announced on its policy's channels, and
// its card says where and when, live, wherever the card shows: in the
// chat, in the inbox and on the review page the notice links to.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, AirlockServer } from './fixtures';
import { newConversation, send } from './chat';

/** A receiver on loopback: `/ops` takes notices, `/pager` is down (503). */
async function receiver(): Promise<{ server: Server; url: string; bodies: any[] }> {
  const bodies: any[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/ops') bodies.push(JSON.parse(body));
      response.statusCode = request.url === '/ops' ? 200 : 503;
      response.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, bodies };
}

test('a card says where its call was announced, and which channel fails', async ({ browser }) => {
  const hooks = await receiver();
  const server = await AirlockServer.start(`
notify:
  ops:
    webhook: ${hooks.url}/ops
  pager:
    webhook: ${hooks.url}/pager
sources:
  demo:
    require_approval: [delete_file]
    notify: [ops, pager]
`);
  try {
    const page = await browser.newPage({ baseURL: server.url });
    await newConversation(page);
    await send(page, 'delete notes.txt');
    const card = page.getByRole('article', { name: 'delete_file call' });
    await expect(card).toHaveAttribute('data-status', 'pending_approval');
    // The card learns of each delivery as it is recorded, without a reload.
    const notices = card.getByRole('list', { name: 'Notifications' });
    await expect(notices.getByRole('listitem').filter({ hasText: 'ops' })).toHaveText(/^Notified ops \d\d:\d\d$/);
    await expect(notices.getByRole('listitem').filter({ hasText: 'pager' })).toHaveText(
      /^Notifying pager failed (once|\d+ times), trying again: the receiver answered 503/,
    );

    // The inbox shows the same card.
    const inbox = await browser.newPage({ baseURL: server.url });
    await inbox.goto('/approvals');
    const inInbox = inbox.getByRole('article', { name: 'delete_file call' });
    await expect(inInbox.getByRole('listitem').filter({ hasText: 'ops' })).toHaveText(/^Notified ops \d\d:\d\d$/);

    // The notice's own link opens the review page, which shows it too.
    expect(hooks.bodies).toHaveLength(1);
    const review = await browser.newPage();
    await review.goto(hooks.bodies[0].review_url);
    const onReview = review.getByRole('article', { name: 'delete_file call' });
    await expect(onReview.getByRole('list', { name: 'Notifications' })).toContainText('Notified ops');
    await review.getByRole('textbox', { name: 'Your name' }).fill('Ops on call');
    await onReview.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(review.getByRole('status')).toContainText('Approved by Ops on call');
    await expect(card).toHaveAttribute('data-status', 'completed');
    // A decided call's card keeps where it was announced.
    await expect(notices.getByRole('listitem').filter({ hasText: 'ops' })).toHaveText(/^Notified ops/);
  } finally {
    await server.stop();
    server.dispose();
    hooks.server.close();
  }
});

test('a reminder shows on the review page as it goes out', async ({ browser }) => {
  const hooks = await receiver();
  const server = await AirlockServer.start(`
notify:
  ops:
    webhook: ${hooks.url}/ops
sources:
  demo:
    require_approval: [delete_file]
    notify: [ops]
    remind_after: 3s
`);
  try {
    const page = await browser.newPage({ baseURL: server.url });
    await newConversation(page);
    await send(page, 'delete notes.txt');
    await expect(page.getByRole('article', { name: 'delete_file call' })).toHaveAttribute('data-status', 'pending_approval');
    await expect.poll(() => hooks.bodies.length).toBe(1);
    // The reviewer opens the notice's link before the reminder is due.
    const review = await browser.newPage();
    await review.goto(hooks.bodies[0].review_url);
    const notices = review.getByRole('article', { name: 'delete_file call' }).getByRole('list', { name: 'Notifications' });
    await expect(notices).toContainText('Notified ops');
    await expect(notices).not.toContainText('Reminded');
    await review.getByRole('textbox', { name: 'Your name' }).fill('Ops on call');
    // The reminder arrives while the page is open; what was typed stays.
    await expect(notices.getByRole('listitem').filter({ hasText: 'Reminded' })).toHaveText(/^Reminded ops \d\d:\d\d$/);
    expect(hooks.bodies.map((b) => b.event)).toEqual(['call.waiting', 'call.reminder']);
    await expect(review.getByRole('textbox', { name: 'Your name' })).toHaveValue('Ops on call');
  } finally {
    await server.stop();
    server.dispose();
    hooks.server.close();
  }
});
