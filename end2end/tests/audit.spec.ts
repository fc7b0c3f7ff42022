// The audit page: a decision made in the chat shows with who decided,
// where, the arguments and the reason; the filters narrow it by address;
// and the export holds the same entries as a chain of hashes.
import { test, expect } from './fixtures';
import { newConversation, send } from './chat';

test('a rejection is audited, found by its filters and exported', async ({ page, request }) => {
  await newConversation(page);
  await send(page, 'delete notes.txt and todo.md');
  const cards = page.getByRole('article', { name: 'delete_file call' });
  await expect(cards).toHaveCount(2);
  await cards.nth(0).getByRole('button', { name: 'Approve', exact: true }).click();
  await cards.nth(1).getByRole('button', { name: 'Reject', exact: true }).click();
  await cards.nth(1).getByRole('textbox', { name: 'Reason' }).fill('keep the list');
  await cards.nth(1).getByRole('button', { name: 'Confirm reject' }).click();
  await expect(cards.nth(1)).toHaveAttribute('data-status', 'rejected');
  await expect(cards.nth(0)).toHaveAttribute('data-status', 'completed');

  const entries = page.getByRole('list', { name: 'Audit entries' }).getByRole('listitem');
  for (const width of [360, 1100]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
    await expect(page).toHaveURL(/\/audit$/);
    const rejected = entries.filter({ hasText: 'Rejected' });
    await expect(rejected).toHaveCount(1);
    await expect(rejected).toContainText('delete_file');
    await expect(rejected).toContainText('{"path":"todo.md"}');
    await expect(rejected).toContainText('keep the list');
    await expect(entries.filter({ hasText: 'Approved' })).toContainText('{"path":"notes.txt"}');
    await expect(entries.filter({ hasText: 'Asked for approval' })).toHaveCount(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: test.info().outputPath(`audit-${width}.png`), fullPage: true });
  }

  // Narrowed to rejections: the filter is in the address, and stays in the form.
  await page.getByLabel('Outcome').selectOption('reject');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/outcome=reject/);
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toContainText('keep the list');
  await expect(page.getByLabel('Outcome')).toHaveValue('reject');
  await page.goto('/audit?to=2020-01-01');
  await expect(page.getByText('No entry matches these filters.')).toBeVisible();
  await page.goto('/audit?from=yesterday');
  await expect(page.getByRole('alert')).toContainText('is not a day');

  // The export: every entry, oldest first, each chained to the one before.
  const exported = await request.get('/api/v1/audit');
  expect(exported.headers()['content-type']).toContain('application/x-ndjson');
  const lines = (await exported.text()).trim().split('\n').map((l) => JSON.parse(l));
  expect(lines[0].seq).toBe(1);
  expect(lines[0].prev).toBe('0'.repeat(64));
  for (let i = 1; i < lines.length; i++) {
    expect(lines[i].seq).toBe(lines[i - 1].seq + 1);
    expect(lines[i].prev).toBe(lines[i - 1].hash);
  }
  const rejection = lines.find((l) => l.action === 'reject');
  expect(rejection.detail.reason).toBe('keep the list');
  expect(rejection.tool).toBe('delete_file');
});
