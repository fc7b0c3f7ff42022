// Multi-round reviews in a real browser: an agent asks over HTTP, the
// reviewer rejects with a reason, the agent asks again naming the earlier
// case, and the second round's page shows the first beside the new call,
// with JavaScript and at a phone's width.
import { test, expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import { AirlockServer } from './fixtures';
import { ask as askReview, askingServer } from './asking';

const KEY = 'e2e-rounds-key';

/** Asks to publish `title` (as the next round of `previous`); the `hitl` object. */
async function ask(server: AirlockServer, title: string, previous?: string) {
  const res = await fetch(`${server.url}/api/v1/tool-calls`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      tool: 'publish',
      source: 'cms',
      arguments: { title },
      ...(previous ? { previous_case_id: previous } : {}),
    }),
  });
  expect(res.status).toBe(202);
  return (await res.json()).hitl;
}

for (const width of [360, 1280]) {
  test(`the next round's page shows the earlier one and takes a decision (${width} px)`, async ({ browser }) => {
    const sha = createHash('sha256').update(KEY).digest('hex');
    const server = await AirlockServer.start(
      `gateway:\n  api_keys:\n    - name: writer\n      sha256: ${sha}\n` +
        `sources:\n  cms:\n    policy_only: true\n    require_approval: [publish]\n`,
    );
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    try {
      const page = await context.newPage();
      const first = await ask(server, 'Scaling microservices');
      await page.goto(first.review_url);
      const card = page.getByRole('article', { name: 'publish call' });
      await card.getByRole('button', { name: 'Reject' }).click();
      await card.getByRole('textbox', { name: 'Reason' }).fill('Name Kubernetes in the title');
      await card.getByRole('button', { name: 'Confirm reject' }).click();
      await expect(page.getByRole('status').first()).toContainText('Rejected');

      const second = await ask(server, 'Scaling with Kubernetes', first.case_id);
      expect(second.previous_case_id).toBe(first.case_id);
      await page.goto(second.review_url);
      await expect(page.getByText('Review requested · round 2')).toBeVisible();
      const rounds = page.getByRole('region', { name: 'Earlier rounds' });
      await expect(rounds).toContainText('Round 1');
      await expect(rounds).toContainText('"Scaling microservices"');
      await expect(rounds).toContainText('Name Kubernetes in the title');
      // The earlier round is a record: nothing in it decides.
      await expect(rounds.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);

      const now = page.getByRole('article', { name: 'publish call' }).first();
      await expect(now).toContainText('"Scaling with Kubernetes"');
      await now.getByRole('button', { name: 'Approve', exact: true }).click();
      await expect(page.getByRole('status').first()).toContainText('Approved');
      const polled = await fetch(`${server.url}/api/v1/reviews/${first.case_id}/status`, {
        headers: { Authorization: `Bearer ${KEY}` },
      });
      expect((await polled.json()).next_case_id).toBe(second.case_id);
    } finally {
      await context.close();
      await server.stop();
    }
  });
}

test("the next round of an agent's own approval shows the feedback and edits asked for", async ({ browser }) => {
  const server = await askingServer();
  const context = await browser.newContext({ viewport: { width: 360, height: 900 } });
  try {
    const page = await context.newPage();
    const first = await askReview(server, { type: 'approval', prompt: 'Publish this post?', context: { title: 'Scaling' } });
    await page.goto(first.review_url);
    await page.getByRole('textbox', { name: /Feedback/ }).fill('Warmer, please');
    await page.getByRole('textbox', { name: 'Your name' }).fill('Rita');
    await page.getByRole('button', { name: 'Request changes' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Changes requested' })).toBeVisible();

    const second = await askReview(server, {
      type: 'approval', prompt: 'Publish this post?', context: { title: 'Scaling, warmly' },
      previous_case_id: first.case_id,
    });
    await page.goto(second.review_url);
    const rounds = page.getByRole('region', { name: 'Earlier rounds' });
    await expect(rounds).toContainText('Answered by Rita: changes requested');
    await expect(rounds.getByRole('definition')).toHaveText('Warmer, please');
    await page.screenshot({ path: test.info().outputPath('round-2-feedback-360.png'), fullPage: true });
  } finally {
    await context.close();
    await server.stop();
  }
});
