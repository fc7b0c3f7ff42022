import { test, expect } from './fixtures';
import { newConversation, send } from './chat';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

test('a write shows its diff, and an approval after the file changed shows the new one', async ({ page, airlock }) => {
  await newConversation(page);
  await send(page, 'write notes.txt: Quarterly planning notes');
  const card = page.getByRole('article', { name: 'write_file call' });
  await expect(card).toHaveAttribute('data-status', 'pending_approval');
  const preview = card.getByRole('region', { name: 'Preview: Changes to notes.txt' });
  await expect(preview).toContainText('1 line added, 3 removed.');
  await expect(preview).toContainText('Lines 1–3 become line 1');
  // Added and removed lines are told by role and words, not by colour.
  await expect(preview.getByRole('deletion')).toHaveCount(3);
  await expect(preview.getByRole('deletion').nth(1)).toContainText('removed: - budget review on Friday');
  await expect(preview.getByRole('insertion')).toContainText('added: Quarterly planning notes');

  // Someone else writes the file while the card is on screen.
  const notes = join(airlock.dataDir, 'workspace', 'notes.txt');
  writeFileSync(notes, 'changed meanwhile\n');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  // The card is drawn again with the diff as it is now, and says why.
  await expect(card.getByRole('status')).toContainText('The file changed since its preview was first shown');
  await expect(preview.getByRole('deletion')).toHaveCount(1);
  await expect(preview.getByRole('deletion')).toContainText('changed meanwhile');
  await expect(card).toHaveAttribute('data-status', 'pending_approval');

  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'completed');
  expect(readFileSync(notes, 'utf8')).toBe('Quarterly planning notes');
  // Decided, the preview folds away.
  await expect(card.locator('details.preview')).not.toHaveAttribute('open', '');
});

test('a new file says so and its lines are all added', async ({ page }) => {
  await newConversation(page);
  await send(page, 'write drafts/idea.md: a fresh idea');
  const card = page.getByRole('article', { name: 'write_file call' });
  const preview = card.getByRole('region', { name: 'Preview: Changes to drafts/idea.md' });
  await expect(preview).toContainText('New file: 1 line added.');
  await expect(preview.getByRole('insertion')).toContainText('a fresh idea');
});
