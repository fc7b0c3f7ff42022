import { test, expect } from './fixtures';
import { newConversation, send } from './chat';
import type { Locator, Page } from '@playwright/test';

/** Asks a pending card for a review link and returns it. */
async function reviewLink(card: Locator): Promise<string> {
  await card.getByRole('button', { name: 'Copy review link' }).click();
  const field = card.getByRole('textbox', { name: 'Review link' });
  await expect(field).toHaveValue(/^http:\/\/[^/]+\/review\/review_[\w-]+\?token=[\w-]{43}$/);
  return field.inputValue();
}

/** A chat with a pending delete_file call. */
async function pendingDelete(page: Page): Promise<Locator> {
  await newConversation(page);
  await send(page, 'delete notes.txt');
  const card = page.getByRole('article', { name: 'delete_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  return card;
}

test('a reviewer with only the link approves and the run continues in the chat', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);

  const reviewer = await browser.newContext();
  const review = await reviewer.newPage();
  await review.goto(link);
  await expect(review.getByRole('heading', { level: 1 })).toHaveText('Approve delete_file from demo?');
  await expect(review.getByRole('region', { name: 'What led to this' })).toContainText('delete notes.txt');
  const reviewCard = review.getByRole('article', { name: 'delete_file call' });
  await expect(reviewCard).toContainText('"notes.txt"');
  await review.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  await reviewCard.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(review.getByRole('status')).toContainText('Approved by Ada');

  await expect(card).toHaveAttribute('data-status', 'completed');
  await expect(card).toContainText('Approved by Ada');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('I deleted notes.txt.');

  // The same link again shows the recorded result, not a fresh form.
  const again = await reviewer.newPage();
  await again.goto(link);
  await expect(again.getByRole('status')).toContainText('Approved by Ada');
  await expect(again.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  await reviewer.close();
});

test('a rejection with a reason through the link reaches the chat', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);
  const reviewer = await browser.newContext();
  const review = await reviewer.newPage();
  await review.goto(link);
  const reviewCard = review.getByRole('article', { name: 'delete_file call' });
  await reviewCard.getByRole('button', { name: 'Reject' }).click();
  await reviewCard.getByRole('textbox', { name: 'Reason' }).fill('notes.txt is still needed');
  // Enter in the reason must not approve.
  await reviewCard.getByRole('textbox', { name: 'Reason' }).press('Enter');
  await reviewCard.getByRole('button', { name: 'Confirm reject' }).click();
  await expect(review.getByRole('status')).toContainText('Rejected by reviewer with the link');

  await expect(card).toHaveAttribute('data-status', 'rejected');
  await expect(card).toContainText('notes.txt is still needed');
  await reviewer.close();
});

test('a second reviewer sees the first decision instead of deciding again', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);
  const reviewer = await browser.newContext();
  const first = await reviewer.newPage();
  const second = await reviewer.newPage();
  await first.goto(link);
  await second.goto(link);
  await expect(second.getByRole('button', { name: 'Approve', exact: true })).toBeVisible();
  await second.getByRole('textbox', { name: 'Your name' }).fill('Grace');
  await first.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  await first.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(first.getByRole('status')).toContainText('Approved by Ada');
  // The second page, still open, closes its forms by itself.
  await expect(second.getByRole('status')).toContainText('Approved by Ada');
  await expect(second.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  await expect(card).toHaveAttribute('data-status', 'completed');
  await reviewer.close();
});

test('a response that loses the race to another says who decided', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);
  const reviewer = await browser.newContext();
  const review = await reviewer.newPage();
  // The page hears of no decision, as when its stream is down.
  await review.route('**/api/reviews/**/events**', (route) => route.abort());
  await review.goto(link);
  await review.getByRole('textbox', { name: 'Your name' }).fill('Grace');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  const reconnecting = review.getByRole('status').filter({ hasText: 'Reconnecting…' });
  await expect(reconnecting).toBeVisible();
  await review.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(review.getByRole('alert')).toContainText('Already decided by sam');
  await expect(review.getByRole('status').filter({ hasText: 'This review is closed.' })).toContainText(
    'Approved by sam',
  );
  // The stream comes back and the page stops warning that it may be stale.
  await review.unroute('**/api/reviews/**/events**');
  await expect(reconnecting).toBeHidden({ timeout: 15_000 });
  await reviewer.close();
});

test('a tampered link shows the 403 page', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);
  const reviewer = await browser.newContext();
  const review = await reviewer.newPage();
  const tampered = link.replace(/token=(.)/, (_, c) => `token=${c === 'A' ? 'B' : 'A'}`);
  const response = await review.goto(tampered);
  expect(response?.status()).toBe(403);
  await expect(review.getByRole('heading', { level: 1 })).toHaveText('This review link is not valid');
  await expect(review.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  // The real link still works.
  expect((await review.goto(link))?.status()).toBe(200);
  await reviewer.close();
});

test('a reviewer can withdraw instead of deciding: the call does not run and the chat says so', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);
  const reviewer = await browser.newContext();
  const review = await reviewer.newPage();
  await review.goto(link);
  await review.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  const reviewCard = review.getByRole('article', { name: 'delete_file call' });
  await reviewCard.getByRole('button', { name: 'Withdraw' }).click();
  const reason = reviewCard.getByRole('textbox', { name: 'Reason for withdrawing' });
  await reason.fill('ask Grace, it is her file');
  // Enter in the reason must not approve.
  await reason.press('Enter');
  await reviewCard.getByRole('button', { name: 'Confirm withdraw' }).click();
  await expect(review.getByRole('status')).toContainText('Withdrawn by Ada');
  await expect(review.getByRole('status')).toContainText('ask Grace, it is her file');
  await expect(review.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);

  await expect(card).toHaveAttribute('data-status', 'cancelled');
  await expect(card).toContainText('Withdrawn by Ada: ask Grace, it is her file');
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText(
    'The review of deleting notes.txt was withdrawn ("ask Grace, it is her file"), so I left it alone.',
  );
  // The same link shows the outcome after a reload too.
  await review.reload();
  await expect(review.getByRole('status')).toContainText('Withdrawn by Ada');
  await reviewer.close();
});

test('an open review page follows a decision taken in the chat, then the call as it runs', async ({ page, browser }) => {
  const card = await pendingDelete(page);
  const link = await reviewLink(card);
  const reviewer = await browser.newContext();
  const review = await reviewer.newPage();
  await review.goto(link);
  const reviewCard = review.getByRole('article', { name: 'delete_file call' });
  await expect(reviewCard.getByRole('button', { name: 'Approve', exact: true })).toBeVisible();
  // Hydrated: typing into the page touches the case.
  await review.getByRole('textbox', { name: 'Your name' }).fill('Ada');

  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(review.getByRole('status')).toContainText('Approved by sam');
  await expect(review.getByRole('status')).toContainText('This review is closed.');
  await expect(reviewCard.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  await expect(reviewCard).toHaveAttribute('data-status', 'completed');
  await reviewer.close();
});
