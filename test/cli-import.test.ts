/**
 * Imports and whole-store moves inside the process, on both backends: what `import --email` does
 * with a file's records, and the storage guarantees of `export --all` (one snapshot) and
 * `import --all` (an empty store, checked in its own transaction). The CLI around them: cli-data, cli-move.
 */
import { allOf, eventually, ownedBy, testApp } from './helpers.ts';
import { bundledCountryReader } from '../src/geo/bundled-country.ts';
import { Geolocator } from '../src/geo/geolocator.ts';
import { readerOf } from '../src/geo/mmdb.ts';
import { buildMmdb, cityRecord } from './mmdb-writer.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importInto, importOrder } from '../src/cli/import.ts';
import { checkAllExport, importAll } from '../src/cli/import-all.ts';
import { runExportAll } from '../src/cli/move-data.ts';
import { NO_PROGRESS, progressOn } from '../src/cli/progress.ts';
import { prepareFixtures } from '../src/fixtures/prepare.ts';
import { FixtureError } from '../src/fixtures/read.ts';
import { seedFixtures } from '../src/fixtures/seed.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { RESOURCES, collectionsOf } from '../src/resources/table.ts';
import { openTestStore, waitsOnLock } from './backend.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');

test('importInto: a link identical to one the target has is imported beside it (a plain index is no clash), once, with its alias', async () => {
  const store = await openTestStore();
  await seedFixtures(store, { users: [{ id: 1, email: 't@example.com' }], links: [{ id: 1, userId: 1, alias: 'mine', url: 'https://same.example/' }] }, { resources: RESOURCES, now: NOW });
  const file = await prepareFixtures({ links: [{ id: 5, userId: 9, alias: 'theirs', url: 'https://same.example/' }] }, RESOURCES, NOW);
  // Before, the plain `same` index counted as a clash: the alias was renamed for ever (the process hung).
  const report = await importInto(store, file, (await store.get<UserRecord>('users', 1))!, RESOURCES);
  assert.deepEqual([report.imported, report.notes], [{ links: 1 }, []]);
  assert.deepEqual((await ownedBy(store, 'links', 1)).map((l) => l.alias), ['mine', 'theirs']);
});

test("importInto: a website of a domain another user tracks is imported with its statistics, receiving no events; the other keeps them", async () => {
  const store = await openTestStore();
  await seedFixtures(store, { users: [{ id: 1, email: 'a@example.com' }, { id: 2, email: 'b@example.com' }], websites: [{ id: 1, userId: 1, domain: 'shared.example' }] }, { resources: RESOURCES, now: NOW });
  const file = await prepareFixtures(
    {
      websites: [{ id: 3, userId: 9, domain: 'shared.example', receives: true, verified_at: '2025-12-01T00:00:00.000000Z' }, { id: 4, userId: 9, domain: 'fresh.example', verified_at: '2025-12-01T00:00:00.000000Z' }],
      stats: [{ id: 1, userId: 9, subject: 'website:3', day: '2026-01-01', counts: { pageviews: 9 } }],
    },
    RESOURCES,
    NOW,
  );
  const report = await importInto(store, file, (await store.get<UserRecord>('users', 2))!, RESOURCES);
  assert.deepEqual(report.imported, { websites: 2, stats: 1 });
  assert.match(report.notes.join('\n'), /^websites 3: another website has shared\.example: imported, but it receives no events until its ownership is proven/);
  const [shared, fresh] = await ownedBy<{ id: number; domain: string; receives?: boolean; verified_at?: string | null }>(store, 'websites', 2);
  assert.deepEqual([shared!.domain, shared!.receives, shared!.verified_at], ['shared.example', false, null]);
  assert.deepEqual([fresh!.domain, fresh!.receives, fresh!.verified_at], ['fresh.example', true, null], "the domain's first website receives; a proof made elsewhere is not brought along");
  assert.equal((await store.lookup('websites', 'receiving', 'shared.example'))?.userId, 1);
  assert.deepEqual((await ownedBy(store, 'stats', 2)).map((s) => s.subject), [`website:${shared!.id}`]);
});

test('import order: every collection after the collections it refers to, statistics last', () => {
  const order = importOrder(RESOURCES).map((r) => r.collection);
  assert.equal(order.at(-1), 'stats');
  assert.ok(!order.includes('users'));
  for (const row of RESOURCES.filter((r) => r.owned)) {
    for (const ref of Object.values(row.references ?? {})) assert.ok(order.indexOf(ref.collection) < order.indexOf(row.collection), `${ref.collection} before ${row.collection}`);
  }
});

test("importInto: the target's own domain and website are reused, names get a suffix, dangling references and orphan statistics are dropped and reported", async () => {
  const store = await openTestStore();
  await seedFixtures(
    store,
    {
      users: [{ id: 1, email: 't@example.com' }],
      domains: [{ id: 1, userId: 1, domain: 'https://go.t.example' }],
      websites: [{ id: 1, userId: 1, domain: 't.example' }],
      channels: [{ id: 1, userId: 1, name: 'News' }],
      stats: [{ id: 1, userId: 1, subject: 'website:1', day: '2026-01-01', counts: { pageviews: 5 } }],
    },
    { resources: RESOURCES, now: NOW },
  );
  const file = await prepareFixtures(
    {
      domains: [{ id: 7, userId: 9, domain: 'https://go.t.example' }],
      websites: [{ id: 3, userId: 9, domain: 't.example' }],
      channels: [{ id: 4, userId: 9, name: 'news' }],
      pixels: [{ id: 1, userId: 9, type: 'bing', name: 'P', tag: 'T' }],
      links: [{ id: 5, userId: 9, alias: 'fresh', url: 'https://e.com', domainId: 7, channels: [4], pixels: [1, 99], campaign: 42 }],
      stats: [
        { id: 1, userId: 9, subject: 'link:5', day: '2026-01-01', counts: { clicks: 2 } },
        { id: 2, userId: 9, subject: 'website:3', day: '2026-01-01', counts: { pageviews: 9 } },
        { id: 3, userId: 9, subject: 'link:77', day: '2026-01-01', counts: { clicks: 1 } },
        { id: 4, userId: 9, subject: 'gadget:1', day: '2026-01-01', counts: { clicks: 1 } },
      ],
    },
    RESOURCES,
    NOW,
  );
  const ticks: string[] = [];
  const report = await importInto(store, file, (await store.get<UserRecord>('users', 1))!, RESOURCES, progressOn({ write: (t) => ticks.push(t) }, 'Importing', 9));
  assert.deepEqual(report.imported, { pixels: 1, channels: 1, links: 1, stats: 1 });
  const notes = report.notes.join('\n');
  for (const note of [
    /domains 7: the user already has it: the existing one is used; its links use it/,
    /websites 3: the user already has it: the existing one is used; the statistics in the file are not imported/,
    /channels 4: name "news" is taken; now "news \(2\)"/,
    /links 5: pixels lost ids that were not imported/,
    /links 5: campaign 42 was not imported; set to none/,
    /stats 3: subject "link:77" was not imported; left out/,
    /stats 4: subject "gadget:1" was not imported; left out/,
  ]) {
    assert.match(notes, note);
  }
  assert.doesNotMatch(notes, /stats 2/, 'the statistics of a reused website are left out without a second note');
  const link = (await ownedBy(store, 'links', 1))[0]!;
  assert.deepEqual([link.domainId, link.channels, link.pixels, link.campaign], [1, [2], [(await ownedBy(store, 'pixels', 1))[0]!.id], null]);
  assert.deepEqual(JSON.parse(JSON.stringify((await allOf(store, 'stats')).map((s) => [s.subject, s.counts]))), [['website:1', { pageviews: 5 }], [`link:${link.id}`, { clicks: 2 }]]);
  assert.match(ticks.at(-1)!, /Importing 9\/9 \(100%\)\n$/);
  await store.close();
});

test('progress: redrawn in place on a terminal at most every 100 ms, one line per tenth elsewhere', () => {
  const tty: string[] = [];
  let now = 0;
  const p = progressOn({ isTTY: true, write: (t) => tty.push(t) }, 'Work', 1000, () => now);
  for (let i = 0; i < 1000; i++) {
    now += 1;
    p.tick();
  }
  p.done();
  assert.ok(tty.length >= 10 && tty.length <= 13, `${tty.length} redraws`);
  assert.ok(tty.every((t) => t.startsWith('\r\x1b[2K')));
  assert.equal(tty.at(-1), '\r\x1b[2KWork 1000/1000 (100%)\n');

  const log: string[] = [];
  const q = progressOn({ write: (t) => log.push(t) }, 'Work', 20);
  for (let i = 0; i < 25; i++) q.tick();
  q.done();
  assert.deepEqual(log.map((l) => l.match(/\((\d+)%\)/)![1]), ['0', '10', '20', '30', '40', '50', '60', '70', '80', '90', '100']);
  const empty: string[] = [];
  progressOn({ write: (t) => empty.push(t) }, 'Nothing', 0).done();
  assert.deepEqual(empty, ['Nothing 0/0 (100%)\n']);
  NO_PROGRESS.tick();
  NO_PROGRESS.done();
});

const seedOne = { users: [{ id: 1, username: 'ann', email: 'a@example.com' }], links: [{ id: 1, userId: 1, alias: 'one', url: 'https://e.com/1' }] };

test('export --all reads one snapshot: a link committed while the export runs is in neither its counts nor its records', async () => {
  const store = await openTestStore();
  await seedFixtures(store, seedOne, { resources: RESOURCES, now: NOW });
  let text = '';
  let added: number | null = null;
  const write = async (piece: string) => {
    text += piece;
    // After the header, before the links are read: a server on the same data adds one.
    added ??= (await store.transaction((tx) => tx.insert('links', { userId: 1, alias: 'two', url: 'https://e.com/2' }))).id;
  };
  await runExportAll(store, {}, () => assert.fail('stdout is the export: no summary line'), { positionals: [], write, stderr: { write: () => {} } });
  const file = JSON.parse(text);
  assert.equal(file.$export.counts.links, 1);
  assert.deepEqual(file.links.map((l: { alias: string }) => l.alias), ['one']);
  assert.deepEqual((await allOf(store, 'links')).map((l) => [l.id, l.alias]), [[1, 'one'], [added, 'two']], 'the link was committed, after the snapshot');
  await store.close();
});

test('import --all checks that the store is empty in its own transaction: a user committed meanwhile is not wiped', async () => {
  const store = await openTestStore();
  const data = checkAllExport({ $export: { format: 'shortlink-analytics-server/export', version: 1, all: true, counts: { users: 1, links: 1 } }, ...seedOne }, RESOURCES, 'all.json');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const inserted = new Promise<void>((resolve) => (written = resolve));
  // A write in flight (done, not committed yet) when the import starts: started before the insert
  // was done, the import could lock the tables first and make the writer wait for it instead.
  const writer = store.transaction(async (tx) => {
    await tx.insert('users', { username: 'ada', email: 'ada@example.com' });
    written();
    await held;
  });
  await inserted;
  const importing = importAll(store, data);
  // PostgreSQL: the import waits for the writer's tables; the file store queues it behind the writer.
  assert.ok(await eventually(async () => (await waitsOnLock(store)) || store.backend !== 'postgres'), 'the import waits for the writer');
  release();
  await writer;
  await assert.rejects(importing, (err: Error) => err instanceof FixtureError && /^The target already holds data \(1 users\)/.test(err.message));
  assert.deepEqual((await allOf(store, 'users')).map((u) => u.email), ['ada@example.com']);
  assert.deepEqual(Object.fromEntries(await Promise.all(collectionsOf(RESOURCES).map(async (c) => [c, await store.count(c)]))), { ...Object.fromEntries(collectionsOf(RESOURCES).map((c) => [c, 0])), users: 1 });
  await store.close();
});

test('import --all checks each record with the API\'s rules: a javascript: URL refuses the whole file, named', () => {
  const raw = {
    $export: { format: 'shortlink-analytics-server/export', version: 1, all: true, counts: { users: 1, links: 2 } },
    users: seedOne.users,
    links: [...seedOne.links, { id: 2, userId: 1, alias: 'two', url: 'javascript:alert(1)' }],
  };
  assert.throws(() => checkAllExport(raw, RESOURCES, 'all.json'), (err: Error) => err instanceof FixtureError && /nothing was imported/.test(err.message) && /links record 2 \(id 2\) "url": /.test(err.message));
});

test('export --all → import --all carries the new breakdowns (source, region, city, UTM tags) as they were counted', async () => {
  const city = readerOf(buildMmdb({ networks: [['81.2.69.0/24', cityRecord('GB', 'England', 'London')]] }));
  const from = await testApp({ trustProxy: true }, { geo: new Geolocator({ country: bundledCountryReader(), city: { current: city } }) });
  const link = await from.call('POST', '/api/url/add', { body: { url: 'https://example.com/', custom: 'carried' } });
  const headers = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 'x-forwarded-for': '81.2.69.10', referer: 'https://news.ycombinator.com/' };
  assert.equal((await from.call('GET', '/carried?utm_source=hn&utm_medium=social&utm_campaign=launch&utm_term=t&utm_content=c', { key: null, headers })).status, 302);
  await from.counters.flush();
  const countsOf = async (store: typeof from.store) => (await allOf<{ id: number; subject: string; counts: Record<string, unknown> }>(store, 'stats')).map((s) => JSON.parse(JSON.stringify(s.counts)));
  const before = await countsOf(from.store);
  assert.deepEqual(
    [before[0]?.source, before[0]?.region, before[0]?.city, before[0]?.utm_source, before[0]?.utm_medium, before[0]?.utm_campaign, before[0]?.utm_term, before[0]?.utm_content],
    [{ 'Hacker News': 1 }, { 'GB:England': 1 }, { 'GB:London': 1 }, { hn: 1 }, { social: 1 }, { launch: 1 }, { t: 1 }, { c: 1 }],
  );
  let text = '';
  await runExportAll(from.store, {}, () => {}, { positionals: [], write: async (piece: string) => void (text += piece), stderr: { write: () => {} } });
  const into = await openTestStore();
  await importAll(into, checkAllExport(JSON.parse(text), RESOURCES, 'all.json'));
  assert.deepEqual(await countsOf(into), before);
  assert.equal((await allOf(into, 'links'))[0]?.id, link.body.id);
  await into.close();
});
