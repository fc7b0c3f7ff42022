import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser. The flags keep it from
// reaching for the network, which this machine does not have.
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: './tests',
  // Every test starts its own server with a fresh data directory (see
  // tests/fixtures.ts), so tests are independent and may run in parallel.
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [['list']],
  use: {
    launchOptions: {
      executablePath: process.env.AIRLOCK_CHROMIUM ?? '/usr/bin/chromium',
      args: chromiumArgs,
    },
    trace: 'retain-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: /.*\.nojs\.spec\.ts/,
    },
    {
      // Pages that must work before hydration, tested with JavaScript off.
      name: 'no-javascript',
      testMatch: /.*\.nojs\.spec\.ts/,
      use: { javaScriptEnabled: false },
    },
  ],
});
