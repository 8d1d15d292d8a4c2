/**
 * Imports of other shorteners' exports through POST /api/import (a background job) and the
 * import-links command, on both backends: each product's sample file keeps its aliases, titles,
 * dates and click totals; a second run creates nothing; a dry run stores nothing; bad rows are
 * reported and the others imported; the job's report is the command's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMPORT_LINKS_COMMAND } from '../src/cli/import-links.ts';
import type { RowResult } from '../src/imports/outcome.ts';
import { subjectOf } from '../src/links/stats.ts';
import { allOf, eventually, ownedBy, testApp } from './helpers.ts';

const FIXTURES = new URL('./fixtures/imports/', import.meta.url);
const sample = (name: string) => readFile(new URL(name, FIXTURES), 'utf8');
type App = Awaited<ReturnType<typeof testApp>>;
// any: job bodies are read field by field with assertions
type Job = any;
type StoredLink = { id: number; alias: string; url: string; title: string; date: string };

/** Posts a file as an import of `key`'s user and waits for its job to end; the job with its whole report. */
async function imported(t: App, key: string, text: string, query: string): Promise<Job> {
  const posted = await t.call('POST', `/api/import?${query}`, { key, raw: text, headers: { 'content-type': 'text/csv' } });
  assert.equal(posted.status, 202, JSON.stringify(posted.body));
  assert.equal(posted.headers.get('location'), `http://sho.rt/api/import/${posted.body.id}`);
  return finished(t, key, posted.body.id);
}

async function finished(t: App, key: string, id: number): Promise<Job> {
  let job: Job;
  const ended = await eventually(async () => {
    job = (await t.call('GET', `/api/import/${id}?limit=1000`, { key })).body.data;
    return job.state === 'finished' || job.state === 'failed';
  }, 20_000);
  assert.ok(ended, `job ${id} did not end: ${JSON.stringify(job)}`);
  return job;
}

/** Every link and statistics day of the store, as one string: what an import must leave alone to have stored nothing. */
const linksAndClicks = async (t: App) => JSON.stringify([await allOf(t.store, 'links'), await allOf(t.store, 'stats')]);

interface Expected {
  alias: string | null;
  url: string;
  title: string;
  date: string;
  clicks: number;
}

const NOW_DATE = '2026-11-21 10:00:00';

const SAMPLES: { format: string; file: string; links: Expected[]; refused?: Record<number, string> }[] = [
  {
    format: 'bitly',
    file: 'bitly.csv',
    links: [
      { alias: 'spring-sale', url: 'https://shop.example.com/spring?utm_source=bitly&utm_medium=social', title: 'Spring sale | Example Store', date: '2024-03-01 09:15:00', clicks: 1284 },
      { alias: '4kLmNoP', url: 'https://docs.example.com/', title: 'Docs home', date: '2024-04-12 16:40:12', clicks: 57 },
      { alias: '3QrStUv', url: 'https://example.com/jobs', title: 'Careers, 2024', date: '2023-11-30 08:00:00', clicks: 0 },
    ],
  },
  {
    format: 'yourls',
    file: 'yourls.csv',
    links: [
      { alias: 'example', url: 'https://example.com/', title: 'Example Domain', date: '2023-06-01 12:00:00', clicks: 342 },
      { alias: 'blog', url: 'https://blog.example.org/posts/hello-world', title: 'Hello world – Example Blog', date: '2023-06-03 08:30:15', clicks: 17 },
    ],
    refused: { 3: 'Custom alias must be at least 3 characters.' },
  },
  {
    format: 'shlink',
    file: 'shlink.csv',
    links: [
      { alias: 'shlink-docs', url: 'https://shlink.io/documentation/', title: 'Shlink docs', date: '2024-01-10 09:20:30', clicks: 45 },
      { alias: 'Xy12a', url: 'https://example.com/landing?ref=qr', title: '', date: '2024-02-02 00:00:00', clicks: 3 },
    ],
  },
  {
    format: 'kutt',
    file: 'kutt.json',
    links: [
      { alias: 'github', url: 'https://github.com/example', title: 'Our code on GitHub', date: '2024-05-20 14:03:11', clicks: 88 },
      { alias: 'Qe7Lp', url: 'https://example.org/newsletter/june', title: '', date: '2024-06-01 07:45:00', clicks: 0 },
    ],
  },
  {
    format: 'rebrandly',
    file: 'rebrandly.csv',
    links: [
      { alias: 'burn10M', url: 'https://www.wired.com/2016/07/ferrari-laferrari-spider-convertible-photos-specs/', title: 'The LaFerrari Supercar Convertible | WIRED', date: '2016-07-13 10:54:12', clicks: 42 },
      { alias: 'pricing-2024', url: 'https://example.com/pricing', title: 'Pricing', date: '2024-01-05 12:00:00', clicks: 9 },
    ],
  },
  {
    format: 'csv',
    file: 'generic.csv',
    links: [
      { alias: 'pricing', url: 'https://example.com/pricing', title: 'Pricing', date: '2024-02-29 00:00:00', clicks: 120 },
      { alias: null, url: 'https://example.com/about', title: 'About us', date: '2024-03-01 09:00:00', clicks: 0 },
      // No date in the file: the import's day, for the link and its clicks.
      { alias: 'contact-us', url: 'https://example.com/contact', title: 'Contact', date: NOW_DATE, clicks: 7 },
    ],
  },
];

for (const s of SAMPLES) {
  test(`${s.format}: the sample export becomes the user's links with their aliases, titles, dates and clicks; a second run creates nothing`, async () => {
    const t = await testApp({ rateLimit: 0 });
    const user = await t.makeUser();
    const job = await imported(t, user.key, await sample(s.file), `format=${s.format}`);
    const rows = Object.keys(s.refused ?? {}).length + s.links.length;
    assert.deepEqual([job.state, job.progress, job.created, job.skipped, job.refused], ['finished', { done: rows, total: rows }, s.links.length, 0, rows - s.links.length]);
    for (const [row, message] of Object.entries(s.refused ?? {})) assert.deepEqual([job.report.rows[Number(row) - 1].outcome, job.report.rows[Number(row) - 1].message], ['refused', message]);
    const stored = await ownedBy<StoredLink>(t.store, 'links', user.id);
    assert.equal(stored.length, s.links.length);
    for (const [i, want] of s.links.entries()) {
      const link = stored[i]!;
      assert.deepEqual([link.url, link.title, link.date], [want.url, want.title, want.date], `${s.format} link ${i + 1}`);
      if (want.alias === null) assert.match(String(link.alias), /^[A-Za-z0-9]{6}$/);
      else assert.equal(link.alias, want.alias);
      const created = job.report.rows.find((r: RowResult) => r.id === link.id);
      assert.equal(created.outcome, 'created');
      // The click total is that day's clicks, nothing else (no countries, referrers or unique clicks are made up).
      const days = await t.counters.days(subjectOf('link', link.id));
      assert.deepEqual(days.map((d) => [d.day, { ...d.counts }]), want.clicks ? [[want.date.slice(0, 10), { clicks: want.clicks }]] : []);
      const api = (await t.call('GET', `/api/url/${link.id}`, { key: user.key })).body;
      assert.deepEqual([api.details.title, api.details.date, api.data.clicks, api.data.topCountries], [want.title, want.date, want.clicks, {}]);
    }
    const before = await linksAndClicks(t);
    const again = await imported(t, user.key, await sample(s.file), `format=${s.format}`);
    assert.deepEqual([again.created, again.skipped, again.refused], [0, s.links.length, rows - s.links.length]);
    for (const r of again.report.rows.filter((r: RowResult) => r.outcome === 'skipped')) assert.equal(r.message, 'already imported');
    assert.equal(await linksAndClicks(t), before, 'the second run stored no link and no click');
  });
}

test('a dry run checks every row as a real one would and stores no link and no click', async () => {
  const t = await testApp({ rateLimit: 0 });
  const user = await t.makeUser();
  await t.call('POST', '/api/url/add', { key: user.key, body: { url: 'https://example.com/other', custom: 'contact-us' } });
  const before = await linksAndClicks(t);
  const file = `${await sample('generic.csv')}https://example.com/pricing,pricing,Pricing again,,,\nhttps://example.com/about,,,,,\n`;
  const job = await imported(t, user.key, file, 'format=csv&dry_run=true');
  assert.equal(job.dry_run, true);
  assert.deepEqual(
    job.report.rows.map((r: RowResult) => [r.row, r.outcome, r.id, r.message]),
    [
      [1, 'created', undefined, undefined],
      [2, 'created', undefined, undefined],
      [3, 'skipped', 1, 'alias taken by your link 1 to https://example.com/other'],
      [4, 'skipped', undefined, 'already imported (row 1 of this file has this alias and URL)'],
      [5, 'skipped', undefined, 'already imported (row 2 of this file has this URL)'],
    ],
  );
  assert.equal(await linksAndClicks(t), before);
  // The real run then does what the dry run said.
  const real = await imported(t, user.key, file, 'format=csv');
  assert.deepEqual(real.report.rows.map((r: RowResult) => [r.outcome, r.message?.replace(/ \(.*\)$/, '')]), job.report.rows.map((r: RowResult) => [r.outcome, r.message?.replace(/ \(.*\)$/, '')]));
});

const MIXED = [
  'url,alias,title,created,clicks',
  'https://ok.example/1,first-ok,Fine,2025-01-01,3',
  ',no-url,,,',
  'javascript:alert(1),js-link,,,',
  'https://ok.example/2,api,,,',
  'https://ok.example/3,bad alias!,,,',
  'https://ok.example/4,theirs,,,',
  'https://ok.example/5,,,2999-01-01,',
  'https://ok.example/6,,,yesterday,',
  'https://ok.example/7,,,,lots',
  `https://ok.example/8,long-title,${'T'.repeat(250)},,`,
  'https://ok.example/9,last-ok,,2025-02-03T04:05:06+02:00,1',
].join('\n');

test('bad rows are reported with the reason, the others imported; another user\'s alias is a skip that tells nothing of that user', async () => {
  const t = await testApp({ rateLimit: 0 });
  const other = await t.makeUser();
  const theirs = await t.call('POST', '/api/url/add', { key: other.key, body: { url: 'https://private.example/secret', custom: 'theirs' } });
  const user = await t.makeUser();
  const job = await imported(t, user.key, MIXED, 'format=csv');
  assert.deepEqual(
    job.report.rows.map((r: RowResult) => [r.row, r.outcome, r.message ?? null]),
    [
      [1, 'created', null],
      [2, 'refused', 'Missing required parameter: url'],
      [3, 'refused', 'Please enter a valid URL: it must start with http:// or https://.'],
      [4, 'refused', 'That alias is reserved. Please choose another one.'],
      [5, 'refused', 'Custom alias may only contain letters, digits, dashes and underscores.'],
      [6, 'skipped', "alias taken by another user's link"],
      [7, 'refused', 'The created date "2999-01-01" is in the future.'],
      [8, 'refused', 'Invalid created date "yesterday": use ISO 8601 (2024-05-01T10:00:00Z), YYYY-MM-DD HH:MM:SS or Unix time.'],
      [9, 'refused', 'Invalid clicks "lots": a whole number from 0 is needed.'],
      [10, 'created', null],
      [11, 'created', null],
    ],
  );
  assert.equal(job.report.rows[5].id, undefined, "another user's link id is not told");
  assert.ok(!JSON.stringify(job).includes('private.example'));
  const stored = await ownedBy<StoredLink>(t.store, 'links', user.id);
  assert.deepEqual(stored.map((l) => [l.alias, l.url, l.date]), [
    ['first-ok', 'https://ok.example/1', '2025-01-01 00:00:00'],
    ['long-title', 'https://ok.example/8', NOW_DATE],
    ['last-ok', 'https://ok.example/9', '2025-02-03 02:05:06'],
  ]);
  assert.equal(stored[1]!.title, `${'T'.repeat(199)}…`, 'a title longer than the API takes is cut, not refused');
  assert.equal((await ownedBy(t.store, 'links', other.id))[0]!.id, theirs.body.id);
  assert.deepEqual((await ownedBy(t.store, 'stats', user.id)).map((d) => [d.subject, d.day]).sort(), [[`link:${stored[0]!.id}`, '2025-01-01'], [`link:${stored[2]!.id}`, '2025-02-03']]);
});

test("the job's report is the one import-links gives for the same file", async () => {
  const api = await testApp({ rateLimit: 0 });
  const apiUser = await api.makeUser('reporter');
  const cli = await testApp({ rateLimit: 0 });
  await cli.makeUser('reporter');
  const job = await imported(api, apiUser.key, MIXED, 'format=csv');
  const dir = await mkdtemp(join(tmpdir(), 'import-links-'));
  const path = join(dir, 'mixed.csv');
  await writeFile(path, MIXED);
  const lines: string[] = [];
  try {
    await IMPORT_LINKS_COMMAND.run(cli.store, { format: 'csv', user: 'user_reporter', json: true }, (line) => lines.push(line), {
      positionals: [path],
      write: () => {},
      stderr: { write: () => true },
      config: cli.config,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const rows = lines.map((l) => JSON.parse(l) as RowResult);
  // The command runs on the wall clock: a link without a date in the file gets today's.
  assert.deepEqual(rows, job.report.rows);
});
