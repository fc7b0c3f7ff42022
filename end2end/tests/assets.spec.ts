// The site's JS, WASM and CSS are named by their content and kept for good:
// after the first page, no page fetches them again.
import { test, expect } from './fixtures';
import type { Page } from '@playwright/test';
import { newConversation } from './chat';

type Loaded = { name: string; transferSize: number; decodedBodySize: number };

/** The page's /pkg/ resources once its WASM has arrived, as Resource Timing saw them. */
async function assets(page: Page): Promise<Loaded[]> {
  await page.waitForFunction(() =>
    performance.getEntriesByType('resource').some((e) => e.name.endsWith('.wasm') && (e as PerformanceResourceTiming).responseEnd > 0),
  );
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => e as PerformanceResourceTiming)
      .filter((e) => new URL(e.name).pathname.startsWith('/pkg/'))
      .map((e) => ({ name: new URL(e.name).pathname, transferSize: e.transferSize, decodedBodySize: e.decodedBodySize })),
  );
}

test('a second page takes every asset from the browser cache', async ({ page }) => {
  await page.goto('/');
  const first = await assets(page);
  const names = first.map((a) => a.name);
  expect(names.some((n) => /^\/pkg\/airlock\.[\w-]+\.wasm$/.test(n)), names.join(', ')).toBe(true);
  expect(names.some((n) => /^\/pkg\/airlock\.[\w-]+\.js$/.test(n)), names.join(', ')).toBe(true);
  expect(first.filter((a) => a.transferSize > 0).length).toBeGreaterThan(0);

  // A conversation, then the inbox: other pages, the same bundle.
  await newConversation(page);
  for (const visit of [await assets(page), await page.goto('/approvals').then(() => assets(page))]) {
    expect(visit.length).toBeGreaterThan(0);
    for (const asset of visit) {
      // Served from the cache: nothing crossed the network, yet a body was read.
      expect(asset.transferSize, `${asset.name} came over the network`).toBe(0);
      expect(asset.decodedBodySize, asset.name).toBeGreaterThan(0);
    }
  }
});
