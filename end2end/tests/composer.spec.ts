import { test, expect } from './fixtures';
import { newConversation } from './chat';

test('a message typed before the chat comes alive is kept, and Send works', async ({ page }) => {
  await newConversation(page);
  const url = page.url();

  // Reload with the WASM held back: the page stays plain HTML until released.
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));
  await page.route('**/*.wasm', async (route) => {
    await released;
    await route.continue();
  });
  await page.goto(url);
  const box = page.getByRole('textbox', { name: 'Message' });
  const send = page.getByRole('button', { name: 'Send' });
  await box.fill('read notes.txt');
  await expect(send).toBeEnabled();

  // The chat opens its event stream only once it has come alive.
  const alive = page.waitForRequest(/\/api\/conversations\/conv_[0-9a-f]{32}\/events/);
  release();
  await alive;
  await expect(box).toHaveValue('read notes.txt');
  await expect(send).toBeEnabled();

  // Send posts from the living page (no reload) and clears the box.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  await send.click();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('read notes.txt');
  await expect(box).toHaveValue('');
  await expect(send).toBeDisabled();
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
});
