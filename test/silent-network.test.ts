import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROCESS_ADMIN_KEY } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';
import { DATABASE_URL, newSchema, sql, startPgServer, stop, viaPort, waitFor } from './pg-server.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { fresh, linesMatching, REDIS_URL } from './limits-helpers.ts';
import type { Answer } from './limits-helpers.ts';
import { MIN_SLICE } from '../src/limits/key-tally.ts';

/**
 * A network that goes silent (packets dropped, nothing closed) and comes back without the
 * connections that lived through it (a NAT or firewall that forgot them: they stay silent for
 * good), between real servers and PostgreSQL or Redis, through a TCP proxy the test controls.
 * While silent, every request that needs the database answers 503 within DATABASE_TIMEOUT (small
 * here, to keep the file short); /ready says so and /health does not; once the network is back,
 * the server notices its dead connections by their unanswered pings and serves again within 5 s,
 * the rate limits in both RATE_LIMIT_ON_ERROR modes included. It reads TEST_DATABASE_URL (and
 * TEST_REDIS_URL for the Redis part) itself.
 */
if (!DATABASE_URL) console.log('# silent network tests skipped (TEST_DATABASE_URL is not set)');
else if (!REDIS_URL) console.log('# silent network tests of Redis skipped (TEST_REDIS_URL is not set)');

const TIMEOUT_S = 1.5;
/** What a request may take past DATABASE_TIMEOUT: the HTTP round trip on a busy machine. */
const SLACK_MS = 800;
/** The issue's bound on an outage after the network's return. */
const BACK_WITHIN_MS = 5000;
const UNAVAILABLE = 'The service is temporarily unavailable. Please try again in a moment.';
const LEAK = /\b(SELECT|INSERT|UPDATE|DELETE FROM)\b|\n\s+at |node_modules/;

/** A request's answer and how long it took. */
async function timed(url: string, path: string, init: { method?: string; key?: string; body?: unknown } = {}): Promise<Answer & { ms: number }> {
  const started = Date.now();
  const answer = await fresh(url, path, init);
  return { ...answer, ms: Date.now() - started };
}

/** How long after `since` `check` first held (polled every 50 ms), or null when not within `ms`. */
async function backAfter(since: number, check: () => Promise<boolean>, ms = BACK_WITHIN_MS + 3000): Promise<number | null> {
  return (await waitFor(check, ms)) ? Date.now() - since : null;
}

const counted = (a: Answer) => a.status === 200 && a.headers['x-ratelimit-limit'] !== undefined;

if (DATABASE_URL) describe('a silent network between the server and its services', () => {
  const servers: ServerProcess[] = [];
  const proxies: TcpProxy[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => stop(s)));
    await Promise.all(proxies.map((p) => p.close()));
  });
  const proxyTo = async (url: string, port: number) => {
    const proxy = await TcpProxy.start(new URL(url).hostname, Number(new URL(url).port || port));
    proxies.push(proxy);
    return proxy;
  };

  test('PostgreSQL: 503 within DATABASE_TIMEOUT for every request (queued ones too), /ready 503, /health 200; back within 5 s of the network, limits and notifications included', async (t) => {
    const schema = newSchema();
    const proxy = await proxyTo(DATABASE_URL!, 5432);
    const server = await startPgServer(schema, viaPort(DATABASE_URL!, proxy.port), { DATABASE_TIMEOUT: String(TIMEOUT_S), RATE_LIMIT: '1000' });
    servers.push(server);
    const link = await fresh(server.url, '/api/url/add', { method: 'POST', key: PROCESS_ADMIN_KEY, body: { url: 'https://example.com/silent', custom: 'silent' } });
    assert.equal(link.status, 200, link.text);
    const id = (JSON.parse(link.text) as { id: number }).id;
    // Every pooled connection (DATABASE_POOL=4) used, and the change feed listening.
    assert.ok((await Promise.all(Array.from({ length: 6 }, () => fresh(server.url, '/api/urls', { key: PROCESS_ADMIN_KEY })))).every(counted));
    const ready = await fresh(server.url, '/ready');
    assert.deepEqual([ready.status, JSON.parse(ready.text)], [200, { status: 'ready', checks: { store: 'ok' } }]);

    proxy.stall();
    // More requests than connections, writes among them: those queued behind the silent ones
    // (for a connection, or for the group commit's runners) are bounded by the same deadline.
    const during = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => timed(server.url, '/api/url/add', { method: 'POST', key: PROCESS_ADMIN_KEY, body: { url: `https://example.com/lost${i}`, custom: `lost${i}` } })),
      ...Array.from({ length: 4 }, () => timed(server.url, `/api/url/${id}`, { key: PROCESS_ADMIN_KEY })),
      timed(server.url, '/api/v1/websites', { key: PROCESS_ADMIN_KEY }),
      timed(server.url, '/never-looked-up'),
    ]);
    for (const r of during) {
      assert.equal(r.status, 503, r.text);
      assert.ok(r.ms < TIMEOUT_S * 1000 + SLACK_MS, `answered in ${r.ms} ms`);
      assert.ok(Number(r.headers['retry-after']) >= 1, `Retry-After: ${r.headers['retry-after']}`);
      assert.doesNotMatch(r.text, LEAK);
    }
    for (const r of during.slice(0, 8)) assert.deepEqual(JSON.parse(r.text), { error: 1, message: UNAVAILABLE });
    assert.deepEqual(JSON.parse(during[8]!.text), { message: UNAVAILABLE, status: 503 });
    const notReady = await timed(server.url, '/ready');
    assert.equal(notReady.status, 503, notReady.text);
    assert.deepEqual(JSON.parse(notReady.text), { status: 'unavailable', checks: { store: 'unavailable' } });
    assert.ok(notReady.ms < 2000 + SLACK_MS, `/ready answered in ${notReady.ms} ms`);
    assert.equal(notReady.headers['retry-after'], '1');
    const health = await timed(server.url, '/health');
    // Liveness reads nothing from the database: it answers before a store read could time out.
    assert.deepEqual([health.status, health.ms < TIMEOUT_S * 1000], [200, true], `alive: the process runs (${health.ms} ms)`);
    // The listening connection's ping went unanswered: the feed says it cannot hear.
    assert.ok(await waitFor(() => /PostgreSQL change notifications are not heard/.test(server.output()), 4000), server.output());

    proxy.heal();
    const healedAt = Date.now();
    // Through the PostgreSQL limiter (counted: the X-RateLimit headers) and the store.
    const api = await backAfter(healedAt, async () => counted(await fresh(server.url, `/api/url/${id}`, { key: PROCESS_ADMIN_KEY })));
    const readyAgain = await backAfter(healedAt, async () => (await fresh(server.url, '/ready')).status === 200);
    const heard = await backAfter(healedAt, async () => /PostgreSQL change notifications are heard again/.test(server.output()));
    t.diagnostic(`slowest 503 while silent: ${Math.max(...during.map((r) => r.ms))} ms; back after the network: API ${api} ms, /ready ${readyAgain} ms, notifications ${heard} ms`);
    assert.ok(api !== null && api < BACK_WITHIN_MS, `the API counted and answered again ${api} ms after the network's return`);
    assert.ok(readyAgain !== null && readyAgain < BACK_WITHIN_MS, `/ready 200 again after ${readyAgain} ms`);
    assert.ok(heard !== null && heard < BACK_WITHIN_MS, `notifications heard again after ${heard} ms`);
    const after = await fresh(server.url, '/api/url/add', { method: 'POST', key: PROCESS_ADMIN_KEY, body: { url: 'https://example.com/after', custom: 'after' } });
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(
      (await sql<{ alias: string }>(`SELECT data->>'alias' AS alias FROM "${schema}".links ORDER BY id`)).map((r) => r.alias),
      ['silent', 'after'],
      'the creates answered 503 stored nothing',
    );
    assert.equal(server.child.exitCode, null);
    assert.doesNotMatch(server.output(), LEAK);
  });

  test('PostgreSQL: a silent drop and its repair while the server was idle: its dead pooled connections cost one ping, not a request each', async (t) => {
    const schema = newSchema();
    const proxy = await proxyTo(DATABASE_URL!, 5432);
    const server = await startPgServer(schema, viaPort(DATABASE_URL!, proxy.port), { DATABASE_TIMEOUT: String(TIMEOUT_S), RATE_LIMIT: '1000' });
    servers.push(server);
    assert.ok((await Promise.all(Array.from({ length: 6 }, () => fresh(server.url, '/api/urls', { key: PROCESS_ADMIN_KEY })))).every(counted));
    // No request meanwhile: the pool's connections are idle, last heard from before the silence.
    proxy.stall();
    await sleep(2500);
    proxy.heal();
    const healedAt = Date.now();
    const answers: (Answer & { ms: number })[] = [];
    for (let i = 0; i < 8; i++) answers.push(await timed(server.url, '/api/urls', { key: PROCESS_ADMIN_KEY }));
    t.diagnostic(`after the repair: ${answers.map((a) => `${a.status} in ${a.ms} ms`).join(', ')}`);
    assert.deepEqual(answers.map((a) => counted(a)), answers.map(() => true), answers.map((a) => a.text).join('\n'));
    assert.ok(answers[0]!.ms < TIMEOUT_S * 1000 + SLACK_MS, `the first request took ${answers[0]!.ms} ms`);
    assert.ok(Date.now() - healedAt < BACK_WITHIN_MS, `eight requests took ${Date.now() - healedAt} ms`);
  });

  if (REDIS_URL) test('Redis: while silent, open passes without limits and closed answers 503 (and /ready 503); after the network is back, both count again within 5 s', async (t) => {
    const schema = newSchema();
    const proxy = await proxyTo(REDIS_URL!, 6379);
    const env = { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_PREFIX: `test:${schema}:`, RATE_LIMIT: '1000' };
    const [open, closed] = await Promise.all([startPgServer(schema, DATABASE_URL!, env), startPgServer(schema, DATABASE_URL!, { ...env, RATE_LIMIT_ON_ERROR: 'closed' })]);
    servers.push(open, closed);
    for (const s of [open, closed]) {
      assert.ok(counted(await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY })), 'counted in Redis');
      assert.deepEqual(JSON.parse((await fresh(s.url, '/ready')).text), { status: 'ready', checks: { store: 'ok', redis: 'ok' } });
    }

    proxy.stall();
    await sleep(300);
    // Far from its limit of 1,000, the key leased a slice with its first request: what is left of it
    // is still handed out, counted, without Redis (fewer than MIN_SLICE requests); then the outage shows.
    for (const s of [open, closed]) {
      let fromSlice = 0;
      while (fromSlice < MIN_SLICE && counted(await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY }))) fromSlice++;
      assert.ok(fromSlice < MIN_SLICE, `${fromSlice} requests answered from the slice leased before the silence`);
    }
    for (let i = 0; i < 3; i++) {
      const passed = await timed(open.url, '/api/account', { key: PROCESS_ADMIN_KEY });
      assert.equal(passed.status, 200, passed.text);
      assert.equal(passed.headers['x-ratelimit-limit'], undefined, 'nothing counted: no limit headers');
      assert.ok(passed.ms < 500 + SLACK_MS, `answered in ${passed.ms} ms`);
      const refused = await timed(closed.url, '/api/account', { key: PROCESS_ADMIN_KEY });
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual(JSON.parse(refused.text), { error: 1, message: UNAVAILABLE });
      assert.equal(refused.headers['retry-after'], '1');
    }
    // The Redis of closed stops every API request: not ready. The Redis of open stops nothing: ready, and says what is missing.
    assert.ok(await waitFor(async () => (await fresh(closed.url, '/ready')).status === 503, 3000), 'closed: /ready 503');
    assert.deepEqual(JSON.parse((await fresh(closed.url, '/ready')).text), { status: 'unavailable', checks: { store: 'ok', redis: 'unavailable' } });
    const openReady = await fresh(open.url, '/ready');
    assert.deepEqual([openReady.status, JSON.parse(openReady.text)], [200, { status: 'ready', checks: { store: 'ok', redis: 'unavailable' } }]);

    proxy.heal();
    const healedAt = Date.now();
    const back = await Promise.all([open, closed].map((s) => backAfter(healedAt, async () => counted(await fresh(s.url, '/api/account', { key: PROCESS_ADMIN_KEY })))));
    t.diagnostic(`counted again after the network: open ${back[0]} ms, closed ${back[1]} ms`);
    assert.ok(back.every((ms) => ms !== null && ms < BACK_WITHIN_MS), `counted again after ${back.join(' and ')} ms (open, closed)`);
    assert.ok(await waitFor(async () => (await fresh(closed.url, '/ready')).status === 200, 2000), 'closed: ready again');
    for (const s of [open, closed]) {
      assert.equal(linesMatching(s.output(), /rate limits: Redis at \S+ cannot be reached/), 1, s.output());
      assert.equal(linesMatching(s.output(), /rate limits: Redis at \S+ answers again;/), 1, s.output());
      assert.doesNotMatch(s.output(), /unhandled error/);
    }
  });
});
