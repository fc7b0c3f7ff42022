import { test as base, expect, AirlockServer } from './fixtures';
import { Aimock } from './aimock';
import { newConversation, send } from './chat';

const story = 'In the beginning. ' + 'Once upon a time there was a lock that would not open. '.repeat(12);

// Airlock talking to a real OpenAI-compatible server, scripted.
const test = base.extend<{ model: Aimock }>({
  model: async ({}, use) => {
    const model = await Aimock.start([
      { match: { userMessage: 'tell a story' }, response: { content: story }, chunkSize: 4, latency: 60 },
      {
        match: { userMessage: 'write the summary' },
        response: {
          toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'summary.md', content: story }) }],
        },
        chunkSize: 6,
        latency: 40,
      },
      { match: { userMessage: 'and then?' }, response: { content: 'The lock opened.' } },
      {
        match: { userMessage: 'a very long paste' },
        response: {
          error: {
            message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens.",
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
          status: 400,
        },
      },
    ]);
    await use(model);
    model.stop();
  },
  airlock: async ({ model }, use) => {
    const server = await AirlockServer.start(undefined, { env: model.env });
    await use(server);
    await server.stop();
    server.dispose();
  },
});

test('Stop ends the reply being written and keeps what it wrote', async ({ page }) => {
  await newConversation(page);
  // A real model is asked in any words: no demo commands are suggested.
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', 'Ask the agent…');
  await expect(page.getByText('Try “list files”')).toHaveCount(0);
  await send(page, 'tell a story');
  const writing = page.getByRole('listitem', { name: 'Agent is writing' });
  await expect(writing).toContainText('Once upon a time');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden();
  const kept = page.locator('.message.from-agent').last();
  await expect(kept).toContainText('Once upon a time');
  await expect(kept.locator('em')).toHaveText('[Stopped.]');
  // The composer is free again.
  await page.getByRole('textbox', { name: 'Message' }).fill('thanks');
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
});

test('Esc stops the agent too', async ({ page }) => {
  await newConversation(page);
  await send(page, 'tell a story');
  await expect(page.getByRole('listitem', { name: 'Agent is writing' })).toContainText('Once');
  await page.keyboard.press('Escape');
  await expect(page.locator('.message.from-agent em').last()).toHaveText('[Stopped.]');
});

test('a failure is a notice from Airlock, not an agent reply, and the list marks it', async ({ page }) => {
  await newConversation(page);
  await send(page, 'a very long paste');
  const notice = page.getByRole('note', { name: 'Notice from Airlock' });
  await expect(notice).toContainText("the model's context (4096 tokens) is too small for this conversation");
  await expect(notice).toContainText('Start a new conversation');
  await expect(page.locator('.message.from-agent')).toHaveCount(0);
  await page.getByRole('link', { name: '← Conversations' }).click();
  const listed = page.getByRole('list', { name: 'Conversations' }).getByRole('link', { name: /a very long paste/ });
  await expect(listed).toContainText('Agent stopped with an error');
});

base('a chat whose model cannot be reached says so in a banner', async ({ page }) => {
  const server = await AirlockServer.start(undefined, {
    env: { AIRLOCK_MODEL_BASE_URL: 'http://127.0.0.1:9/v1', AIRLOCK_MODEL: 'gpt-test' },
  });
  try {
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    const banner = page.getByRole('alert');
    await expect(banner).toContainText("Airlock cannot reach the model's server at http://127.0.0.1:9/v1: connection refused");
    await expect(banner).toContainText('The agent cannot answer until it can reach its model.');
  } finally {
    await server.stop();
    server.dispose();
  }
});

test('a call shows as a card while its arguments stream, then as the call', async ({ page }) => {
  await newConversation(page);
  await send(page, 'write the summary');
  const writing = page.getByRole('article', { name: 'Call to write_file being written' });
  await expect(writing).toContainText('summary.md');
  await expect(writing).toContainText('Being written…');
  const card = page.getByRole('article', { name: 'write_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval', { timeout: 20_000 });
  await expect(writing).toBeHidden();
});

test('a reload while the model writes shows everything written so far', async ({ page }) => {
  await newConversation(page);
  await send(page, 'tell a story');
  const writing = page.getByRole('listitem', { name: 'Agent is writing' });
  await expect(writing).toContainText('would not open. Once upon');
  await page.reload();
  // The start of the reply was written before the reload: it is there, once.
  await expect(writing).toContainText('In the beginning.');
  expect((await writing.innerText()).split('In the beginning').length).toBe(2);
  await expect(writing).toBeHidden({ timeout: 20_000 });
  const stored = page.locator('.message.from-agent').last();
  await expect(stored).toContainText('In the beginning. Once upon');
});

test('a message sent while the agent writes waits, then is answered after the reply', async ({ page }) => {
  await newConversation(page);
  await send(page, 'tell a story');
  await expect(page.getByRole('listitem', { name: 'Agent is writing' })).toContainText('In the beginning');
  await expect(page.getByText('what you send now waits until it finishes')).toBeVisible();
  await send(page, 'and then?');
  const queued = page.getByRole('listitem', { name: 'Queued message' });
  await expect(queued).toContainText('and then?');
  await expect(queued).toBeHidden({ timeout: 20_000 });
  const messages = page.getByRole('list', { name: 'Messages' }).locator('.message');
  await expect(messages.last()).toContainText('The lock opened.');
  await expect(messages).toHaveText([/tell a story/, /In the beginning/, /and then\?/, /The lock opened\./]);
});
