import { test, expect, AirlockServer } from './fixtures';
import type { Browser, Page } from '@playwright/test';

/** The password every test person signs in with. */
export const PASSWORD = 'correct horse battery';

/** A browser's share of its test's time: a test with four browsers on a
 * loaded machine needs four times a test with one, not one fixed budget. */
const EACH_BROWSER_MS = 30_000;

/** Signs `name` in, in a browser context of their own, and lands on `path`. */
export async function signedIn(browser: Browser, server: AirlockServer, name: string, path: string): Promise<Page> {
  test.setTimeout(test.info().timeout + EACH_BROWSER_MS);
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${server.url}${path}`);
  return page;
}

/** Starts a conversation on `page` by sending `message`; its path. */
export async function startsConversation(page: Page, message: string): Promise<string> {
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\/conv_/);
  const chat = new URL(page.url()).pathname;
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
  return chat;
}
