import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '../src/clock.ts';
import { FixedWindowLimiter } from '../src/http/rate-limit.ts';
import { createLogger } from '../src/log.ts';
import { sharedLimiters } from '../src/limits/shared-limiter.ts';
import { CoalescedHits } from '../src/limits/coalesced-hits.ts';
import { SharedWindows } from '../src/limits/shared-windows.ts';
import type { WindowCounter } from '../src/store/store.ts';
import { ADMIN_KEY, testApp } from './helpers.ts';

test('the limiter lets exactly `limit` requests through per aligned window, then resets', () => {
  const clock = fixedClock(60_000 * 1000 + 5_000);
  const l = new FixedWindowLimiter(3, 60_000, clock);
  const seen = [1, 2, 3, 4].map(() => l.hit('k'));
  assert.deepEqual(seen.map((d) => [d.allowed, d.remaining]), [[true, 2], [true, 1], [true, 0], [false, 0]]);
  assert.equal(seen[0]!.reset, 60_000 + 60);
  assert.equal(l.hit('other').allowed, true);
  clock.advance(55_000);
  assert.equal(l.hit('k').allowed, true);
  assert.equal(l.size, 1, 'counters of the finished window are dropped');
});

test('over the limit: 429 with Retry-After and the headers; the next window lets requests through', async () => {
  const { call, clock, makeUser } = await testApp({ rateLimit: 3, rateLimitWindow: 60 });
  const u = await makeUser('limited');
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 4; i++) {
    last = await call('GET', '/api/account', { key: u.key });
    statuses.push(last.status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  assert.deepEqual(last!.body, { error: 1, message: 'Too Many API Requests.' });
  assert.equal(last!.headers.get('x-ratelimit-limit'), '3');
  assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
  const reset = Number(last!.headers.get('x-ratelimit-reset'));
  assert.equal(reset, Math.ceil((clock.now() - (clock.now() % 60_000) + 60_000) / 1000));
  assert.equal(Number(last!.headers.get('retry-after')), reset - Math.floor(clock.now() / 1000));
  clock.advance(60_000);
  const again = await call('GET', '/api/account', { key: u.key });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('x-ratelimit-remaining'), '2');
});

test('each key has its own window; RATE_LIMIT=0 disables the limiter and its headers', async () => {
  const { call, makeUser } = await testApp({ rateLimit: 0 });
  const u = await makeUser('free');
  for (let i = 0; i < 40; i++) assert.equal((await call('GET', '/api/account', { key: u.key })).status, 200);
  assert.equal((await call('GET', '/api/account', { key: u.key })).headers.get('x-ratelimit-limit'), null);
});

test('failed authentications are limited per client IP', async () => {
  const { call } = await testApp({ authFailureLimit: 3, trustProxy: true });
  const from = (ip: string) => ({ key: 'sk_wrong_key_guess_000000000000', headers: { 'x-forwarded-for': ip } });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await call('GET', '/api/account', from('10.0.0.1'))).status);
  assert.deepEqual(statuses, [401, 401, 401, 429]);
  assert.equal((await call('GET', '/api/account', from('10.0.0.2'))).status, 401);
});

test('a valid key is never refused by the failed-authentication limit; bad keys from that IP still are', async () => {
  const { call, clock, makeUser } = await testApp({ trustProxy: true, rateLimit: 2 });
  const u = await makeUser('behind-proxy');
  const ip = { 'x-forwarded-for': '10.0.0.9' };
  const bad = () => call('GET', '/api/account', { key: 'sk_wrong_key_guess_000000000000', headers: ip });
  const statuses = [];
  for (let i = 0; i < 21; i++) statuses.push((await bad()).status);
  assert.deepEqual(statuses, [...Array(20).fill(401), 429], 'AUTH_FAILURE_LIMIT defaults to 20');
  const good = await call('GET', '/api/account', { key: u.key, headers: ip });
  assert.equal(good.status, 200, good.text);
  assert.equal(good.body.data.id, u.id);
  const analytics = await call('GET', '/api/v1/websites', { key: u.key, headers: ip });
  assert.equal(analytics.status, 200, 'the analytics API shares the rule');
  const blocked = await bad();
  assert.equal(blocked.status, 429);
  assert.deepEqual(blocked.body, { error: 1, message: 'Too Many API Requests.' });
  assert.equal(Number(blocked.headers.get('retry-after')), Math.ceil((clock.now() - (clock.now() % 60_000) + 60_000) / 1000) - Math.floor(clock.now() / 1000));
  assert.equal((await call('GET', '/api/account', { key: u.key, headers: ip })).status, 200);
  const ownLimit = await call('GET', '/api/account', { key: u.key, headers: ip });
  assert.equal(ownLimit.status, 429, 'the good key still has its own per-key limit (RATE_LIMIT=2)');
  assert.equal(ownLimit.headers.get('x-ratelimit-remaining'), '0');
  clock.advance(60_000);
  assert.equal((await bad()).status, 401, 'the block ends with the window');
});

test('the analytics API has its own budget: exactly ANALYTICS_RATE_LIMIT pass, then 429 in its shape; the window resets', async () => {
  const { call, clock, makeUser } = await testApp({ rateLimit: 2, analyticsRateLimit: 3, rateLimitWindow: 60 });
  const u = await makeUser('both-apis');
  const got = [];
  for (let i = 0; i < 4; i++) got.push(await call('GET', '/api/v1/websites', { key: u.key }));
  assert.deepEqual(got.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')]), [[200, '2'], [200, '1'], [200, '0'], [429, '0']]);
  const last = got[3]!;
  assert.deepEqual(last.body, { message: 'Too Many Attempts.', status: 429 });
  assert.equal(last.headers.get('x-ratelimit-limit'), '3');
  const reset = Math.ceil((clock.now() - (clock.now() % 60_000) + 60_000) / 1000);
  assert.equal(Number(last.headers.get('x-ratelimit-reset')), reset);
  assert.equal(Number(last.headers.get('retry-after')), reset - Math.floor(clock.now() / 1000));
  const link = [];
  for (let i = 0; i < 3; i++) link.push(await call('GET', '/api/account', { key: u.key }));
  assert.deepEqual(link.map((r) => r.status), [200, 200, 429], 'the link API counts apart, with its own limit');
  assert.deepEqual(link[2]!.body, { error: 1, message: 'Too Many API Requests.' });
  clock.advance(60_000);
  const again = await call('GET', '/api/v1/websites', { key: u.key });
  assert.deepEqual([again.status, again.headers.get('x-ratelimit-remaining')], [200, '2']);
  assert.equal((await call('GET', '/api/account', { key: u.key })).status, 200);
});

/** A shared counter under the test's control: counts in a map, or fails, or never answers. */
function fakeCounter() {
  const counts = new Map<string, number>();
  const state = { mode: 'up' as 'up' | 'down' | 'silent', calls: 0 };
  const counter: WindowCounter = {
    hit: async (key, endsAt, n = 1) => {
      state.calls++;
      if (state.mode === 'down') throw Object.assign(new Error('connect ECONNREFUSED redis://user:pw@10.0.0.5:6379'), {});
      if (state.mode === 'silent') return new Promise<never>(() => {});
      const count = (counts.get(`${key}@${endsAt}`) ?? 0) + n;
      counts.set(`${key}@${endsAt}`, count);
      return { count, endsAt };
    },
    giveBack: async (key, endsAt, n) => {
      state.calls++;
      counts.set(`${key}@${endsAt}`, Math.max(0, (counts.get(`${key}@${endsAt}`) ?? 0) - n));
    },
  };
  return { counter, counts, state };
}

test('shared limits: counted in the shared counter; unreachable, one line down and one back, open passes uncounted, closed answers 503', async () => {
  for (const onError of ['open', 'closed'] as const) {
    const { counter, counts, state } = fakeCounter();
    const lines: string[] = [];
    const log = createLogger('info', (line) => lines.push(line));
    const windows = new SharedWindows(counter, 'Redis at 10.0.0.5:6379', onError, log, 50);
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const { call, makeUser } = await testApp({ rateLimit: 2, rateLimitOnError: onError }, { clock, limits: sharedLimiters(windows, clock, onError) });
    const u = await makeUser(`shared_${onError}`);
    const counted = [await call('GET', '/api/account', { key: u.key }), await call('GET', '/api/account', { key: u.key }), await call('GET', '/api/account', { key: u.key })];
    assert.deepEqual(counted.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')]), [[200, '1'], [200, '0'], [429, '0']]);
    const windowEnd = Date.parse('2026-11-21T10:01:00Z');
    assert.equal(counted[2]!.headers.get('x-ratelimit-reset'), String(windowEnd / 1000));
    assert.equal(counts.get(`link:${u.id}@${windowEnd}`), 3, 'every hit went to the shared counter, under the limiter\'s name');
    clock.advance(60_000);

    state.mode = 'down';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call('GET', '/api/v1/websites', { key: ADMIN_KEY }));
    for (const r of answers) {
      assert.equal(r.headers.get('x-ratelimit-limit'), null);
      if (onError === 'open') assert.equal(r.status, 200, r.text);
      else {
        assert.deepEqual([r.status, r.body, r.headers.get('retry-after')], [503, { message: 'The service is temporarily unavailable. Please try again in a moment.', status: 503 }, '1']);
      }
    }
    const down = lines.filter((l) => l.includes('cannot be reached'));
    assert.equal(down.length, 1, lines.join('\n'));
    assert.match(down[0]!, /WARN rate limits: Redis at 10\.0\.0\.5:6379 cannot be reached \(connect ECONNREFUSED <url>\)/);
    assert.doesNotMatch(lines.join('\n'), /pw@/, 'a URL in the error is never logged');

    state.mode = 'up';
    const back = await call('GET', '/api/account', { key: ADMIN_KEY });
    assert.deepEqual([back.status, back.headers.get('x-ratelimit-remaining')], [200, '1']);
    assert.equal(lines.filter((l) => l.includes('answers again;')).length, 1);
  }
});

test('shared limits: a silent counter costs one request the timeout at a time; the others are decided at once', async () => {
  const { counter, state } = fakeCounter();
  const windows = new SharedWindows(counter, 'Redis', 'open', createLogger('silent'), 200);
  state.mode = 'silent';
  const started = Date.now();
  assert.equal(await windows.hit('k', 1000), null, 'the first waits for the timeout');
  assert.ok(Date.now() - started >= 190);
  const calls = state.calls;
  const during = [windows.hit('k', 1000), windows.hit('k', 1000), windows.hit('k', 1000)];
  let probed = false;
  void during[0]!.then(() => (probed = true));
  assert.deepEqual(await Promise.all(during.slice(1)), [null, null]);
  assert.equal(probed, false, 'the others were decided before the probe timed out');
  assert.deepEqual(await Promise.all(during), [null, null, null]);
  assert.equal(state.calls, calls + 1, 'while one probe waits, the others do not ask');
});

test('coalesced hits: a round trip its caller gave up on (timed out) is not joined by the next hit, however young it is', async () => {
  const { counter, asked } = heldCounter();
  const hits = new CoalescedHits(counter, 60_000);
  const first = hits.hit('k', 1000);
  const joined = hits.hit('k', 1000);
  assert.equal(asked.length, 1, 'a young round trip is joined');
  hits.giveUp('k');
  assert.equal(asked.length, 2, 'its waiting hit goes at once');
  const next = hits.hit('k', 1000);
  assert.equal(asked.length, 2, 'the next hit joins the new round trip, not the one given up');
  asked[1]!.answer(2);
  await turn();
  asked[2]!.answer(1);
  assert.deepEqual((await Promise.all([joined, next])).map((c) => c.count), [2, 3]);
  asked[0]!.answer(1);
  assert.equal((await first).count, 4);
});

/** A counter whose answers the test releases one round trip at a time, recording what each was asked. */
function heldCounter() {
  const asked: { key: string; endsAt: number; n: number; answer: (count: number | Error) => void }[] = [];
  const totals = new Map<string, number>();
  const counter: WindowCounter = {
    hit: (key, endsAt, n = 1) =>
      new Promise((resolve, reject) => {
        asked.push({
          key, endsAt, n,
          answer: (c) => {
            if (c instanceof Error) return reject(c);
            const at = `${key}@${endsAt}`;
            totals.set(at, (totals.get(at) ?? 0) + c);
            resolve({ count: totals.get(at)!, endsAt });
          },
        });
      }),
    giveBack: async () => {},
  };
  return { counter, asked };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('coalesced hits: the hits of a busy key wait for its round trip and go as one hit of n; each gets its own count, in order; other keys do not wait', async () => {
  const { counter, asked } = heldCounter();
  const hits = new CoalescedHits(counter, 10_000);
  const first = hits.hit('k', 60_000);
  const more = Array.from({ length: 9 }, () => hits.hit('k', 60_000));
  const other = hits.hit('other', 60_000);
  assert.deepEqual(asked.map((a) => [a.key, a.n]), [['k', 1], ['other', 1]], 'one round trip per key at a time');
  asked[0]!.answer(1);
  asked[1]!.answer(1);
  assert.deepEqual(await first, { count: 1, endsAt: 60_000 });
  assert.deepEqual(await other, { count: 1, endsAt: 60_000 });
  await turn();
  assert.deepEqual(asked.map((a) => [a.key, a.n]), [['k', 1], ['other', 1], ['k', 9]]);
  asked[2]!.answer(9);
  assert.deepEqual((await Promise.all(more)).map((c) => c.count), [2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

test('coalesced hits: waiting hits of another window go in a round trip of their own; a failure fails its batch only; a silent round trip is not waited for past staleMs', async () => {
  const { counter, asked } = heldCounter();
  const hits = new CoalescedHits(counter, 100);
  const a = hits.hit('k', 60_000);
  const b = [hits.hit('k', 60_000), hits.hit('k', 120_000), hits.hit('k', 60_000)];
  asked[0]!.answer(new Error('down'));
  await assert.rejects(a, /down/);
  await turn();
  assert.deepEqual(asked.slice(1).map((x) => [x.endsAt, x.n]), [[60_000, 2]]);
  asked[1]!.answer(2);
  await turn();
  assert.deepEqual(asked.slice(2).map((x) => [x.endsAt, x.n]), [[120_000, 1]]);
  asked[2]!.answer(1);
  assert.deepEqual((await Promise.all(b)).map((c) => [c.count, c.endsAt]), [[1, 60_000], [1, 120_000], [2, 60_000]]);

  // Never answered: the next hit within staleMs waits; the one after staleMs goes at once, taking it along.
  const silent = hits.hit('s', 60_000);
  const waits = hits.hit('s', 60_000);
  await new Promise((resolve) => setTimeout(resolve, 120));
  const late = hits.hit('s', 60_000);
  assert.deepEqual(asked.slice(3).map((x) => [x.key, x.n]), [['s', 1], ['s', 2]]);
  asked[4]!.answer(2);
  assert.deepEqual([(await waits).count, (await late).count], [1, 2]);
  asked[3]!.answer(1); // the stale one answers at last: its own hit only, nothing sent again
  assert.equal((await silent).count, 3);
  await turn();
  assert.equal(asked.length, 5);
});
