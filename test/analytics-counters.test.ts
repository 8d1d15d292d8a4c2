import { allOf , ownedBy } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedClock } from '../src/clock.ts';
import { seededRandom } from '../src/random.ts';
import { OVERFLOW_LABEL, emptyCounts, foldTally, mergeCounts } from '../src/stats/counts.ts';
import type { DayCounts, Tally } from '../src/stats/counts.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { LEDGER_BITS, VisitorLedger } from '../src/stats/visitor-ledger.ts';
import { silentLogger } from '../src/log.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { isLockFile } from '../src/store/file/lock.ts';
import type { Store } from '../src/store/store.ts';
import { setTurnSlice } from '../src/turns.ts';

const plain = (c: DayCounts) => JSON.parse(JSON.stringify(c));

const foldCases: { name: string; start: DayCounts; tally: Tally; max?: number; want: object }[] = [
  { name: 'totals add up', start: { pageviews: 2 }, tally: { add: { pageviews: 1, visitors: 1 } }, want: { pageviews: 3, visitors: 1 } },
  { name: 'a zero adds no key', start: {}, tally: { add: { visitors: 0 } }, want: {} },
  { name: 'labels count one each', start: { page: { '/': 1 } }, tally: { labels: { page: '/', browser: 'Firefox' } }, want: { page: { '/': 2 }, browser: { Firefox: 1 } } },
  { name: 'null and undefined labels are skipped', start: {}, tally: { labels: { campaign: null, event: undefined } }, want: {} },
  { name: 'labels that are Object.prototype names are plain labels', start: {}, tally: { labels: { a: '__proto__', b: 'constructor', c: 'toString' } }, want: { a: { ['__proto__']: 1 }, b: { constructor: 1 }, c: { toString: 1 } } },
  { name: 'past maxLabels new labels go to the overflow label', start: { page: { '/a': 1, '/b': 1 } }, tally: { labels: { page: '/c' } }, max: 2, want: { page: { '/a': 1, '/b': 1, [OVERFLOW_LABEL]: 1 } } },
  { name: 'known labels still count past maxLabels', start: { page: { '/a': 1, '/b': 1 } }, tally: { labels: { page: '/a' } }, max: 2, want: { page: { '/a': 2, '/b': 1 } } },
];

test('foldTally: a pure fold of one event into a day', async (t) => {
  for (const c of foldCases) {
    await t.test(c.name, () => {
      const before = JSON.stringify(c.start);
      const out = foldTally(c.start, c.tally, c.max);
      assert.deepEqual(plain(out), c.want);
      assert.equal(JSON.stringify(c.start), before, 'the input is not changed');
      assert.equal(Object.getPrototypeOf(out), null);
    });
  }
  assert.throws(() => foldTally({ page: 1 }, { labels: { page: '/' } }), /total/);
  assert.throws(() => foldTally({ page: { '/': 1 } }, { add: { page: 1 } }), /dimension/);
});

test('mergeCounts sums totals and label maps', () => {
  const merged = mergeCounts([{ pageviews: 2, page: { '/': 2 } }, { pageviews: 1, visitors: 1, page: { '/': 1, '/x': 1 } }, emptyCounts()]);
  assert.deepEqual(plain(merged), { pageviews: 3, page: { '/': 3, '/x': 1 }, visitors: 1 });
});

test('VisitorLedger: new per subject and day and hour; a new day forgets and changes the salt', () => {
  const ledger = new VisitorLedger(seededRandom(7));
  const at = (iso: string) => Date.parse(iso);
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'ua', at('2026-11-21T10:00:00Z')), { newToday: true, newThisHour: true });
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'ua', at('2026-11-21T10:59:00Z')), { newToday: false, newThisHour: false });
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'ua', at('2026-11-21T11:00:00Z')), { newToday: false, newThisHour: true });
  assert.deepEqual(ledger.sight('website:2', '192.0.2.1', 'ua', at('2026-11-21T11:00:00Z')), { newToday: true, newThisHour: true });
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'other ua', at('2026-11-21T11:00:00Z')), { newToday: true, newThisHour: true });
  assert.equal(ledger.size, 7);
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'ua', at('2026-11-21T10:30:00Z')), { newToday: false, newThisHour: false }, 'an earlier hour it was seen in');
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'ua', at('2026-11-21T09:30:00Z')), { newToday: false, newThisHour: true }, 'an earlier hour it was not');
  assert.equal(ledger.size, 8);
  assert.deepEqual(ledger.sight('website:1', '192.0.2.1', 'ua', at('2026-11-22T00:00:01Z')), { newToday: true, newThisHour: true });
  assert.equal(ledger.size, 2, 'yesterday is forgotten');
});

test('VisitorLedger: a fixed 16 MiB however many visitors come, and every one of 300,000 counted right', () => {
  const ledger = new VisitorLedger(seededRandom(3));
  const at = Date.parse('2026-11-21T10:00:00Z');
  const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  assert.equal(ledger.bytes, 0, 'nothing before the first visit');
  ledger.sight('link:0', '192.0.2.1', 'ua', at);
  assert.equal(ledger.bytes, LEDGER_BITS / 8);
  let fresh = 0;
  for (let i = 0; i < 300_000; i++) if (ledger.sight(`link:${i % 1000}`, ip(i), 'Mozilla/5.0', at).newToday) fresh++;
  assert.equal(fresh, 300_000, 'no new visitor taken for a known one at this size');
  assert.equal(ledger.bytes, LEDGER_BITS / 8, 'the memory did not grow with the visitors');
  assert.equal(ledger.size, 2 * 300_001);
  for (let i = 0; i < 300_000; i += 7) {
    const again = ledger.sight(`link:${i % 1000}`, ip(i), 'Mozilla/5.0', at + 60_000);
    assert.deepEqual(again, { newToday: false, newThisHour: false }, `visitor ${i} is known`);
  }
  assert.deepEqual(ledger.sight('link:1', ip(0), 'Mozilla/5.0', at), { newToday: true, newThisHour: true }, 'the same visitor on another subject');
  assert.deepEqual(ledger.sight('link:0', ip(0), 'Mozilla/5.0', at + 86_400_000), { newToday: true, newThisHour: true }, 'the next day starts empty');
  assert.equal(ledger.size, 2);
});

test('VisitorLedger tells once a day when the day passes its rated sightings', () => {
  const told: [string, number][] = [];
  const ledger = new VisitorLedger(seededRandom(3), { ratedSightings: 3, onOverRating: (day, n) => told.push([day, n]) });
  const at = Date.parse('2026-11-21T10:00:00Z');
  for (let i = 0; i < 10; i++) ledger.sight('link:1', `192.0.2.${i}`, 'ua', at);
  ledger.sight('link:1', '192.0.2.99', 'ua', at + 86_400_000);
  for (let i = 0; i < 10; i++) ledger.sight('link:1', `192.0.2.${i}`, 'ua', at + 86_400_000);
  assert.deepEqual(told, [['2026-11-21', 4], ['2026-11-22', 4]]);
});

test('DailyCounters logs a warning once a day when the visitor ledger passes its rating', async () => {
  const store = await FileStore.open({ dir: ':memory:', collections: ['users', 'stats'] });
  const clock = fixedClock('2026-11-21T10:00:00Z');
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  const log = { ...silentLogger, warn: (msg: string, extra?: Record<string, unknown>) => void warnings.push([msg, extra]) };
  const counters = new DailyCounters(store, { clock, random: seededRandom(1), log, ratedSightings: 4 });
  for (let i = 0; i < 6; i++) counters.sight('link:1', `192.0.2.${i}`, 'ua');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]![0], /visitor ledger is over its rating/);
  assert.deepEqual(warnings[0]![1], { day: '2026-11-21', sightings: 5 });
  await counters.close();
  await store.close();
});

async function memoryCounters(flushMs = 20) {
  const store = await FileStore.open({ dir: ':memory:', collections: ['users', 'stats'] });
  const clock = fixedClock('2026-11-21T10:00:00Z');
  let writes = 0;
  const addCounts = store.addCounts.bind(store);
  store.addCounts = ((deltas, maxLabels) => {
    writes++;
    return addCounts(deltas, maxLabels);
  }) as Store['addCounts'];
  const counters = new DailyCounters(store, { clock, random: seededRandom(1), flushMs });
  return { store, clock, counters, writes: () => writes };
}

test('DailyCounters: reads see events at once; one batched write per flush interval', async () => {
  const { store, counters, writes, clock } = await memoryCounters();
  for (let i = 0; i < 50; i++) counters.record(`link:${i % 3}`, { add: { clicks: 1 }, labels: { country: i % 2 ? 'DE:Germany' : 'US:United States' } });
  clock.set('2026-11-22T08:00:00Z');
  counters.record('link:0', { add: { clicks: 1 }, labels: { country: 'FR:France' } });
  assert.equal((await store.count('stats')), 0, 'nothing written yet');
  assert.equal(counters.buffered, 4);
  assert.deepEqual(plain((await counters.day('link:0', '2026-11-21'))!), { clicks: 17, country: { 'US:United States': 9, 'DE:Germany': 8 } });
  // The interval's timer writes the batch (in turns of the event loop, so it may take a few): wait
  // for the write to start, then for it to end, which a flush call does without writing again.
  for (let waited = 0; writes() === 0 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  await counters.flush();
  assert.equal(writes(), 1);
  assert.equal((await store.count('stats')), 4);
  assert.equal(counters.buffered, 0);
  counters.record('link:0', { add: { clicks: 1 }, labels: { country: 'FR:France' } });
  assert.deepEqual(plain(await counters.sum('link:0')), { clicks: 19, country: { 'US:United States': 9, 'DE:Germany': 8, 'FR:France': 2 } }, 'stored and buffered days merge');
  assert.deepEqual((await counters.days('link:0')).map((d) => d.day), ['2026-11-21', '2026-11-22']);
  assert.deepEqual((await counters.days('link:0', '2026-11-22', '2026-11-22')).map((d) => d.day), ['2026-11-22']);
  await counters.flush();
  assert.equal(writes(), 2);
  const day2 = (await allOf(store, 'stats')).filter((r) => r.subject === 'link:0' && r.day === '2026-11-22');
  assert.equal(day2.length, 1, 'a flushed day is updated in place, not duplicated');
  assert.deepEqual(plain(day2[0]!.counts as DayCounts), { clicks: 2, country: { 'FR:France': 2 } });
  await counters.flush();
  assert.equal(writes(), 2, 'nothing buffered, nothing written');
});

test('DailyCounters: dropSubject removes written and buffered days; a deleted owner takes them along', async () => {
  const { store, counters } = await memoryCounters(10_000);
  await store.transaction((tx) => tx.put('users', { id: 1 }));
  counters.record('website:1', { add: { pageviews: 1 } }, { owner: 1 });
  counters.record('website:2', { add: { pageviews: 1 } }, { owner: 1 });
  await counters.flush();
  assert.equal((await ownedBy(store, 'stats', 1)).length, 2, 'days carry their owner');
  counters.record('website:1', { add: { pageviews: 1 } }, { owner: 1 });
  await store.transaction((tx) => counters.dropSubject(tx, 'website:1'));
  assert.equal(await counters.day('website:1', '2026-11-21'), undefined);
  await counters.flush();
  assert.deepEqual((await allOf(store, 'stats')).map((r) => r.subject), ['website:2']);

  counters.record('website:2', { add: { pageviews: 1 } }, { owner: 1 });
  await store.transaction(async (tx) => {
    await tx.remove('users', 1);
    for (const r of (await ownedBy(store, 'stats', 1))) await tx.remove('stats', r.id);
  });
  await counters.flush();
  assert.equal((await store.count('stats')), 0, 'the buffered day of a deleted user is not written');
});

test('DailyCounters: a written day is folded into in place, not copied every flush; a day from a file is copied once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'counters-'));
  try {
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const store = await FileStore.open({ dir, collections: ['users', 'stats'] });
    const counters = new DailyCounters(store, { clock, random: seededRandom(1), flushMs: 60_000 });
    const click = { add: { clicks: 1 }, labels: { country: 'DE:Germany' } };
    counters.record('link:1', click);
    await counters.flush();
    const written = (await allOf(store, 'stats'))[0]!.counts as DayCounts;
    for (let i = 0; i < 3; i++) {
      counters.record('link:1', click);
      await counters.flush();
      assert.equal((await allOf(store, 'stats'))[0]!.counts, written, `flush ${i + 2} wrote the same counts object`);
    }
    assert.deepEqual(plain(written), { clicks: 4, country: { 'DE:Germany': 4 } });
    counters.record('link:1', click);
    assert.deepEqual(plain((await counters.day('link:1', '2026-11-21'))!), { clicks: 5, country: { 'DE:Germany': 5 } }, 'reads see it at once');
    assert.deepEqual(plain(written), { clicks: 4, country: { 'DE:Germany': 4 } }, 'the store has it at the next flush');
    await store.snapshot();
    counters.record('link:1', click);
    await counters.flush();
    await store.close();

    // What the journal and the snapshot say after a restart, and a day read from the file.
    const reopened = await FileStore.open({ dir, collections: ['users', 'stats'] });
    const fromFile = (await allOf(reopened, 'stats'))[0]!.counts as DayCounts;
    assert.deepEqual(plain(fromFile), { clicks: 6, country: { 'DE:Germany': 6 } });
    assert.notEqual(Object.getPrototypeOf(fromFile.country), null, 'a parsed day has plain objects');
    const again = new DailyCounters(reopened, { clock, random: seededRandom(1), flushMs: 60_000 });
    again.record('link:1', { add: { clicks: 1 }, labels: { country: '__proto__' } });
    assert.deepEqual(plain(fromFile), { clicks: 6, country: { 'DE:Germany': 6 } }, 'the parsed day is not folded into');
    await again.flush();
    const copied = (await allOf(reopened, 'stats'))[0]!.counts as DayCounts;
    assert.notEqual(copied, fromFile, 'the parsed day was copied');
    assert.equal(Object.getPrototypeOf(copied.country), null);
    assert.equal((copied.country as Record<string, number>)['__proto__'], 1);
    again.record('link:1', click);
    await again.flush();
    assert.equal((await allOf(reopened, 'stats'))[0]!.counts, copied, 'once copied, the day is folded into in place too');
    assert.equal(copied.clicks, 8);
    assert.deepEqual(Object.entries(copied.country as Record<string, number>), [['DE:Germany', 7], ['__proto__', 1]]);
    await reopened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('DailyCounters: closing the store flushes; the days are there after a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'counters-'));
  try {
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const store = await FileStore.open({ dir, collections: ['users', 'stats'] });
    const counters = new DailyCounters(store, { clock, random: seededRandom(1), flushMs: 60_000 });
    counters.record('link:7', { add: { clicks: 1 }, labels: { referrer: 'example.net' } });
    counters.record('link:7', { add: { clicks: 1 }, labels: { referrer: 'example.net' } });
    await store.close();
    const reopened = await FileStore.open({ dir, collections: ['users', 'stats'] });
    const again = new DailyCounters(reopened, { clock, random: seededRandom(1) });
    assert.deepEqual(plain(await again.sum('link:7')), { clicks: 2, referrer: { 'example.net': 2 } });
    again.record('link:7', { add: { clicks: 1 } });
    assert.equal((await again.sum('link:7')).clicks, 3);
    await reopened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('DailyCounters: a read of a subject whose batch is being written counts it once; other subjects do not wait', async () => {
  const store = await FileStore.open({ dir: ':memory:', collections: ['users', 'stats'] });
  const counters = new DailyCounters(store, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1), flushMs: 60_000 });
  // A slow store: the write waits until the test lets it go (a PostgreSQL round trip, stretched).
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const addCounts = store.addCounts.bind(store);
  store.addCounts = (async (...args: Parameters<Store['addCounts']>) => {
    await gate;
    return addCounts(...args);
  }) as Store['addCounts'];
  counters.record('link:1', { add: { clicks: 2 } });
  counters.record('link:2', { add: { clicks: 1 } });
  const flushing = counters.flush();
  await new Promise((resolve) => setImmediate(resolve));
  counters.record('link:3', { add: { clicks: 4 } });
  // A subject the batch does not hold is answered at once, its newer clicks counted.
  assert.equal((await counters.sum('link:3')).clicks, 4, 'another subject: not kept waiting');
  // One the batch holds waits for the write to settle (the store may have it, or not, meanwhile).
  let answered = false;
  const during = counters.sum('link:1').then((c) => ((answered = true), c));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(answered, false, 'waits for the write');
  release();
  assert.equal((await during).clicks, 2, 'counted once, the write on its way when asked');
  await flushing;
  assert.equal((await counters.sum('link:1')).clicks, 2, 'counted once once stored');
  assert.equal((await store.countTotals(['link:1'], ['clicks'])).get('link:1')!.clicks, 2);
  await store.close();
});

test('DailyCounters: a read that runs while a batch becomes visible counts it once (the COMMIT is seen before its answer)', async () => {
  const store = await FileStore.open({ dir: ':memory:', collections: ['users', 'stats'] });
  const counters = new DailyCounters(store, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1), flushMs: 60_000 });
  // As on PostgreSQL: the counts are visible to other reads at once, the writer hears it later.
  let release!: () => void;
  const answer = new Promise<void>((resolve) => (release = resolve));
  const addCounts = store.addCounts.bind(store);
  store.addCounts = (async (deltas: Parameters<Store['addCounts']>[0], maxLabels: number, batch?: string) => {
    await addCounts(deltas, maxLabels, batch);
    await answer;
  }) as Store['addCounts'];
  counters.record('link:1', { add: { clicks: 3 } });
  const flushing = counters.flush();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal((await store.countTotals(['link:1'], ['clicks'])).get('link:1')!.clicks, 3, 'stored, unanswered');
  const sum = counters.sum('link:1');
  const totals = counters.totals(['link:1'], ['clicks']);
  await new Promise((resolve) => setImmediate(resolve));
  release();
  assert.equal((await sum).clicks, 3, 'days: counted once');
  assert.equal((await totals).get('link:1')!.clicks, 3, 'totals: counted once');
  await flushing;
  assert.equal((await counters.sum('link:1')).clicks, 3);
  await store.close();
});

test('DailyCounters: reads while a batch is written in turns of the event loop, half of it applied, count every click once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'counters-'));
  const store = await FileStore.open({ dir, collections: ['users', 'stats', 'events'] });
  try {
    const counters = new DailyCounters(store, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1), flushMs: 60_000 });
    const subjects = Array.from({ length: 400 }, (_, i) => `link:${i}`);
    for (const s of subjects) counters.record(s, { add: { clicks: 1 }, labels: { country: 'FR:France' } });
    await counters.flush();
    for (const s of subjects) counters.record(s, { add: { clicks: 2 }, labels: { country: 'DE:Germany' } });
    // And days the store has not seen: made in the same turns, and found again by the next flush.
    const fresh = Array.from({ length: 200 }, (_, i) => `link:${400 + i}`);
    for (const s of fresh) counters.record(s, { add: { clicks: 1 } });
    // Every check gives a turn: the file store applies the batch's days one turn at a time, and the reads
    // below run between them, when some days hold the batch and others do not yet.
    setTurnSlice(0);
    const seen: number[] = [];
    const wrong: string[] = [];
    let going = true;
    const reads: Promise<void>[] = [];
    // The first day and the last: between the two, one holds the batch and the other not yet.
    const read = () => {
      const s = seen.length % 2 === 0 ? 'link:0' : 'link:399';
      reads.push(
        Promise.all([counters.sum(s), counters.totals([s], ['clicks'])]).then(([sum, totals]) => {
          seen.push(sum.clicks as number);
          if (sum.clicks !== 3 || totals.get(s)!.clicks !== 3) wrong.push(`${s}: ${sum.clicks} / ${totals.get(s)!.clicks}`);
        }),
      );
      if (going) setImmediate(read);
    };
    try {
      setImmediate(read);
      await counters.flush();
    } finally {
      going = false;
      setTurnSlice(4);
    }
    await Promise.all(reads);
    assert.ok(seen.length >= 100, `${seen.length} reads during the flush`);
    assert.deepEqual(wrong, []);
    for (const s of fresh) counters.record(s, { add: { clicks: 1 } });
    await counters.flush();
    // The data directory as a crash would leave it now: the collections of the last snapshot and the
    // journal, whose entries of 400 and 600 days were made in turns too (journalLine). It reads back whole.
    const crashed = await mkdtemp(join(tmpdir(), 'counters-crashed-'));
    try {
      await cp(dir, crashed, { recursive: true, filter: (from) => !isLockFile(from.split('/').pop()!) });
      const journal = (await readdir(crashed)).filter((f) => f.startsWith('journal-'));
      const lines = (await Promise.all(journal.map((f) => readFile(join(crashed, f), 'utf8')))).join('').split('\n').filter(Boolean);
      assert.ok(lines.some((l) => (JSON.parse(l) as { ops: unknown[] }).ops.length >= 600), 'a journal entry of the flush of 600 days');
      const replayed = await FileStore.open({ dir: crashed, collections: ['users', 'stats', 'events'] });
      assert.equal((await allOf(replayed, 'stats')).length, 600);
      const again = new DailyCounters(replayed, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1) });
      assert.deepEqual([...new Set([...(await again.totals(subjects, ['clicks'])).values()].map((t) => t.clicks))], [3]);
      assert.deepEqual([...new Set([...(await again.totals(fresh, ['clicks'])).values()].map((t) => t.clicks))], [2]);
      await replayed.close();
    } finally {
      await rm(crashed, { recursive: true, force: true });
    }
    const days = await allOf(store, 'stats');
    assert.equal(days.length, 600, 'one day record per subject: the days made during the turns were found again');
    assert.deepEqual([...new Set([...(await counters.totals(fresh, ['clicks'])).values()].map((t) => t.clicks))], [2]);
    assert.deepEqual(plain((await counters.day('link:399', '2026-11-21'))!), { clicks: 3, country: { 'FR:France': 1, 'DE:Germany': 1 } });
    await counters.close();
    await store.close();
    // The flush's journal entry (hundreds of days, made in turns too) reads back the same.
    const reopened = await FileStore.open({ dir, collections: ['users', 'stats', 'events'] });
    const again = new DailyCounters(reopened, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1) });
    const totals = await again.totals(subjects, ['clicks']);
    assert.deepEqual([...new Set([...totals.values()].map((t) => t.clicks))], [3]);
    assert.equal((await allOf(reopened, 'stats')).length, 600);
    assert.deepEqual(plain((await again.day('link:0', '2026-11-21'))!), { clicks: 3, country: { 'FR:France': 1, 'DE:Germany': 1 } });
    await reopened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
