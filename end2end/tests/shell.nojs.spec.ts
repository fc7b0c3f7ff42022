import { test, expect } from './fixtures';

test('without JavaScript, a conversation can be started and messaged', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page).toHaveURL(/\/c\/conv_[0-9a-f]{32}$/);
  await page.getByRole('textbox', { name: 'Message' }).fill('read notes.txt');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('read notes.txt');
});
