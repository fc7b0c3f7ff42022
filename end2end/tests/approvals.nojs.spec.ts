import { test, expect } from './fixtures';

test('without JavaScript, a pending call can be approved and rejected', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt and todo.md');
  await page.getByRole('button', { name: 'Send' }).click();
  // Without a live stream, the page shows the agent's turn once reloaded.
  const cards = page.getByRole('article', { name: 'delete_file call' });
  await expect(async () => {
    await page.reload();
    await expect(cards).toHaveCount(2, { timeout: 500 });
  }).toPass();
  await cards.nth(0).getByRole('button', { name: 'Approve', exact: true }).click();
  // Reject opens its reason box natively, without JavaScript.
  await cards.nth(1).getByRole('button', { name: 'Reject', exact: true }).click();
  await cards.nth(1).getByRole('textbox', { name: 'Reason' }).fill('keep the list');
  await cards.nth(1).getByRole('button', { name: 'Confirm reject' }).click();
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted notes.txt.', { timeout: 500 });
  }).toPass();
  await expect(cards.nth(0)).toHaveAttribute('data-status', 'completed');
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'rejected');
  await expect(cards.nth(1)).toContainText('keep the list');
});

test('without JavaScript, a form on a question card is filled in on its page', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('let me fill in a new file');
  await page.getByRole('button', { name: 'Send' }).click();
  const card = page.getByRole('article', { name: 'Question from the agent' });
  await expect(async () => {
    await page.reload();
    await expect(card).toContainText('Answered on its review page, with a form.', { timeout: 500 });
  }).toPass();
  // The card's own form needs JavaScript; its page works without.
  await card.getByRole('button', { name: 'Answer on its page' }).click();
  await expect(page).toHaveURL(/\/review\/review_/);
  await page.getByRole('textbox', { name: 'File name (required)' }).fill('ideas.md');
  await page.getByRole('textbox', { name: 'Text (required)' }).fill('ship it');
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByRole('status')).toContainText('This review is closed');
  await expect(page.getByText('File name: ideas.md; Text: ship it')).toBeVisible();
});
