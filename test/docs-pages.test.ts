import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT, allMarkdown, headingAnchors, prose, readingOrder } from './docs-markdown.ts';

const pages = readingOrder();
const everyPage = allMarkdown();

/** Every relative link of a page's prose: `[text](target)`, with the line it is on. */
function relativeLinks(text: string): { line: number; target: string }[] {
  return prose(text)
    .split('\n')
    .flatMap((l, i) => [...l.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ line: i + 1, target: m[1]! })))
    .filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target));
}

test('every relative link of every markdown page names a file that exists, and a heading of it that exists', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of everyPage) {
    for (const { line, target } of relativeLinks(page.text)) {
      checked++;
      const [file = '', anchor] = target.split('#');
      const path = file ? join(ROOT, dirname(page.path), decodeURI(file)) : join(ROOT, page.path);
      const where = `${page.path}:${line} → ${target}`;
      if (!existsSync(path)) broken.push(`${where}: no such file`);
      else if (anchor !== undefined) {
        if (!path.endsWith('.md') || statSync(path).isDirectory()) broken.push(`${where}: an anchor into what is not a page`);
        else if (!headingAnchors(readFileSync(path, 'utf8')).has(anchor)) broken.push(`${where}: no heading #${anchor} in ${relative(ROOT, path)}`);
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 50, `${checked} links checked`);
});

test('the README links every page of docs/', () => {
  const readme = pages[0]!;
  const linked = new Set(relativeLinks(readme.text).map((l) => l.target.split('#')[0]));
  const unlinked = pages.slice(1).filter((p) => !linked.has(p.path)).map((p) => p.path);
  assert.deepEqual(unlinked, []);
  assert.ok(pages.length >= 12, `${pages.length} pages`);
});

test('the README is at most 250 lines and names the two products whose APIs the server answers', () => {
  const readme = pages[0]!.text;
  assert.ok(readme.split('\n').length <= 250, `${readme.split('\n').length} lines`);
  assert.match(readme, /GemPixel's Premium URL Shortener API v3/);
  assert.match(readme, /Lunatio's phpAnalytics API/);
});

// What a page says is what is: how it came to be belongs in the history of the repository.
const HISTORY = [
  /\bissue[ -]?#?\d+/i,
  /\bthe issue's\b/i,
  /\bhardening\b/i,
  /\bthis session\b/i,
  /\(before:/i,
  /\bwe changed\b/i,
  /\bthe previous code\b/i,
  /\bas before\b/i,
  /\bno longer\b/i,
  /\b[0-9a-f]{7,40}\b(?=.*\bcommit\b)/i,
];

test('no page tells the project history ("issue 14", "before the hardening", "(before: ...)")', () => {
  const found: string[] = [];
  for (const page of everyPage) {
    page.text.split('\n').forEach((l, i) => {
      for (const re of HISTORY) if (re.test(l)) found.push(`${page.path}:${i + 1}: ${l.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

test('no page points into the workspace outside the repository (shared/spec)', () => {
  const found = everyPage.filter((p) => /shared\/spec|\/work\//.test(p.text)).map((p) => p.path);
  assert.deepEqual(found, []);
});
