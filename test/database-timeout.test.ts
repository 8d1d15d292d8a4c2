import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../src/config.ts';
import { READY_FRESH_MS, Readiness } from '../src/http/readiness.ts';
import { awayFromStore, honourStoreDeadlines, outsideStoreDeadline, storeDeadline, timeLeft, waitWithin, withStoreDeadline } from '../src/store/deadline.ts';
import { GroupCommit } from '../src/store/postgres/group-commit.ts';
import type { GroupDeps } from '../src/store/postgres/group-commit.ts';
import type { Db } from '../src/store/postgres/reads.ts';
import { StoreUnavailableError } from '../src/store/store.ts';
import { testApp } from './helpers.ts';

// The deadlines themselves are tested here, without a PostgreSQL store open in this process (which turns them on).
honourStoreDeadlines();

/**
 * DATABASE_TIMEOUT and /ready without a database: the setting, the deadline every wait of the
 * store takes its bound from, the group commit's queue under it, and /ready's answers and cache.
 * The real server with a silent PostgreSQL or Redis is silent-network.test.ts's.
 */

test('DATABASE_TIMEOUT: 5 s by default, seconds with fractions, as a flag too; anything else is refused naming it', () => {
  assert.equal(loadConfig({}).databaseTimeout, 5);
  assert.equal(loadConfig({ DATABASE_TIMEOUT: '0.5' }).databaseTimeout, 0.5);
  assert.equal(loadConfig({ DATABASE_TIMEOUT: '2' }, ['--database-timeout', '12']).databaseTimeout, 12);
  for (const bad of ['0', '0.05', 'five', '-1', '1e3', '5s', '3601']) {
    assert.throws(() => loadConfig({ DATABASE_TIMEOUT: bad }), (err: Error) => err instanceof ConfigError && err.message === `Invalid DATABASE_TIMEOUT: ${JSON.stringify(bad)} is not a number of seconds from 0.1 to 3600`, bad);
  }
});

test('the deadline: each wait takes what is left of it, the earlier of two holds, work outside it keeps its own bound', async () => {
  assert.equal(timeLeft(800), 800, 'no deadline: the step keeps its own bound');
  await withStoreDeadline(300, async () => {
    const left = timeLeft(10_000);
    assert.ok(left > 250 && left <= 300, String(left));
    assert.equal(timeLeft(50), 50, 'a shorter bound of its own stays');
    // An inner, later deadline does not lengthen the outer one; an earlier one shortens it.
    await withStoreDeadline(5000, async () => assert.ok(timeLeft(10_000) <= 300));
    await withStoreDeadline(100, async () => assert.ok(timeLeft(10_000) <= 100));
    assert.equal(outsideStoreDeadline(() => storeDeadline()), undefined);
    assert.equal(await outsideStoreDeadline(async () => timeLeft(700)), 700);
    await sleep(320);
    assert.throws(() => timeLeft(1000), (err: unknown) => err instanceof StoreUnavailableError && err.timedOut);
  });
});

test('awayFromStore: a wait for other work (a render thread, a password hash) moves the deadline on by its length; the store\'s waits after it keep what they had', async () => {
  assert.equal(await awayFromStore(Promise.resolve(7)), 7, 'no deadline: the work is waited for');
  await withStoreDeadline(1000, async () => {
    const start = Date.now();
    const before = storeDeadline()!;
    // Longer than the whole deadline: without the move, nothing would be left for the store.
    assert.equal(await awayFromStore(sleep(1200).then(() => 'drawn')), 'drawn');
    const moved = storeDeadline()! - before;
    assert.ok(moved >= 1195 && moved < 10_000, `moved by ${moved} ms`);
    // What is left is the deadline less the time spent elsewhere than in that wait, however slow the machine.
    const left = timeLeft(10_000);
    const elsewhere = Date.now() - start - moved;
    assert.ok(Math.abs(left - (1000 - elsewhere)) <= 2, `${left} ms left, ${elsewhere} ms spent outside the wait`);
    // A wait that fails moves it too.
    const again = storeDeadline()!;
    await assert.rejects(awayFromStore(sleep(50).then(() => Promise.reject(new Error('busy')))), /busy/);
    assert.ok(storeDeadline()! - again >= 45);
  });
});

test('waitWithin: shared work is waited for until the deadline only, and goes on by itself', async () => {
  let finished = false;
  // The work ends only when let go: giving up at the deadline is the only way out of the wait.
  let finish!: () => void;
  const work = new Promise<void>((resolve) => (finish = resolve)).then(() => (finished = true));
  await assert.rejects(
    withStoreDeadline(100, () => waitWithin(work)),
    (err: unknown) => err instanceof StoreUnavailableError && err.timedOut,
  );
  assert.equal(finished, false);
  const waited = waitWithin(work);
  finish();
  assert.equal(await waited, true, 'without a deadline: waited for');
});

/** GroupCommit's deps, with transactions that run `work` on a db that answers nothing, and a hook to hold the first. */
function fakeDeps(hold: Promise<void>): { deps: GroupDeps; seen: (number | undefined)[] } {
  const seen: (number | undefined)[] = [];
  const db: Db = (async () => ({ rows: [] })) as never;
  const run = async <R>(work: (db: Db) => Promise<R>) => {
    seen.push(storeDeadline());
    await hold;
    return work(db);
  };
  const deps: GroupDeps = { inTransaction: run, inTransactionOnce: run, placeEvents: async () => {}, notice: () => null, isUnavailable: () => false, isLost: () => false, mapError: (err) => err };
  return { deps, seen };
}

const done = { result: 'ok', touched: new Set<string>(), cascaded: false };

test('group commit: a transaction still waiting for a runner at its deadline leaves the queue unrun (503), the others are not held up by it', async () => {
  let release!: () => void;
  const { deps, seen } = fakeDeps(new Promise<void>((resolve) => (release = resolve)));
  const group = new GroupCommit(deps, 1);
  // The runner is busy (a silent database) with a transaction that has no deadline: a flush.
  const busy = group.run(async () => done);
  let ran = false;
  const late = withStoreDeadline(150, () => group.run(async () => ((ran = true), done)));
  // Answered while the runner is still held (it is let go below): at its deadline, not when the runner was free.
  await assert.rejects(late, (err: unknown) => err instanceof StoreUnavailableError && err.timedOut);
  const after = withStoreDeadline(5000, () => group.run(async () => done));
  release();
  assert.deepEqual(await busy, done);
  assert.deepEqual(await after, done);
  assert.equal(ran, false, 'the transaction that left the queue never ran');
  assert.equal(seen[0], undefined, "the runner lends the busy transaction nobody's deadline");
  assert.ok(seen[1] !== undefined && seen[1] > Date.now(), 'the next one runs under its own deadline');
});

test("group commit: a group's BEGIN and COMMIT wait until its latest member deadline (none when one has none); each member's work until its own", async () => {
  for (const withoutDeadline of [false, true]) {
    let release!: () => void;
    const { deps, seen } = fakeDeps(new Promise<void>((resolve) => (release = resolve)));
    const group = new GroupCommit(deps, 1);
    const own: (number | undefined)[] = [];
    const work = async () => (own.push(storeDeadline()), done);
    const first = group.run(async () => done);
    const a = withStoreDeadline(4000, () => group.run(work));
    const b = withStoreDeadline(2000, () => group.run(work));
    const c = withoutDeadline ? group.run(work) : withStoreDeadline(3000, () => group.run(work));
    const expected = Date.now();
    release();
    await Promise.all([first, a, b, c]);
    assert.equal(seen.length, 2, 'the three waiting ones ran as one group');
    if (withoutDeadline) assert.equal(seen[1], undefined, 'a member without a deadline: the group has none');
    else assert.ok(Math.abs(seen[1]! - (expected + 4000)) < 100, `${seen[1]! - expected - 4000} ms off the latest member's deadline`);
    const offsets = own.map((at) => (at === undefined ? undefined : Math.round((at - expected) / 1000)));
    assert.deepEqual(offsets, [4, 2, withoutDeadline ? undefined : 3], "each member's work ran under its own deadline");
  }
});

test('GET /ready: 200 with the store answering, no key, never cached; /health stays liveness', async () => {
  const { call } = await testApp();
  const ready = await call('GET', '/ready', { key: null });
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, { status: 'ready', checks: { store: 'ok' } });
  assert.equal(ready.headers.get('cache-control'), 'no-store');
  assert.equal(ready.headers.get('x-ratelimit-limit'), null);
  assert.equal((await call('HEAD', '/ready', { key: null })).status, 200);
  assert.equal((await call('POST', '/ready', { key: null })).status, 405);
});

test('GET /ready: 503 with Retry-After naming what does not answer (a hung probe within its bound); an optional check only reports', async () => {
  const hung = new Readiness([{ name: 'store', probe: () => new Promise(() => {}) }, { name: 'redis', probe: async () => {} }], 150);
  const { call } = await testApp({}, { readiness: hung });
  // The probe never answers: an answer at all is the bound at work.
  const r = await call('GET', '/ready', { key: null });
  assert.equal(r.status, 503);
  assert.deepEqual(r.body, { status: 'unavailable', checks: { store: 'unavailable', redis: 'ok' } });
  assert.equal(r.headers.get('retry-after'), '1');
  assert.equal((await call('GET', '/health', { key: null })).status, 200, 'alive all the same');

  const optional = new Readiness([{ name: 'store', probe: async () => {} }, { name: 'redis', probe: async () => Promise.reject(new Error('down')), optional: true }], 150);
  const open = await (await testApp({}, { readiness: optional })).call('GET', '/ready', { key: null });
  assert.equal(open.status, 200);
  assert.deepEqual(open.body, { status: 'ready', checks: { store: 'ok', redis: 'unavailable' } });
});

test('Readiness: one probe for many askers, its answer kept for a second, then probed again', async () => {
  let now = 1_000_000;
  let probes = 0;
  let up = true;
  const readiness = new Readiness([{ name: 'store', probe: async () => ((probes += 1), await sleep(20), up ? undefined : Promise.reject(new Error('down'))) }], 500, () => now);
  const answers = await Promise.all(Array.from({ length: 50 }, () => readiness.state()));
  assert.equal(probes, 1, 'fifty at once share one probe');
  assert.ok(answers.every((a) => a.ready));
  up = false;
  now += READY_FRESH_MS - 1;
  assert.equal((await readiness.state()).ready, true, 'a fresh answer is reused');
  assert.equal(probes, 1);
  now += 1;
  const stale = await readiness.state();
  assert.equal(probes, 2, 'an answer a second old is not');
  assert.deepEqual([stale.ready, stale.checks], [false, { store: 'unavailable' }]);
});
