// The agent's typed question in the chat: chosen with one press on its
// card, or on the review page the card opens; either way the agent goes on
// with the choice, read back in words.
import { test, expect } from './fixtures';
import { newConversation, send } from './chat';

test('a choice the agent asks for is made on its page and read back in the chat', async ({ page }) => {
  await newConversation(page);
  const chat = page.url();
  await send(page, 'let me choose which to keep: a.txt or b.txt');
  const card = page.getByRole('article', { name: 'Question from the agent' });
  await expect(card).toContainText('Which to keep?');
  // Only the page takes a typed answer: the card has no free-text box.
  await expect(card.getByRole('textbox', { name: 'Answer' })).toHaveCount(0);
  await card.getByRole('button', { name: 'Answer on its page' }).click();
  await expect(page).toHaveURL(/\/review\/review_/);
  await page.getByRole('radio', { name: 'b.txt' }).check();
  await page.getByRole('textbox', { name: 'Your name' }).fill('Sam');
  await page.getByRole('button', { name: 'Submit choice' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Chosen by Sam' })).toBeVisible();

  await page.goto(chat);
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Answered by Sam: b.txt');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('you answered: "chose b.txt');
});

test('a choice of one is made with one press on the card', async ({ page }) => {
  await newConversation(page);
  await send(page, 'let me choose which to keep: a.txt or b.txt');
  const card = page.getByRole('article', { name: 'Question from the agent' });
  await card.getByRole('button', { name: 'a.txt' }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Answered by sam: a.txt');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('you answered: "chose a.txt');
});

test('several choices are made on the card', async ({ page }) => {
  await newConversation(page);
  await send(page, 'let me pick which to delete: a.txt, b.txt or c.txt');
  const card = page.getByRole('article', { name: 'Question from the agent' });
  const choices = card.getByRole('group', { name: 'Choose 1 to 3' });
  await expect(choices).toBeVisible();
  // None chosen: the server names the problem beside the choices.
  await card.getByRole('button', { name: 'Submit choice' }).click();
  await expect(choices).toHaveAttribute('aria-invalid', 'true');
  await expect(choices).toContainText('select 1 to 3 of the options');
  await card.getByRole('checkbox', { name: 'a.txt' }).check();
  await card.getByRole('checkbox', { name: 'c.txt' }).check();
  await card.getByRole('button', { name: 'Submit choice' }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Answered by sam: a.txt, c.txt');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('you answered: "chose a.txt, c.txt');
});

for (const width of [360, 1280]) {
  test(`a small form is filled in on the card (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await newConversation(page);
    await send(page, 'let me fill in a new file');
    const card = page.getByRole('article', { name: 'Question from the agent' });
    await expect(card).toContainText('Fill in a new file.');
    const name = card.getByRole('textbox', { name: 'File name (required)' });
    await name.fill('ideas.md');
    await card.getByRole('textbox', { name: 'Text (required)' }).fill('ship it');
    await card.getByRole('checkbox', { name: 'Replace a file of that name' }).check();
    // The page stays the second way to answer it.
    await expect(card.getByRole('button', { name: 'Answer on its page' })).toBeVisible();
    await card.getByRole('button', { name: 'Submit' }).click();
    await expect(card).toHaveAttribute('data-status', 'completed');
    await expect(card).toContainText('Answered by sam: File name: ideas.md; Text: ship it; Replace a file of that name: true');
    await expect(page.getByRole('list', { name: 'Messages' })).toContainText('you answered: "File name: ideas.md');
  });
}
