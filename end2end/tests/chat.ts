import { expect } from './fixtures';
import type { Page } from '@playwright/test';

/** Starts a conversation and waits for hydration (Send turns disabled when empty). */
export async function newConversation(page: Page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\/conv_/);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
}

/** Sends a chat message. */
export async function send(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}
