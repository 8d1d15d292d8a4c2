import { allOf , ownedBy } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importInto, importOrder } from '../src/cli/import.ts';
import { NO_PROGRESS, progressOn } from '../src/cli/progress.ts';
import { prepareFixtures } from '../src/fixtures/prepare.ts';
import { seedFixtures } from '../src/fixtures/seed.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');

test('import order: every collection after the collections it refers to, statistics last', () => {
  const order = importOrder(RESOURCES).map((r) => r.collection);
  assert.equal(order.at(-1), 'stats');
  assert.ok(!order.includes('users'));
  for (const row of RESOURCES.filter((r) => r.owned)) {
    for (const ref of Object.values(row.references ?? {})) assert.ok(order.indexOf(ref.collection) < order.indexOf(row.collection), `${ref.collection} before ${row.collection}`);
  }
});

test("importInto: the target's own domain and website are reused, names get a suffix, dangling references and orphan statistics are dropped and reported", async () => {
  const store = await FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) });
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
