// The site's JS, WASM and CSS are named by their content and kept for good:
// after the first page, no page fetches them again. Each page loads the
// bundle with its own islands only.
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

/** The browser bundles among `loaded`: `chat` for `/pkg/airlock-chat.<hash>.wasm`. */
function bundles(loaded: Loaded[]): string[] {
  const names = loaded.map((a) => /^\/pkg\/airlock-(\w+)\.\w+\.(js|wasm)$/.exec(a.name)?.[1]);
  return [...new Set(names.filter((n): n is string => !!n))].sort();
}

test('each page loads its own islands, and a page without islands no script', async ({ page }) => {
  await page.goto('/');
  expect(bundles(await assets(page))).toEqual(['pages']);
  await newConversation(page);
  expect(bundles(await assets(page))).toEqual(['chat']);

  await page.goto('/audit');
  await page.waitForLoadState('load');
  const audit = await page.evaluate(() =>
    performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
  );
  expect(audit.filter((path) => path.startsWith('/pkg/') && !path.endsWith('.css'))).toEqual([]);
});

test('a second page takes every asset from the browser cache', async ({ page }) => {
  await page.goto('/');
  const first = await assets(page);
  expect(first.filter((a) => a.transferSize > 0).length).toBeGreaterThan(0);

  // The inbox loads the home page's bundle; a conversation seen again, its own.
  await page.goto('/approvals');
  const inbox = await assets(page);
  await newConversation(page);
  await assets(page);
  await page.goto(page.url());
  for (const visit of [inbox, await assets(page)]) {
    expect(visit.length).toBeGreaterThan(0);
    for (const asset of visit) {
      // Served from the cache: nothing crossed the network, yet a body was read.
      expect(asset.transferSize, `${asset.name} came over the network`).toBe(0);
      expect(asset.decodedBodySize, asset.name).toBeGreaterThan(0);
    }
  }
});
