// The insights page over a seeded history: a tool people approved 22 times
// within seconds is flagged as a rubber stamp, with the rule that would
// allow it and what replaying the week under it changes; the table counts
// the calls; at 360 px and on a desktop.
import { test, expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import { AirlockServer } from './fixtures';

const KEY = 'e2e-insights-key';

/** Asks for a `send_email` call through the gateway and approves it by its link at once. */
async function approvedAtOnce(server: AirlockServer, to: string) {
  const asked = await fetch(`${server.url}/api/v1/tool-calls`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ source: 'mail', tool: 'send_email', arguments: { to } }),
  });
  expect(asked.status).toBe(202);
  const hitl = (await asked.json()).hitl;
  const token = new URL(hitl.review_url).searchParams.get('token');
  const answered = await fetch(`${server.url}/api/v1/reviews/${hitl.case_id}/respond?token=${token}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ action: 'approve' }),
  });
  expect(answered.status).toBe(200);
}

test('a tool approved without looking is flagged with the rule that would allow it', async ({ browser }) => {
  const sha = createHash('sha256').update(KEY).digest('hex');
  const server = await AirlockServer.start(
    `gateway:\n  api_keys:\n    - name: insights\n      sha256: ${sha}\n` +
      `sources:\n  mail:\n    policy_only: true\n    require_approval: [send_email]\n`,
  );
  try {
    for (let i = 0; i < 22; i++) await approvedAtOnce(server, `p${i}@example.com`);
    for (const width of [360, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Insights' }).click();
      await expect(page.getByRole('heading', { name: 'Insights', level: 1 })).toBeVisible();
      await expect(page.getByRole('link', { name: 'Last 7 days' })).toHaveAttribute('aria-current', 'page');

      const card = page.getByRole('article', { name: 'send_email from mail' });
      await expect(card).toContainText('approved 22 of 22 times');
      await expect(card.locator('pre')).toHaveText('sources:\n  "mail":\n    rules:\n      # after any rules there\n      - tool: "send_email"\n        action: allow\n');
      await expect(card).toContainText('Replaying its 22 calls of the last 7 days under this rule: 22 calls ask → allow.');

      const row = page.getByRole('region', { name: 'Calls by tool' }).getByRole('row', { name: /send_email/ });
      await expect(row.getByRole('cell')).toHaveText(['22', '0', '22', '0', '100%', /s$/, /s$/, '0']);
      await expect(page.getByText('No shadow policy is set')).toBeVisible();

      // Another window is a link away, and says the same of this history.
      await page.getByRole('link', { name: 'Last 24 hours' }).click();
      await expect(page).toHaveURL(/window=24h/);
      await expect(card).toContainText('approved 22 of 22 times');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: test.info().outputPath(`insights-${width}.png`), fullPage: true });
      await context.close();
    }
  } finally {
    await server.stop();
  }
});
