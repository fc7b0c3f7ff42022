// A conversation with a remote A2A agent (a kagent-style agent on a2a-sdk,
// server/tests/a2a_agent.py): the calls it asks approval for are cards,
// one decided by hand and the rest by Approve all, and the agent's reply
// says what it was told, call by call.
import { test, expect } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { AirlockServer } from './fixtures';

const BEARER = 'agent-secret';

/** The agent, listening; its URL. */
async function startAgent(): Promise<{ url: string; child: ChildProcess }> {
  const python = resolve(__dirname, '../../.venv/bin/python');
  const script = resolve(__dirname, '../../server/tests/a2a_agent.py');
  const child = spawn(python, [script, 'released', BEARER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((ready, fail) => {
    let said = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const line = said.split('\n')[0];
      if (said.includes('\n')) ready(JSON.parse(line).url);
    });
    child.on('exit', (code) => fail(new Error(`the agent exited with ${code}`)));
  });
  return { url, child };
}

test('a remote agent is talked to in the chat, and its calls are decided on cards', async ({ page }) => {
  const agent = await startAgent();
  const server = await AirlockServer.start(
    `sources:\n  k8s:\n    a2a: ${agent.url}\n    headers:\n      Authorization: Bearer ${BEARER}\n` +
      `    require_approval: [delete_file]\n`,
  );
  try {
    await page.goto(`${server.url}/`);
    await page.getByRole('combobox', { name: 'With' }).selectOption('k8s');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page).toHaveURL(/\/c\/conv_/);
    await expect(page.getByText('With k8s, a remote agent (A2A)')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();

    await page.getByRole('textbox', { name: 'Message' }).fill('delete a.txt, b.txt and c.txt');
    await page.getByRole('button', { name: 'Send' }).click();
    const cards = page.getByRole('article', { name: 'delete_file call' });
    await expect(cards).toHaveCount(3);
    const bar = page.getByRole('region', { name: 'Pending approvals' });
    await expect(bar).toContainText('3 tool calls waiting for approval');
    await cards.nth(0).getByRole('button', { name: 'Reject', exact: true }).click();
    await cards.nth(0).getByRole('textbox', { name: 'Reason' }).fill('keep a');
    await cards.nth(0).getByRole('button', { name: 'Confirm reject' }).click();
    await expect(bar).toContainText('2 tool calls waiting for approval');
    await bar.getByRole('button', { name: 'Approve all' }).click();
    await expect(bar).toBeHidden();
    await expect(cards.nth(0)).toHaveAttribute('data-status', 'rejected');
    await expect(cards.nth(2)).toHaveAttribute('data-status', 'completed');
    await expect(page.getByRole('list', { name: 'Messages' })).toContainText(
      'deleted b.txt; deleted c.txt; kept a.txt (keep a)',
    );
  } finally {
    await server.stop();
    server.dispose();
    agent.child.kill();
  }
});
