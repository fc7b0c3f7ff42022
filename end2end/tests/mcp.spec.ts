// An MCP client (the official TypeScript SDK's) connected to Airlock's /mcp:
// its write waits in the inbox, under a conversation named after the client,
// and approving it in the browser completes the client's request.
import { test, expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AirlockServer } from './fixtures';

const KEY = 'e2e-mcp-key';

test('an MCP client waits for the inbox, and an approval there completes its call', async ({ page }) => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-mcp-'));
  const files = resolve(__dirname, '../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
  const sha = createHash('sha256').update(KEY).digest('hex');
  const server = await AirlockServer.start(
    `gateway:\n  api_keys:\n    - name: desktop\n      sha256: ${sha}\n` +
      `sources:\n  files:\n    command: node\n    args: [${JSON.stringify(files)}, ${JSON.stringify(root)}]\n` +
      `    require_approval: [write_file]\n`,
  );
  const client = new Client({ name: 'Claude Desktop', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${KEY}` } },
      }),
    );
    // The filesystem server starts next to Airlock: its tools come when it is up.
    await expect
      .poll(async () => (await client.listTools()).tools.map((t) => t.name), { timeout: 20_000 })
      .toContain('write_file');

    const target = join(root, 'plan.txt');
    const answer = client.callTool({ name: 'write_file', arguments: { path: target, content: 'ship it' } }, undefined, {
      timeout: 60_000,
    });

    await page.goto(`${server.url}/approvals`);
    const list = page.getByRole('list', { name: 'Waiting approvals' });
    const conversation = list.getByRole('link', { name: /^Claude Desktop · / });
    await expect(conversation).toBeVisible();
    const href = await conversation.getAttribute('href');
    const card = page.getByRole('article', { name: 'write_file call' });
    await expect(card).toHaveAttribute('data-status', 'pending_approval');
    expect(existsSync(target)).toBe(false);

    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    const result = await answer;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('ship it');
    // The client's conversation shows the call as it ran.
    await page.goto(`${server.url}${href}`);
    await expect(page.getByRole('article', { name: 'write_file call' })).toHaveAttribute('data-status', 'completed');
    // Nobody writes in an agent's session: no composer, a word on why.
    await expect(page.getByText('An agent asks here through Airlock')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    // In the list, the session is marked as an agent's and counts no messages.
    await page.goto(`${server.url}/`);
    const listed = page.getByRole('list', { name: 'Conversations' }).getByRole('link', { name: /^Claude Desktop · / });
    await expect(listed).toContainText('Agent session');
    await expect(listed).not.toContainText('messages');
  } finally {
    await client.close();
    await server.stop();
  }
});
