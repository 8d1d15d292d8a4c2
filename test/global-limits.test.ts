import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { PROCESS_ADMIN_KEY } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';
import { DATABASE_URL, newSchema, sql, startPgServer, stop, viaPort, waitFor } from './pg-server.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { awayFromWindowEdge, burst, fresh, linesMatching, newUser, REDIS_URL, databaseOrSkip, redisOrSkip } from './limits-helpers.ts';
import type { Answer } from './limits-helpers.ts';

/**
 * Rate limits counted across processes: three real servers on one test schema, counting in
 * PostgreSQL (rate_windows) or in Redis (keys under a prefix of this run), and what happens while
 * the counts cannot be reached (a TCP proxy cut; the machine's services are never stopped).
 */
const run = databaseOrSkip('global rate-limit tests');
const LIMIT = 30;
const UNAVAILABLE = { error: 1, message: 'The service is temporarily unavailable. Please try again in a moment.' };

/** The count Redis holds for `key`'s window. */
async function redisCount(key: string): Promise<number> {
  const redis = createClient({ url: REDIS_URL });
  await redis.connect();
  try {
    return Number(await redis.hGet(key, 'n'));
  } finally {
    await redis.close();
  }
}

/** Exactly `LIMIT` of the answers passed, the rest were refused, and every answer tells the same window. */
function assertCountedTogether(answers: Answer[]): number {
  const passed = answers.filter((a) => a.status === 200);
  assert.ok(passed.every((a) => a.headers['x-ratelimit-limit'] === String(LIMIT)), 'every request was counted');
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(passed.length, LIMIT, `statuses: ${answers.map((a) => a.status).join(',')}`);
  assert.equal(refused.length, answers.length - LIMIT);
  for (const r of refused) {
    assert.deepEqual(JSON.parse(r.text), { error: 1, message: 'Too Many API Requests.' });
    assert.equal(r.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(r.headers['retry-after']) >= 1 && Number(r.headers['retry-after']) <= 60, String(r.headers['retry-after']));
  }
  assert.deepEqual(new Set(answers.map((a) => a.headers['x-ratelimit-limit'])), new Set([String(LIMIT)]));
  const resets = new Set(answers.map((a) => a.headers['x-ratelimit-reset']));
  assert.equal(resets.size, 1, `one window end on every process: ${[...resets].join(', ')}`);
  const reset = Number([...resets][0]);
  assert.equal(reset % 60, 0, 'windows are aligned to the minute');
  assert.ok(reset * 1000 > Date.now() && reset * 1000 <= Date.now() + 60_000);
  // Each count was handed out once: remaining 29, 28, … 0 over the three processes together.
  assert.deepEqual(passed.map((a) => Number(a.headers['x-ratelimit-remaining'])).sort((x, y) => x - y), Array.from({ length: LIMIT }, (_, i) => i));
  return reset;
}

if (run) describe('global rate limits across processes', () => {
  const servers: ServerProcess[] = [];
  const proxies: TcpProxy[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => stop(s)));
    await Promise.all(proxies.map((p) => p.close()));
  });
  const start = async (schema: string, env: Record<string, string>, url = DATABASE_URL!) => {
    const s = await startPgServer(schema, url, { RATE_LIMIT: String(LIMIT), ...env });
    servers.push(s);
    return s;
  };

  test('PostgreSQL: 45 requests over 3 processes, exactly 30 pass, the headers agree; cut off, 503 (never 500) and one log line; back, counted again', async () => {
    const schema = newSchema();
    const pgProxy = await TcpProxy.start('127.0.0.1', Number(new URL(DATABASE_URL!).port || 5432));
    proxies.push(pgProxy);
    const viaProxy = viaPort(DATABASE_URL!, pgProxy.port);
    const [first, second, closed] = await Promise.all([start(schema, {}, viaProxy), start(schema, {}), start(schema, { RATE_LIMIT_ON_ERROR: 'closed' }, viaProxy)]);
    const all = [first!, second!, closed!];
    const user = await newUser(first!.url, PROCESS_ADMIN_KEY);
    await awayFromWindowEdge();
    const reset = assertCountedTogether(await burst(all.map((s) => s.url), user.key, 45));
    assert.deepEqual(await sql(`SELECT n, ends_at FROM "${schema}".rate_windows WHERE key = $1`, [`link:${user.id}`]), [{ n: 45, ends_at: String(reset * 1000) }]);
    assert.match(first!.output(), /rate limits: PostgreSQL\)/, 'the start line says where limits count');

    // Keys used a moment ago are known without the store: the limiter is the first to miss it.
    for (const s of [first!, closed!]) assert.equal((await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY })).status, 200);
    await pgProxy.cut();
    // Whatever RATE_LIMIT_ON_ERROR says: the data is in the same database, so 503 at once rather than after a second wait on the store.
    for (let i = 0; i < 3; i++) {
      for (const s of [first!, closed!]) {
        const refused = await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY });
        assert.equal(refused.status, 503, refused.text);
        assert.deepEqual(JSON.parse(refused.text), UNAVAILABLE);
        // 1 from the limiter, or 2 from the store when the cut also dropped the caches (the change feed shares the proxy).
        assert.match(String(refused.headers['retry-after']), /^[12]$/);
        assert.equal(refused.headers['x-ratelimit-remaining'], undefined);
      }
    }
    const unknownKey = await fresh(first!.url, '/api/account', { key: 'sk_never_issued_key_0000000000000000' });
    assert.equal(unknownKey.status, 503, 'a key only the database knows: the store answers 503');
    // The limiter says so once, never once a request; when the cut also dropped the caches the key
    // lookup is refused first and the limiter is never asked, so it may say nothing at all.
    const lost = [first!, closed!].map((s) => linesMatching(s.output(), /rate limits: PostgreSQL cannot be reached \(.+\); rate-limited requests are refused with 503 until it answers again \(the data is in the same database\)/));
    for (const [i, n] of lost.entries()) assert.ok(n <= 1, [first!, closed!][i]!.output());
    await pgProxy.restore();
    for (const [i, s] of [first!, closed!].entries()) {
      assert.ok(await waitFor(async () => (await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY })).headers['x-ratelimit-limit'] === String(LIMIT), 10_000), s.output());
      assert.equal(linesMatching(s.output(), /rate limits: PostgreSQL answers again;/), lost[i]);
      assert.doesNotMatch(s.output(), /unhandled error/);
    }
  });

  test('Redis: 45 requests over 3 processes, exactly 30 pass; Redis cut: open passes without headers, closed answers 503, one line each; back: counted again', { skip: redisOrSkip('global rate limits in Redis') }, async () => {
    const schema = newSchema();
    const prefix = `test:${schema}:`;
    const redisUrl = new URL(REDIS_URL!);
    const proxy = await TcpProxy.start(redisUrl.hostname, Number(redisUrl.port || 6379));
    proxies.push(proxy);
    const viaProxy = { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_PREFIX: prefix };
    const [open1, open2, closed] = await Promise.all([start(schema, viaProxy), start(schema, viaProxy), start(schema, { ...viaProxy, RATE_LIMIT_ON_ERROR: 'closed' })]);
    const all = [open1!, open2!, closed!];
    const user = await newUser(open1!.url, PROCESS_ADMIN_KEY);
    await awayFromWindowEdge();
    const reset = assertCountedTogether(await burst(all.map((s) => s.url), user.key, 45));
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    try {
      assert.deepEqual({ ...(await redis.hGetAll(`${prefix}link:${user.id}`)) }, { e: String(reset * 1000), n: '45' });
      const ttl = await redis.pTTL(`${prefix}link:${user.id}`);
      assert.ok(ttl > 0 && ttl <= 61_000, `the window's key expires after it: ${ttl} ms`);
      const keys = await redis.keys(`${prefix}*`);
      assert.ok(keys.includes(`${prefix}link:${user.id}`) && keys.every((k) => /:link:\d+$/.test(k)), `keys under the prefix: ${keys.join(', ')}`);
    } finally {
      await redis.close();
    }
    assert.equal(linesMatching(closed!.output(), /rate limits: Redis at 127\.0\.0\.1:\d+\)/), 1, 'the start line says where limits count');

    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      for (const s of [open1!, open2!]) {
        const a = await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY });
        assert.equal(a.status, 200, a.text);
        assert.equal(a.headers['x-ratelimit-remaining'], undefined, 'nothing counted: no limit headers');
      }
      const refused = await fresh(closed!.url, '/api/account', { key: PROCESS_ADMIN_KEY });
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual(JSON.parse(refused.text), UNAVAILABLE);
      assert.equal(refused.headers['retry-after'], '1');
    }
    const analytics = await fresh(closed!.url, '/api/v1/websites', { key: PROCESS_ADMIN_KEY });
    assert.equal(analytics.status, 503);
    assert.deepEqual(JSON.parse(analytics.text), { message: UNAVAILABLE.message, status: 503 }, 'the analytics API in its own shape');
    for (const [s, then] of [[open1!, 'requests pass without rate limits'], [closed!, 'rate-limited requests are refused with 503']] as const) {
      assert.equal(linesMatching(s.output(), new RegExp(`rate limits: Redis at 127\\.0\\.0\\.1:${proxy.port} cannot be reached \\(.+\\); ${then}`)), 1, s.output());
    }

    await proxy.restore();
    for (const s of all) {
      assert.ok(await waitFor(async () => (await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY })).headers['x-ratelimit-limit'] === String(LIMIT), 10_000), s.output());
      assert.equal(linesMatching(s.output(), /rate limits: Redis at \S+ answers again;/), 1, s.output());
      assert.doesNotMatch(s.output(), /unhandled error|redis:\/\/[^ ]*@/);
    }
  });
  test('a busy key in slices, 2 processes on PostgreSQL and 2 on Redis: never more than the limit, round trips fall, leftovers go back at the end', async (t) => {
    const SLICED = 1500;
    // A day's window (aligned to UTC midnight): a loaded machine may take a minute over this, and the burst must lie in one window.
    const DAY = { RATE_LIMIT: String(SLICED), RATE_LIMIT_WINDOW: '86400' };
    const pgSchema = newSchema();
    const redisSchema = newSchema();
    const redisEnv = REDIS_URL ? { REDIS_URL, REDIS_PREFIX: `test:${redisSchema}:` } : null;
    const pairs = await Promise.all([
      Promise.all([start(pgSchema, DAY), start(pgSchema, DAY)]),
      ...(redisEnv ? [Promise.all([start(redisSchema, { ...redisEnv, ...DAY }), start(redisSchema, { ...redisEnv, ...DAY })])] : []),
    ]);
    if (!redisEnv) redisOrSkip('sliced rate limits in Redis');
    await awayFromWindowEdge(86_400_000, 180_000);
    await Promise.all(pairs.map(async (pair, i) => {
      const where = i === 0 ? 'PostgreSQL' : 'Redis';
      const user = await newUser(pair[0]!.url, PROCESS_ADMIN_KEY);
      const statuses: number[] = [];
      const get = async (url: string) => {
        const res = await fetch(`${url}/api/account`, { headers: { authorization: `Bearer ${user.key}` } });
        await res.arrayBuffer();
        statuses.push(res.status);
        return res;
      };
      // Past a second each process knows the key's rate and leases slices; at most 1,200 requests, under the limit.
      const until = Date.now() + 2000;
      await Promise.all(pair.map(async (s) => {
        while (Date.now() < until && statuses.length < 1200) await get(s.url);
      }));
      assert.deepEqual(new Set(statuses), new Set([200]), `${where}: under the limit every request passes`);
      // Then across the limit: 4 requests at a time on each process.
      const toSend = SLICED - statuses.length + 100;
      let sent = 0;
      await Promise.all([...pair, ...pair, ...pair, ...pair].map(async (s) => {
        while (sent++ < toSend) await get(s.url);
      }));
      const passed = statuses.filter((x) => x === 200).length;
      assert.ok(passed <= SLICED, `${where}: ${passed} passed of ${statuses.length}, never more than ${SLICED}`);
      assert.ok(passed >= SLICED - 20, `${where}: ${passed} passed: near the limit the processes counted exactly`);
      assert.deepEqual(new Set(statuses.filter((x) => x !== 200)), new Set([429]));
      for (const s of pair) assert.equal(await stop(s, 'SIGTERM'), 0, s.output());
      // Each process says what its limiter cost: requests against round trips (slices, single counts, slices handed back).
      const costs = pair.map((s) => s.output().match(new RegExp(`rate limits: (\\d+) requests decided with (\\d+) round trips to ${where === 'Redis' ? 'Redis at \\S+' : 'PostgreSQL'}`)));
      const decided = costs.reduce((n, m) => n + Number(m?.[1]), 0);
      const trips = costs.reduce((n, m) => n + Number(m?.[2]), 0);
      assert.ok(costs.every(Boolean), pair.map((s) => s.output()).join('\n'));
      assert.equal(decided, statuses.length + 1, 'every request decided once (and the new user\'s creation, by the admin key)');
      t.diagnostic(`${where}: ${passed} of ${statuses.length} passed; ${trips} round trips for ${decided} requests`);
      assert.ok(trips <= decided / 2, `${where}: ${trips} round trips for ${decided} requests`);
      const stored = where === 'PostgreSQL'
        ? Number((await sql<{ n: string }>(`SELECT n FROM "${pgSchema}".rate_windows WHERE key = $1`, [`link:${user.id}`]))[0]?.n)
        : await redisCount(`test:${redisSchema}:link:${user.id}`);
      assert.equal(stored, statuses.length, `${where}: what was leased and not used went back when the processes stopped: the stored count is the requests'`);
    }));
  });
});
