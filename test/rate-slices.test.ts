import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '../src/clock.ts';
import type { RateDecision } from '../src/http/rate-limit.ts';
import { EARLY_HITS, IDLE_MS, MIN_SLICE, sliceSize } from '../src/limits/key-tally.ts';
import { SharedLimiter } from '../src/limits/shared-limiter.ts';
import { SharedWindows } from '../src/limits/shared-windows.ts';
import { createLogger } from '../src/log.ts';
import type { WindowCounter } from '../src/store/store.ts';
import { openTestStore, secondStoreOf, TEST_BACKEND } from './backend.ts';

/**
 * Rate limits leasing slices of a key's shared window (shared-limiter.ts, key-tally.ts): two
 * limiters on one shared counter are two processes. On the JSON-file pass the counter is an
 * in-memory one; on PostgreSQL each "process" has its own store on one schema (rate_windows);
 * with TEST_REDIS_URL the same runs on Redis. The clock is fixed and moved 1 ms a request, so
 * rates are what the test says; what is asserted is counts: who passed, the shared count, round trips.
 * Near a key's limit every request is counted exactly; far from it a key leases slices from its
 * first request (the smallest ones until its rate is known), so what is asserted there is that no
 * more than the limit passes and that, leftovers handed back, exactly the limit passed.
 */
const WINDOW_MS = 600_000;
const REDIS_URL = process.env.TEST_REDIS_URL;
const closers: (() => unknown)[] = [];
after(async () => {
  for (const close of closers) await close();
});

test('slice sizes: the smallest slice while the rate is unknown or slow and the limit far, the rate for a second, half the share of what is left, exact near the limit', () => {
  const cases = [
    { name: 'rate unknown, far from the limit: the smallest slice', k: { rate: null, share: 1, headroom: 1e6, msLeft: 60_000 }, size: MIN_SLICE },
    { name: 'rate unknown, not far from the limit: exact', k: { rate: null, share: 1, headroom: 200, msLeft: 60_000 }, size: 1 },
    { name: 'busy before its first second, far from the limit: its early rate', k: { rate: null, early: 64, share: 1, headroom: 1e6, msLeft: 60_000 }, size: 64 },
    { name: 'busy before its first second, not far from the limit: exact', k: { rate: null, early: 64, share: 1, headroom: 200, msLeft: 60_000 }, size: 1 },
    { name: 'a second of the rate', k: { rate: 500, share: 1, headroom: 1e6, msLeft: 60_000 }, size: 500 },
    { name: 'no more than the window has left', k: { rate: 500, share: 1, headroom: 1e6, msLeft: 100 }, size: 50 },
    { name: 'half of this process\'s share of what is left', k: { rate: 500, share: 0.25, headroom: 2000, msLeft: 60_000 }, size: 250 },
    { name: 'near the limit: exact', k: { rate: 500, share: 0.5, headroom: 2 * (2 * MIN_SLICE - 1), msLeft: 60_000 }, size: 1 },
    { name: 'over the limit: exact', k: { rate: 500, share: 1, headroom: -5, msLeft: 60_000 }, size: 1 },
    { name: 'slow, far from the limit: the smallest slice', k: { rate: 1, share: 1, headroom: 1e6, msLeft: 60_000 }, size: MIN_SLICE },
    { name: 'slow, at the end of the window, far from the limit: the smallest slice', k: { rate: 500, share: 1, headroom: 1e6, msLeft: 2 }, size: MIN_SLICE },
    { name: 'slow, not far from the limit: exact', k: { rate: MIN_SLICE - 1, share: 1, headroom: 64 * MIN_SLICE - 2, msLeft: 60_000 }, size: 1 },
    { name: 'slow, far from the limit but a small share of it: exact', k: { rate: MIN_SLICE - 1, share: 1 / 16, headroom: 1000, msLeft: 60_000 }, size: 1 },
    { name: 'slow, far: the smallest slice, at the edge', k: { rate: MIN_SLICE - 1, share: 1, headroom: 64 * MIN_SLICE, msLeft: 60_000 }, size: MIN_SLICE },
  ];
  for (const c of cases) assert.equal(sliceSize(c.k), c.size, c.name);
});

/** One window per key in memory, as rate_windows or the Redis hash keep it. */
function memoryCounter(): WindowCounter {
  const rows = new Map<string, { e: number; n: number }>();
  return {
    hit: async (key, endsAt, n = 1) => {
      const row = rows.get(key);
      if (!row || endsAt > row.e) rows.set(key, { e: endsAt, n });
      else row.n += n;
      const now = rows.get(key)!;
      return { count: now.n, endsAt: now.e };
    },
    giveBack: async (key, endsAt, n) => {
      const row = rows.get(key);
      if (row && row.e === endsAt) row.n = Math.max(0, row.n - n);
    },
  };
}

interface Backend {
  name: string;
  /** One shared counter per "process", all counting together. */
  counters: (n: number) => Promise<WindowCounter[]>;
}

async function pgCounters(n: number): Promise<WindowCounter[]> {
  const first = await openTestStore();
  const all = [first, ...(await Promise.all(Array.from({ length: n - 1 }, () => secondStoreOf(first))))];
  return all.map((s) => s.windows!);
}

async function redisCounters(n: number): Promise<WindowCounter[]> {
  const { RedisWindows } = await import('../src/limits/redis-windows.ts');
  const prefix = `test:slices:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`;
  return Promise.all(
    Array.from({ length: n }, async () => {
      const r = await RedisWindows.open(REDIS_URL!, prefix);
      closers.push(() => r.close());
      return r;
    }),
  );
}

const backends: Backend[] = [
  TEST_BACKEND === 'postgres'
    ? { name: 'PostgreSQL', counters: pgCounters }
    : { name: 'memory', counters: async (n) => Array(n).fill(memoryCounter()) as WindowCounter[] },
  ...(REDIS_URL ? [{ name: 'Redis', counters: redisCounters }] : []),
];
if (!REDIS_URL) console.log('# rate slices on Redis skipped (TEST_REDIS_URL is not set)');

/** `processes` limiters of `limit` a window on one key, on `backend`'s counters, under one clock a second into a window. */
async function processes(backend: Backend, count: number, limit: number) {
  // Redis expires a window's key a second after its end by the real clock: in the last minute of a
  // real window the test's window is the next one, so its key cannot expire while the test runs.
  const now = Date.now();
  const start = WINDOW_MS - (now % WINDOW_MS) < 60_000 ? now + 60_000 : now;
  const clock = fixedClock(start - (start % WINDOW_MS) + 1000);
  const counters = await backend.counters(count);
  const windows = counters.map((c) => new SharedWindows(c, backend.name, 'closed', createLogger('silent'), null));
  const limiters = windows.map((w) => new SharedLimiter('link', limit, WINDOW_MS, clock, w, 'closed'));
  closers.push(() => Promise.all(limiters.map((l) => l.release())));
  const decisions: RateDecision[] = [];
  /** `n` requests in turn over the limiters, 1 ms apart. */
  const send = async (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.advance(1);
      decisions.push(await limiters[i % count]!.hit('k'));
    }
  };
  const roundTrips = () => windows.reduce((sum, w) => sum + w.roundTrips, 0);
  const stored = async () => (await counters[0]!.hit('link:k', clock.now() - (clock.now() % WINDOW_MS) + WINDOW_MS, 0)).count;
  return { clock, limiters, decisions, send, roundTrips, stored, passed: () => decisions.filter((d) => d.allowed).length };
}

for (const backend of backends) {
  test(`${backend.name}: a key with a small limit is counted exactly while its rate is unknown, busy or not`, async () => {
    const p = await processes(backend, 1, 200);
    await p.send(150);
    assert.equal(p.roundTrips(), 150, 'one round trip a request');
    assert.deepEqual(p.decisions.map((d) => d.remaining), Array.from({ length: 150 }, (_, i) => 199 - i));
    assert.equal(await p.stored(), 150, 'nothing leased ahead');
  });

  test(`${backend.name}: a busy key costs a round trip per slice, not per request; idle, its leftover goes back and it is forgotten`, async () => {
    const p = await processes(backend, 1, 1_000_000);
    await p.send(EARLY_HITS);
    assert.ok(p.roundTrips() <= EARLY_HITS / 2, `far from its limit: slices of the smallest size while its rate is unknown (${p.roundTrips()} round trips)`);
    await p.send(1000 - EARLY_HITS);
    const early = p.roundTrips();
    assert.ok(early <= 1000 / 25, `its first second, ${EARLY_HITS} requests in 8 ms: busy, in slices of its early rate (${early} round trips)`);
    await p.send(3000);
    const trips = p.roundTrips() - early;
    assert.ok(trips >= 2 && trips <= 3000 / 100, `3,000 requests at 1,000/s in slices: ${trips} round trips`);
    assert.ok(p.decisions.every((d) => d.allowed));
    // Headers within the slice: what the shared count says less what was leased ahead and not used.
    const last = p.decisions.at(-1)!;
    assert.equal(last.remaining, 1_000_000 - 4000);
    assert.ok((await p.stored()) > 4000, 'the slice in use is counted in the shared window ahead of its requests');
    assert.equal(p.limiters[0]!.size, 1);

    p.clock.advance(IDLE_MS);
    await p.limiters[0]!.sweep();
    assert.equal(await p.stored(), 4000, 'idle: the unused part of the slice was handed back');
    assert.equal(p.limiters[0]!.size, 0, 'an idle key is forgotten: nothing held, nothing sent');
    const before = p.roundTrips();
    p.clock.advance(10_000);
    await p.limiters[0]!.sweep();
    assert.equal(p.roundTrips(), before, 'an idle key costs no round trip');
  });

  test(`${backend.name}: two processes in slices never let more than the limit through; near it they count exactly; once the leftovers are back, exactly the limit passed`, async () => {
    const limit = 3000;
    const p = await processes(backend, 2, limit);
    await p.send(2000); // each process: its first second in slices of its early rate, 1,000 requests
    const firstTrips = p.roundTrips();
    assert.ok(firstTrips <= 2000 / 20, `${firstTrips} round trips for the first second's 2,000 requests`);
    await p.send(1600); // past the limit, in slices: each asks for 500 at most, half its share of what is left
    assert.ok(p.passed() <= limit, `${p.passed()} passed`);
    // Headers within the slice: each passed request's remaining is the exact one give or take what the two hold leased.
    let passed = 0;
    const slack = 2 * 500;
    for (const d of p.decisions) {
      if (!d.allowed) continue;
      passed++;
      assert.ok(Math.abs(d.remaining - (limit - passed)) <= slack, `remaining ${d.remaining} after ${passed} passed`);
    }
    const refused = p.decisions.filter((d) => !d.allowed);
    assert.ok(refused.length >= 600, `${refused.length} refused`);
    assert.ok(refused.every((d) => d.remaining === 0 && d.limit === limit));
    // A refused request is counted exactly (one round trip, as before slices); the 1,000 passed before them took a few slices.
    const sliceTrips = p.roundTrips() - firstTrips - refused.length;
    assert.ok(sliceTrips <= 1000 / 20, `${sliceTrips} round trips for the last 1,000 passed`);

    p.clock.advance(IDLE_MS);
    await Promise.all(p.limiters.map((l) => l.sweep()));
    await p.send(400);
    assert.equal(p.passed(), limit, `exactly ${limit} passed in all`);
    assert.equal(await p.stored(), 4000, 'every request counted once, none leased ahead any more');
  });
}
