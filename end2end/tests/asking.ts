// Questions of every review type asked over HTTP and answered on their
// review pages, for the specs with and without JavaScript: each answer
// shown as recorded on the page and read back by the agent's poll.
import { expect, type Browser, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { AirlockServer } from './fixtures';

const KEY = 'e2e-asking-key';

/** A server with one API key. */
export async function askingServer(): Promise<AirlockServer> {
  const sha = createHash('sha256').update(KEY).digest('hex');
  return AirlockServer.start(`gateway:\n  api_keys:\n    - name: asker\n      sha256: ${sha}\n`);
}

/** Asks `body`; the `hitl` object. */
export async function ask(server: AirlockServer, body: object) {
  const res = await fetch(`${server.url}/api/v1/reviews`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  return (await res.json()).hitl;
}

/** The result the agent polls for case `id`. */
async function result(server: AirlockServer, id: string) {
  const res = await fetch(`${server.url}/api/v1/reviews/${id}/status`, {
    headers: { Authorization: `Bearer ${KEY}` },
  });
  const body = await res.json();
  expect(body.status).toBe('completed');
  // The answer as given; the decision's receipt beside it is checked by
  // server/tests/receipts.rs.
  const { signature, ...answer } = body.result;
  expect(signature.algorithm).toBe('EdDSA');
  return answer;
}

async function answered(page: Page, words: string) {
  await expect(page.getByRole('status').filter({ hasText: words })).toBeVisible();
}

/** Every type asked and answered on its page at `width`. */
export async function answerEveryType(browser: Browser, width: number, javaScript: boolean) {
  const server = await askingServer();
  const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: javaScript });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    // Selection: a choice that does not fit comes back named, then one that does.
    const selection = await ask(server, {
      type: 'selection', prompt: 'Which job?',
      context: { options: [{ id: 'j1', label: 'Klarna', description: 'Remote' }, { id: 'j2', label: 'N26' }] },
    });
    await page.goto(selection.review_url);
    await page.getByRole('button', { name: 'Submit choice' }).click();
    await expect(page.getByRole('alert')).toContainText('select exactly 1 of the options');
    await page.getByRole('radio', { name: 'N26' }).check();
    await page.getByRole('textbox', { name: 'Your name' }).fill('Ada');
    await page.getByRole('button', { name: 'Submit choice' }).click();
    await answered(page, 'Chosen by Ada');
    expect(await result(server, selection.case_id)).toEqual({ action: 'select', data: { selected: ['j2'] } });

    // Input in two steps, Back and Next keeping what was entered.
    const input = await ask(server, {
      type: 'input', prompt: 'Onboarding',
      context: { form: { steps: [
        { title: 'You', fields: [{ key: 'full_name', label: 'Full name', type: 'text', required: true }] },
        { title: 'Work', fields: [
          { key: 'kind', label: 'Kind', type: 'select', required: true,
            options: [{ value: 'fulltime', label: 'Full-time' }, { value: 'contract', label: 'Contract' }] },
          { key: 'start', label: 'Start', type: 'date' },
          { key: 'remote', label: 'Remote', type: 'boolean' },
        ] },
      ] } },
    });
    await page.goto(input.review_url);
    await expect(page.getByText('Step 1 of 2: You')).toBeVisible();
    await page.getByRole('textbox', { name: 'Full name (required)' }).fill('Sarah Chen');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByText('Step 2 of 2: Work')).toBeVisible();
    // Closed and opened again later: the form is where it was left.
    await page.goto(input.review_url);
    await expect(page.getByText('Step 2 of 2: Work')).toBeVisible();
    await expect(page.getByText(/close this page and come back to it/)).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByRole('textbox', { name: 'Full name (required)' })).toHaveValue('Sarah Chen');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('combobox', { name: 'Kind (required)' }).selectOption('contract');
    await page.getByLabel('Start').fill('2026-12-01');
    await page.getByRole('checkbox', { name: 'Remote' }).check();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await answered(page, 'Answered');
    expect(await result(server, input.case_id)).toEqual({
      action: 'submit', data: { full_name: 'Sarah Chen', kind: 'contract', start: '2026-12-01', remote: true },
    });

    // Confirmation: the items come ticked.
    const confirmation = await ask(server, {
      type: 'confirmation', prompt: 'Send 2 mails?',
      context: { items_to_confirm: [{ id: 'm1', label: 'To Klarna' }, { id: 'm2', label: 'To N26' }] },
    });
    await page.goto(confirmation.review_url);
    await page.getByRole('checkbox', { name: 'To N26' }).uncheck();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await answered(page, 'Confirmed');
    expect(await result(server, confirmation.case_id)).toEqual({ action: 'confirm', data: { confirmed_items: ['m1'] } });

    // Escalation, with its parameters as JSON.
    const escalation = await ask(server, { type: 'escalation', prompt: 'Deploy failed', context: { error: 'probe timed out' } });
    await page.goto(escalation.review_url);
    await expect(page.getByText('probe timed out')).toBeVisible();
    await page.getByRole('textbox', { name: /Changed parameters/ }).fill('{"strategy": "canary"}');
    await page.getByRole('button', { name: 'Retry' }).click();
    await answered(page, 'Retry chosen');
    expect(await result(server, escalation.case_id)).toEqual({ action: 'retry', data: { modified_params: { strategy: 'canary' } } });

    // An agent's own approval: changes requested with feedback.
    const approval = await ask(server, { type: 'approval', prompt: 'Publish this post?', context: { title: 'Scaling' } });
    await page.goto(approval.review_url);
    await page.getByRole('textbox', { name: /Feedback/ }).fill('Warmer, please');
    await page.getByRole('button', { name: 'Request changes' }).click();
    await answered(page, 'Changes requested');
    expect(await result(server, approval.case_id)).toEqual({ action: 'edit', data: { feedback: 'Warmer, please' } });
    expect(problems).toEqual([]);
  } finally {
    await context.close();
    await server.stop();
  }
}
