// Signing in with OpenID Connect in a real browser, against a real
// provider on loopback (`oidc-provider`, through its own login pages): the
// sign-in page offers the provider's button, the provider sends the person
// back to the page they wanted, signed in, and they sign out again.
import { test, expect, AirlockServer } from './fixtures';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

/** A free port on loopback, for Airlock, so the provider knows its callback first. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((listening) => probe.listen(0, '127.0.0.1', listening));
  const { port } = probe.address() as { port: number };
  await new Promise((closed) => probe.close(closed));
  return port;
}

/** Starts the provider for `redirect`; its issuer URL once it listens. */
async function startProvider(redirect: string): Promise<{ child: ChildProcess; issuer: string }> {
  const child = spawn('node', [resolve(__dirname, '../support/oidc-provider.mjs'), redirect], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const issuer = await new Promise<string>((found, fail) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /issuer (\S+)/.exec(seen);
      if (m) found(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`the provider exited with ${code}`)));
  });
  return { child, issuer };
}

test('a person signs in with the provider and lands where they were going', async ({ page }) => {
  const port = await freePort();
  const provider = await startProvider(`http://127.0.0.1:${port}/auth/oidc/callback`);
  const config = `auth:\n  passwords: true\n  oidc:\n    issuer: ${provider.issuer}\n    client_id: airlock\n    label: Sign in with Example\n    access: approver\n`;
  const server = await AirlockServer.start(config, {
    port,
    env: { AIRLOCK_OIDC_CLIENT_SECRET: 'airlock-test-secret' },
  });
  try {
    await page.goto(`${server.url}/approvals`);
    await expect(page).toHaveURL(/\/sign-in\?next=\/approvals$/);
    await page.getByRole('link', { name: 'Sign in with Example' }).click();

    // The provider's own pages: any name signs in there.
    await page.locator('input[name="login"]').fill('dana');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();

    await expect(page).toHaveURL(`${server.url}/approvals`);
    await expect(page.getByRole('banner')).toContainText('Dana Sso');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
  } finally {
    await server.stop();
    server.dispose();
    provider.child.kill();
  }
});
