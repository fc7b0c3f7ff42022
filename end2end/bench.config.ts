import { defineConfig } from '@playwright/test';
import base from './playwright.config';

// `make bench`'s browser measurements: one at a time, so a run measures the
// page rather than the machine's other work.
export default defineConfig({
  ...base,
  testDir: './bench',
  fullyParallel: false,
  workers: 1,
  timeout: 300_000,
  projects: [{ name: 'chromium' }],
});
