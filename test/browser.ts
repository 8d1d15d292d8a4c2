import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';

/** Debian's Chromium, the only browser the tests drive (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here. */
export const chromiumPresent = (): boolean => existsSync(CHROMIUM);

/** The two screens every page is looked at on: a laptop and a phone. */
export const SCREENS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** One of SCREENS. */
export type Screen = (typeof SCREENS)[number];

const SHOTS = fileURLToPath(new URL('../artifacts/screenshots/', import.meta.url));

/** A fresh headless Chromium (own profile, no network of its own) whose pages can reach only 127.0.0.1. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Pixels and framed targets must not reach the internet: a test is about our pages.
  context.setDefaultTimeout(5000);
  // A navigation waits for a whole page on a machine whose two cores run the rest of the suite too
  // (the API reference page took over 5 s to its load event on CI); what a page shows is still held to 5 s.
  context.setDefaultNavigationTimeout(30_000);
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  await mkdir(SHOTS, { recursive: true });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A page of the browser at one screen size. */
export async function openAt(context: BrowserContext, screen: Screen): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width: screen.width, height: screen.height });
  return page;
}

/** Saves a screenshot as artifacts/screenshots/<name>-<screen>.png: the whole page, or the first screenful of a long one (the docs). */
export async function screenshot(page: Page, name: string, screen: Screen, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-${screen.name}.png`), fullPage, timeout: 20_000 });
}

/** Asserts that nothing sticks out sideways: the page never scrolls horizontally. */
export async function assertNoHorizontalOverflow(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  assert.ok(scrollWidth <= innerWidth, `${what}: ${scrollWidth}px wide in a ${innerWidth}px window`);
}

/** Asserts that a card (`main` or `selector`) keeps at least `margin` px of the window on its left and right. */
export async function assertCardMargin(page: Page, what: string, selector = 'main', margin = 8): Promise<void> {
  const box = await page.locator(selector).first().boundingBox();
  assert.ok(box, `${what}: a ${selector}`);
  const width = await page.evaluate(() => window.innerWidth);
  assert.ok(box.x >= margin && width - (box.x + box.width) >= margin, `${what}: ${selector} from ${box.x} to ${box.x + box.width} in ${width}px`);
}

/** The smallest rendered font size (px, after the SVG's scaling) of the visible text of the page's charts. */
export async function smallestChartText(page: Page): Promise<{ px: number; texts: number }> {
  return page.evaluate(() => {
    let px = Infinity;
    let texts = 0;
    for (const t of document.querySelectorAll<SVGTextElement>('svg text')) {
      const box = t.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM()?.a ?? 1);
      px = Math.min(px, size);
      texts++;
    }
    return { px, texts };
  });
}

/** Serves a plain "target site" on 127.0.0.1 for links to go to and frames to show. */
export async function targetSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Target site</title><h1>Target site</h1><p>You arrived at ${req.url?.replace(/[<>&"]/g, '')}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
