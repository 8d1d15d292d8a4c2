import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { METRICS } from '../src/analytics/metrics.ts';
import { settingsTable } from '../src/settings-table.ts';

const page = (path: string) => readFile(new URL(`../${path}`, import.meta.url), 'utf8');

test('the README starts with the two commands a newcomer runs', async () => {
  const head = (await page('README.md')).split('\n').slice(0, 20).join('\n');
  assert.match(head, /npm install && npm start/);
  assert.match(head, /npm test/);
});

test("the configuration page's table is the settings' own (regenerate: npm run readme:settings)", async () => {
  const text = await page('docs/configuration.md');
  const between = /<!-- settings:start[^>]*-->\n([\s\S]*?)\n<!-- settings:end -->/.exec(text)?.[1];
  assert.equal(between, settingsTable());
});

test('the API guide lists exactly the statistics metric names the stats API accepts', async () => {
  const text = await page('docs/api-guide.md');
  const list = /^`name` \(required[^\n]*\n\n([\s\S]*?)\n\nRows are/m.exec(text)?.[1] ?? '';
  const named = new Set([...list.matchAll(/^- (.*(?:\n  .*)*)/gm)].flatMap((m) => [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((n) => n[1]!)));
  assert.deepEqual([...named].sort(), [...METRICS].sort());
});
