import { test, expect } from './fixtures';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

test('the home page is the app shell with an empty conversation list', async ({ page }) => {
  const response = await page.goto('/');
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(/Airlock/);
  await expect(page.getByRole('link', { name: 'Airlock home' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Conversations', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'No conversations yet' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New conversation' })).toBeVisible();
});

test('the main navigation marks the page it is on', async ({ page }) => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await page.goto('/');
  await expect(nav.getByRole('link', { name: 'Conversations' })).toHaveAttribute('aria-current', 'page');
  await expect(nav.getByRole('link', { name: 'Approvals' })).not.toHaveAttribute('aria-current');
  await nav.getByRole('link', { name: 'Approvals' }).click();
  await expect(page).toHaveURL(/\/approvals$/);
  await expect(nav.getByRole('link', { name: 'Approvals' })).toHaveAttribute('aria-current', 'page');
  await expect(nav.getByRole('link', { name: 'Conversations' })).not.toHaveAttribute('aria-current');
});

test('a message typed after hydration is sent and shown', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\/conv_[0-9a-f]{32}$/);

  const message = page.getByRole('textbox', { name: 'Message' });
  const send = page.getByRole('button', { name: 'Send' });
  // As plain HTML, Send is always enabled; only the hydrated page disables it
  // while the box is empty. Seeing it disabled proves hydration happened.
  await expect(send).toBeDisabled();
  await message.fill('tidy the drafts folder');
  await expect(send).toBeEnabled();
  await send.click();

  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages).toContainText('tidy the drafts folder');
  await expect(message).toHaveValue('');
  // The first message names the conversation at once.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('tidy the drafts folder');
  // The agent's answer arrives live, without a reload.
  await expect(messages).toContainText("I'm Airlock's demo agent");

  // Enter sends too; Shift+Enter would add a line instead.
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await message.fill('list files');
  await message.press('Enter');
  await expect(messages).toContainText('The workspace has 3 file(s): drafts/plan.md, notes.txt, todo.md.');

  // The first message names the conversation in the list.
  await page.getByRole('link', { name: 'Conversations' }).first().click();
  const list = page.getByRole('list', { name: 'Conversations' });
  await expect(list.getByRole('link', { name: /tidy the drafts folder/ })).toBeVisible();
  await expect(list).toContainText('4 messages');
});

test('messages are stored: a reload shows them in order', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\//);
  const message = page.getByRole('textbox', { name: 'Message' });
  const items = page.getByRole('list', { name: 'Messages' }).getByRole('listitem');
  for (const [i, text] of ['first', 'second'].entries()) {
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await message.fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    // Each message gets the agent's answer before the next one goes.
    await expect(items).toHaveCount(2 * (i + 1));
  }
  await page.reload();
  await expect(items).toHaveCount(4);
  await expect(items.nth(0)).toContainText('first');
  await expect(items.nth(1)).toContainText("I'm Airlock's demo agent");
  await expect(items.nth(2)).toContainText('second');
});

test('Back and Forward show pages as they are now, not as first loaded', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'No conversations yet' })).toBeVisible();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\//);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await page.getByRole('textbox', { name: 'Message' }).fill('list files');
  await page.getByRole('button', { name: 'Send' }).click();
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages).toContainText('The workspace has 3 file(s)');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Approvals/);

  // The chat was first loaded untitled and empty; going back shows it named.
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('list files');
  await expect(messages).toContainText('The workspace has 3 file(s)');
  // The home page was first loaded with no conversations.
  await page.goBack();
  const list = page.getByRole('list', { name: 'Conversations' });
  await expect(list.getByRole('link', { name: /list files/ })).toBeVisible();
  await page.goForward();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('list files');
});

test('the first message names the conversation in every open tab', async ({ page, context }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\//);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  const other = await context.newPage();
  await other.goto(page.url());
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('New conversation');
  await expect(other.getByRole('button', { name: 'Send' })).toBeDisabled();

  await page.getByRole('textbox', { name: 'Message' }).fill('list files');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('list files');
  await expect(other.getByRole('list', { name: 'Messages' })).toContainText('The workspace has 3 file(s)');
});

test('unknown addresses answer 404 with a page that leads home', async ({ page }) => {
  const response = await page.goto('/nope');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await page.getByRole('link', { name: 'Back to conversations' }).click();
  await expect(page.getByRole('heading', { name: 'Conversations', level: 1 })).toBeVisible();

  const missing = await page.goto('/c/conv_0000000000000000000000000000dead');
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Conversation not found' })).toBeVisible();
});

test('markup in a message is shown as text', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  await page.getByRole('textbox', { name: 'Message' }).fill(hostile);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText(hostile);
  await page.reload();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText(hostile);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.getByRole('img')).toHaveCount(0);
});

test('every page comes alive without an error or warning in the console', async ({ context }) => {
  const problems: string[] = [];
  context.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.page()?.url()} ${m.type()}: ${m.text()}`);
  });
  context.on('weberror', (e) => problems.push(`${e.page()?.url()} uncaught: ${e.error().message}`));
  const chat = await context.newPage();
  const inbox = await context.newPage();

  await chat.goto('/');
  await chat.getByRole('button', { name: 'New conversation' }).click();
  await expect(chat.getByRole('button', { name: 'Send' })).toBeDisabled();
  await inbox.goto('/approvals');
  await chat.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt and todo.md');
  await chat.getByRole('button', { name: 'Send' }).click();
  const cards = chat.getByRole('article', { name: 'delete_file call' });
  await expect(cards).toHaveCount(2);
  await chat.reload();
  await expect(chat.getByRole('button', { name: 'Send' })).toBeDisabled();

  // The calls reach the open inbox live, and it decides one.
  const waiting = inbox.getByRole('article', { name: 'delete_file call' });
  await expect(waiting).toHaveCount(2);
  await waiting.first().getByRole('button', { name: 'Approve', exact: true }).click();
  // The batch runs once every call in it is decided.
  await expect(waiting.first()).toHaveAttribute('data-status', 'approved');

  // The review page decides the other.
  const last = cards.nth(1);
  await last.getByRole('button', { name: 'Copy review link' }).click();
  const link = await last.getByRole('textbox', { name: 'Review link' }).inputValue();
  const review = await context.newPage();
  await review.goto(link);
  await review.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  await review.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(review.getByRole('status')).toContainText('Approved by Ada');
  for (const card of await cards.all()) await expect(card).toHaveAttribute('data-status', 'completed');

  await inbox.goto('/');
  await expect(inbox.getByRole('link', { name: /delete notes.txt and todo.md/ })).toBeVisible();
  await inbox.getByRole('link', { name: 'Allowed' }).click();
  await expect(inbox.getByRole('heading', { level: 1, name: 'Always allowed' })).toBeVisible();
  await inbox.getByRole('link', { name: 'Audit' }).click();
  await expect(inbox.getByRole('heading', { level: 1, name: 'Audit' })).toBeVisible();
  await expect(inbox.getByRole('list', { name: 'Audit entries' })).toContainText('Approved');
  expect(problems).toEqual([]);
});

test('the conversation list pages a thousand conversations and finds one by its title', async ({ page, request, airlock }) => {
  // Twenty page loads after a thousand conversations are written: more than
  // the default 30 s on a machine that is busy with something else.
  test.setTimeout(90_000);
  // A thousand conversations: one named through the same functions the page
  // uses, the rest written into the store, a second apart and older.
  const named = await (await request.post('/api/fn/create_conversation', { headers: { accept: 'application/json' } })).json();
  await request.post('/api/fn/post_message', {
    headers: { accept: 'application/json' },
    form: { conversation_id: named, content: 'Quarterly numbers for Rita' },
  });
  const script = `
import sqlite3, sys, time, uuid
db = sqlite3.connect(sys.argv[1], timeout=10)
now = int(time.time() * 1000)
rows = [("conv_" + uuid.uuid4().hex, f"Conversation {n}", now - 1000 * n, now - 1000 * n) for n in range(1, 1000)]
db.executemany("insert into conversations (conversation_id, title, created_at, updated_at) values (?, ?, ?, ?)", rows)
db.commit()
`;
  execFileSync('python3', ['-c', script, join(airlock.dataDir, 'airlock.db')]);
  await page.goto('/');
  const list = page.getByRole('list', { name: 'Conversations' });
  await expect(list.getByRole('listitem')).toHaveCount(50);
  await expect(list.getByRole('link', { name: /Quarterly numbers for Rita/ })).toBeVisible();
  // Twenty pages of fifty, each after the last of the one before.
  for (let p = 2; p <= 20; p++) {
    await page.getByRole('link', { name: 'Older conversations' }).click();
    await expect(list.getByRole('listitem')).toHaveCount(50);
    await expect(list.getByRole('listitem').first()).toContainText(`Conversation ${(p - 1) * 50}`);
  }
  await expect(page.getByRole('link', { name: 'Older conversations' })).toHaveCount(0);
  await expect(list.getByRole('listitem').last()).toContainText('Conversation 999');

  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('quarterly');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByRole('link', { name: /Quarterly numbers for Rita/ })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('no such title');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByText('No conversation title contains that.')).toBeVisible();
});
