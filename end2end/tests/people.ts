import { expect, AirlockServer } from './fixtures';
import type { Browser, Page } from '@playwright/test';

/** The password every test person signs in with. */
export const PASSWORD = 'correct horse battery';

/** Signs `name` in, in a browser context of their own, and lands on `path`. */
export async function signedIn(browser: Browser, server: AirlockServer, name: string, path: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${server.url}${path}`);
  return page;
}
