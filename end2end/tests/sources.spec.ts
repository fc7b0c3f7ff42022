// The Sources page follows a real MCP server (server-everything over stdio)
// as its process is killed, fails to start again, and comes back; and a
// call's long error wraps inside its card instead of widening the page.
import { test, expect, AirlockServer } from './fixtures';
import { newConversation, send } from './chat';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const everything = resolve(__dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

test('the Sources page shows a source go down and come back', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sources-'));
  const flag = join(dir, 'broken');
  const pidFile = join(dir, 'pid');
  // The server's process writes its pid; while the flag file exists it
  // refuses to start, saying why on stderr, as a misconfigured server does.
  const script = `test -e "${flag}" && { echo "FATAL: EVERYTHING_TOKEN is not set" >&2; exit 1; }; echo $$ > "${pidFile}"; exec node "${everything}" stdio`;
  const server = await AirlockServer.start(`
sources:
  everything:
    command: sh
    args: ["-c", ${JSON.stringify(script)}]
    tool_blacklist: ["trigger-*"]
`);
  try {
    for (const width of [360, 1100]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${server.url}/sources`);
      const source = page.getByRole('listitem', { name: 'everything' });
      await expect(source).toContainText(/Up since/);
      await expect(source).toContainText('stdio');
      await expect(source.getByRole('list', { name: 'Offered' })).toContainText('echo');
      await expect(source.getByRole('list', { name: 'Hidden by policy' })).toContainText('trigger-long-running-operation');
      const demo = page.getByRole('listitem', { name: 'demo' });
      await expect(demo).toContainText('built in');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }

    // Killed, and unable to start again: the page says so as it happens.
    writeFileSync(flag, '');
    execFileSync('kill', ['-9', readFileSync(pidFile, 'utf8').trim()]);
    const source = page.getByRole('listitem', { name: 'everything' });
    await expect(source).toContainText(/Down since/);
    await expect(source).toContainText('Last error: the process exited with status 1: FATAL: EVERYTHING_TOKEN is not set');
    await expect(source.getByText('None while it is not up.')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('sources-down.png'), fullPage: true });

    // Mended: it comes back by itself.
    rmSync(flag);
    await expect(source).toContainText(/Up since/, { timeout: 20_000 });
    await expect(source.getByRole('list', { name: 'Offered' })).toContainText('echo');
  } finally {
    await server.stop();
    server.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a call's long error wraps inside its card", async ({ page }) => {
  const name = `${'x'.repeat(180)}.txt`;
  for (const width of [360, 1100]) {
    await page.setViewportSize({ width, height: 800 });
    await newConversation(page);
    await send(page, `read ${name}`);
    const card = page.getByRole('article', { name: 'read_file call' });
    const error = card.getByRole('alert');
    await expect(error).toContainText(name);
    const [errorBox, cardBox] = [await error.boundingBox(), await card.boundingBox()];
    expect(errorBox!.x + errorBox!.width).toBeLessThanOrEqual(cardBox!.x + cardBox!.width + 1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
});
