import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import type { BrowserContext, Download, Locator, Page } from 'playwright-core';

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

/** How long a navigation (a whole page, a download) may take. */
const NAVIGATION_TIMEOUT = 30_000;

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
  context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT);
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

/**
 * Clicks a download link and waits for its file. The server makes the file on request (a PNG drawn on
 * a render thread, a CSV or zip export), so the wait is a navigation's (30 s), not the 5 s a page's
 * text gets: on a machine whose two cores run the rest of the suite, a cold render thread took over 5 s.
 */
export async function download(page: Page, link: Locator): Promise<Download> {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: NAVIGATION_TIMEOUT }), link.click()]);
  return file;
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

/** A text of the page whose colour on its background is below WCAG AA. */
export interface ContrastMiss {
  text: string;
  ratio: number;
  need: number;
  fg: string;
  bg: string;
}

/**
 * WCAG AA contrast of every visible text of the page (text nodes, the values and placeholders of
 * text boxes and selects): its colour against its effective background, the first opaque background
 * up its ancestors with the translucent ones between composited over it (the canvas's when none is
 * opaque). 4.5:1 for normal text, 3:1 for large text (24px, or 18.66px bold). Hidden text (display,
 * visibility, opacity, clipped screen-reader text, the skip link off screen) and disabled controls are exempt.
 */
export async function contrastMisses(page: Page): Promise<{ checked: number; misses: ContrastMiss[] }> {
  // Plain JavaScript, sent as text: the TypeScript loader would add helpers (esbuild's __name) that the page lacks.
  return page.evaluate(CONTRAST_SCRIPT) as Promise<{ checked: number; misses: ContrastMiss[] }>;
}

const CONTRAST_SCRIPT = `(() => {
  const parse = (css) => {
    const m = /^rgba?\\(([^)]*)\\)$/.exec(css.trim());
    if (!m) throw new Error('contrast: a colour not in rgb(): ' + css);
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
  };
  const channel = (v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
  // The canvas under every background: Chromium's dark one when the page takes the dark scheme.
  const dark = matchMedia('(prefers-color-scheme: dark)').matches && /dark/.test(getComputedStyle(document.documentElement).colorScheme);
  const canvas = dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
  const background = (el) => {
    const layers = [];
    for (let at = el; at; at = at.parentElement) {
      const bg = parse(getComputedStyle(at).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let under = canvas;
    for (const layer of layers.reverse()) under = over(layer, under);
    return under;
  };
  const hidden = (el) => {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return true;
    if (el.closest(':disabled')) return true;
    for (let at = el; at; at = at.parentElement) {
      const s = getComputedStyle(at);
      if (s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)') return true;
    }
    return false;
  };
  const onScreen = (rects) => [...rects].some((r) => r.width > 1 && r.height > 1 && r.right > 0 && r.bottom > 0);
  const rgb = (c) => 'rgb(' + c.slice(0, 3).map(Math.round).join(',') + ')';
  const misses = new Map();
  let checked = 0;
  const check = (el, text, colour) => {
    const s = getComputedStyle(el);
    const bg = background(el);
    const fg = over(parse(colour), bg);
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const px = parseFloat(s.fontSize);
    const need = px >= 24 || (px >= 18.66 && Number(s.fontWeight) >= 700) ? 3 : 4.5;
    checked++;
    const tag = el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    if (ratio < need) misses.set(text + rgb(fg) + rgb(bg), { text: '<' + tag + '> ' + text.slice(0, 40), ratio: Math.round(ratio * 100) / 100, need, fg: rgb(fg), bg: rgb(bg) });
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.textContent || '').trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('script,style,noscript,select,textarea,svg') || hidden(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (!onScreen(range.getClientRects())) continue;
    check(el, text, getComputedStyle(el).color);
  }
  for (const el of document.querySelectorAll('input,select,textarea')) {
    if (el instanceof HTMLInputElement && !/^(text|search|email|url|password|number|tel|datetime-local|date|time)$/.test(el.type)) continue;
    if (hidden(el) || !onScreen([el.getBoundingClientRect()])) continue;
    if (el instanceof HTMLSelectElement) check(el, (el.selectedOptions[0] && el.selectedOptions[0].textContent.trim()) || '(select)', getComputedStyle(el).color);
    else if (el.value !== '') check(el, el.value, getComputedStyle(el).color);
    else if (el.placeholder) check(el, 'placeholder ' + el.placeholder, getComputedStyle(el, '::placeholder').color);
  }
  return { checked, misses: [...misses.values()] };
})()`;

/** The relative luminance (0 black to 1 white) of the page's body background. */
export async function bodyLuminance(page: Page): Promise<number> {
  const css = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const p = /^rgba?\(([^)]*)\)$/.exec(css)?.[1]?.split(/[\s,/]+/).map(Number);
  assert.ok(p && p.length >= 3, `a body background in rgb(): ${css}`);
  const ch = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * ch(p[0]!) + 0.7152 * ch(p[1]!) + 0.0722 * ch(p[2]!);
}

/**
 * Asserts WCAG AA contrast of the page's visible text in the light and the dark scheme, that the
 * light one has a light background and the dark one a dark background, and saves the dark scheme's
 * screenshot as `<name>-dark-<screen>.png` when a name is given. The page is left in the light scheme.
 */
export async function assertReadableLightAndDark(page: Page, what: string, screen: Screen, name?: string): Promise<void> {
  try {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const lum = await bodyLuminance(page);
      if (scheme === 'light') assert.ok(lum > 0.8, `${what}, light: a light background (luminance ${lum.toFixed(3)})`);
      else assert.ok(lum < 0.05, `${what}, dark: a dark background (luminance ${lum.toFixed(3)})`);
      const { checked, misses } = await contrastMisses(page);
      assert.ok(checked >= 5, `${what}, ${scheme}: ${checked} texts checked`);
      assert.deepEqual(misses, [], `${what}, ${scheme}: text below WCAG AA contrast`);
      if (scheme === 'dark' && name) await screenshot(page, `${name}-dark`, screen);
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

/** What shows that the focused element has the focus: its outline or box shadow (null: nothing does, or nothing is focused). */
export async function focusRing(page: Page): Promise<{ element: string; ring: string | null }> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { element: 'nothing', ring: null };
    const s = getComputedStyle(el);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 ? `outline ${s.outlineWidth} ${s.outlineStyle} ${s.outlineColor}` : null;
    const shadow = s.boxShadow !== 'none' ? `box-shadow ${s.boxShadow}` : null;
    const name = el.getAttribute('name') ?? el.getAttribute('aria-label') ?? (el.textContent ?? '').trim().slice(0, 30);
    return { element: `<${el.tagName.toLowerCase()}> ${name}`, ring: outline ?? shadow };
  });
}

/** Presses Tab and asserts that the element it reaches shows its focus; returns what it reached. */
export async function tabTo(page: Page, what: string): Promise<string> {
  await page.keyboard.press('Tab');
  const { element, ring } = await focusRing(page);
  assert.ok(ring, `${what}: the focused ${element} shows its focus (outline or box shadow)`);
  return element;
}
