/**
 * The short cuts on the hottest paths (issue 7) answer exactly what the long way does: cached list
 * pages, remembered keys, rate-limit headers set on Node's response, plain-header redirects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PageCache } from '../src/http/page-cache.ts';
import { uncachedRedirect } from '../src/routes/pages/redirects.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { fixedClock } from '../src/clock.ts';
import { seededRandom } from '../src/random.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { dayOf, hourOf } from '../src/visits/visitor.ts';
import { LIVE_ADMIN_KEY, liveServer, visit } from './live-server.ts';
import { awayFromWindowEdge } from './limits-helpers.ts';

async function cacheParts() {
  const store = await FileStore.open({ dir: ':memory:', collections: ['things', 'stats'] });
  const counters = new DailyCounters(store, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1), flushMs: 60_000 });
  return { store, counters };
}

test('PageCache: a page is built once until the store or the counters change', async () => {
  const parts = await cacheParts();
  const cache = new PageCache(parts);
  let builds = 0;
  const build = async () => `page ${++builds}`;
  assert.equal(await cache.get('1?page=1', build), 'page 1');
  assert.equal(await cache.get('1?page=1', build), 'page 1', 'kept');
  assert.equal(await cache.get('2?page=1', build), 'page 2', 'another user or query is another page');
  await parts.store.transaction((tx) => tx.insert('things', { name: 'x' }));
  assert.equal(await cache.get('1?page=1', build), 'page 3', 'a write anywhere in the store rebuilds');
  parts.counters.record('link:1', { add: { clicks: 1 } });
  assert.equal(await cache.get('1?page=1', build), 'page 4', 'a counted event rebuilds');
  assert.equal(await cache.get('1?page=1', build), 'page 4');
  await assert.rejects(() => cache.get('3', async () => { throw new Error('bad query'); }), /bad query/);
  assert.equal(await cache.get('3', build), 'page 5', 'a build that threw kept nothing');
  await parts.counters.close();
  await parts.store.close();
});

test('PageCache: bounded by characters, oldest out first; a page over the budget is never kept', async () => {
  const parts = await cacheParts();
  const cache = new PageCache(parts, 10);
  let builds = 0;
  const page = (text: string) => async () => (builds++, text);
  await cache.get('a', page('aaaa'));
  await cache.get('b', page('bbbb'));
  await cache.get('c', page('cccc')); // 12 > 10: 'a' goes
  assert.equal(builds, 3);
  await cache.get('b', page('bbbb'));
  await cache.get('c', page('cccc'));
  assert.equal(builds, 3, 'b and c are still held');
  await cache.get('a', page('aaaa'));
  assert.equal(builds, 4, 'a was dropped');
  await cache.get('huge', page('x'.repeat(11)));
  await cache.get('huge', page('x'.repeat(11)));
  assert.equal(builds, 6, 'a page larger than the budget is built every time');
  await cache.get('c', page('cccc'));
  assert.equal(builds, 6, 'and pushed nothing out');
  await parts.counters.close();
  await parts.store.close();
});

test('dayOf and hourOf stay right when times jump back and forth across hours and days', () => {
  const times = [Date.UTC(2026, 10, 21, 23, 59, 59, 999), Date.UTC(2026, 10, 22, 0, 0, 0), Date.UTC(2026, 10, 21, 23, 0, 0), Date.UTC(1969, 11, 31, 23, 30), Date.UTC(2026, 10, 22, 0, 59, 59, 999)];
  for (const ms of [...times, ...times.reverse()]) {
    const iso = new Date(ms).toISOString();
    assert.equal(dayOf(ms), iso.slice(0, 10));
    assert.equal(hourOf(ms), `${iso.slice(0, 10)} ${iso.slice(11, 13)}`);
  }
  assert.throws(() => hourOf(Number.POSITIVE_INFINITY), RangeError);
});

test('uncachedRedirect answers like c.redirect, with no-store: Location encoded only when it must be', async () => {
  const plain = uncachedRedirect('https://example.com/a?b=c', 302);
  assert.equal(plain.status, 302);
  assert.equal(plain.headers.get('location'), 'https://example.com/a?b=c');
  assert.equal(plain.headers.get('cache-control'), 'no-store');
  assert.equal(await plain.text(), '');
  const unicode = uncachedRedirect('https://example.com/straße/日本', 301);
  assert.equal(unicode.status, 301);
  assert.equal(unicode.headers.get('location'), 'https://example.com/stra%C3%9Fe/%E6%97%A5%E6%9C%AC');
});

test('over real HTTP: cached list pages follow every change, rate-limit headers ride on Node\'s response', async (t) => {
  const server = await liveServer(':memory:', { rateLimit: 1000 });
  t.after(() => server.close());
  const get = async (path: string, key = LIVE_ADMIN_KEY) => {
    const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  const add = async (data: string, key = LIVE_ADMIN_KEY) => {
    const res = await fetch(`${server.url}/api/qr/add`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'link', data, name: data }) });
    assert.equal(res.status, 200);
    return (await res.json()) as { id: number; link: string };
  };

  await t.test('the list answers what the in-process app answers, with the limiter\'s headers', async () => {
    await add('https://example.com/one');
    const live = await get('/api/qr?limit=25&page=1');
    assert.equal(live.status, 200);
    assert.equal(live.headers.get('content-type'), 'application/json');
    assert.equal(live.headers.get('x-ratelimit-limit'), '1000');
    assert.match(live.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
    assert.match(live.headers.get('x-ratelimit-reset') ?? '', /^\d{10}$/);
    const inProcess = await server.app.request('/api/qr?limit=25&page=1', { headers: { authorization: `Bearer ${LIVE_ADMIN_KEY}` } });
    assert.deepEqual(live.body, await inProcess.json());
    const missing = await get('/api/qr/999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-ratelimit-limit'), '1000', 'errors carry them too');
  });

  await t.test('a new record, a scan and another user each change what is listed', async () => {
    const before = await get('/api/qr?limit=25&page=1');
    const made = await add('https://example.com/two');
    const after = await get('/api/qr?limit=25&page=1');
    assert.equal(after.body.data.result, before.body.data.result + 1);
    assert.equal(after.body.data.qrs[0].id, made.id);
    assert.equal(after.body.data.qrs[0].scans, 0);
    const alias = made.link.split('/').pop()!;
    const scan = await visit(`${server.url}/qr/${alias}/scan`, { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36' });
    assert.equal(scan.status, 302);
    assert.equal(scan.headers.get('cache-control'), 'no-store');
    assert.equal(scan.headers.get('location'), 'https://example.com/two');
    assert.equal((await get('/api/qr?limit=25&page=1')).body.data.qrs[0].scans, 1, 'the scan shows at once, before any flush');
    const other = await fetch(`${server.url}/api/user/add`, { method: 'POST', headers: { authorization: `Bearer ${LIVE_ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'other', email: 'other@example.com', password: 'secret-pw' }) });
    const { apikey } = ((await other.json()) as { data: { apikey: string } }).data;
    const theirs = await get('/api/qr?limit=25&page=1', apikey);
    assert.deepEqual(theirs.body.data.qrs, [], 'same query, another user: their own (empty) list');
    assert.equal((await get('/api/qr?limit=25&page=1')).body.data.qrs.length, 2);
  });

  await t.test('a remembered key stops working the moment it is rotated', async () => {
    const other = await fetch(`${server.url}/api/user/add`, { method: 'POST', headers: { authorization: `Bearer ${LIVE_ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'rotor', email: 'rotor@example.com', password: 'secret-pw' }) });
    const { apikey } = ((await other.json()) as { data: { apikey: string } }).data;
    assert.equal((await get('/api/account', apikey)).status, 200);
    assert.equal((await get('/api/account', apikey)).status, 200);
    const rotated = await fetch(`${server.url}/api/account/rotate-key`, { method: 'POST', headers: { authorization: `Bearer ${apikey}`, 'content-type': 'application/json' }, body: '{}' });
    const fresh = ((await rotated.json()) as { apikey: string }).apikey;
    assert.equal((await get('/api/account', apikey)).status, 401);
    assert.equal((await get('/api/account', fresh)).status, 200);
  });
});

test('over real HTTP: the rate limit still ends at exactly RATE_LIMIT, with Retry-After', async (t) => {
  const server = await liveServer(':memory:', { rateLimit: 3 });
  t.after(() => server.close());
  // Windows are aligned to the minute (as every process counts them): four requests must not straddle one's end.
  await awayFromWindowEdge(60_000, 3000);
  const got = [];
  for (let i = 0; i < 4; i++) got.push(await fetch(`${server.url}/api/qr`, { headers: { authorization: `Bearer ${LIVE_ADMIN_KEY}` } }));
  assert.deepEqual(got.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')]), [[200, '2'], [200, '1'], [200, '0'], [429, '0']]);
  assert.match(got[3]!.headers.get('retry-after') ?? '', /^\d+$/);
  assert.deepEqual(await got[3]!.json(), { error: 1, message: 'Too Many API Requests.' });
});
