import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../src/app.ts';
import { fixedClock } from '../src/clock.ts';
import { startFakeServer, FAKE_ADMIN_KEY } from '../src/fake/index.ts';
import { seededRandom } from '../src/random.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { TEST_BACKEND } from './backend.ts';
import { openTestStore, testApp } from './helpers.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const visitor = (ip: string, ua = CHROME) => ({ 'x-forwarded-for': ip, 'user-agent': ua });

/** A website of alice's on an app whose clock stands at 10:00:30. */
async function tracked(parts: Parameters<typeof testApp>[1] = {}) {
  const clock = fixedClock('2026-11-21T10:00:30Z');
  const store = parts.store ?? (await openTestStore());
  const counters = parts.counters ?? new DailyCounters(store, { clock, random: seededRandom(3) });
  const app = await testApp({ trustProxy: true }, { clock, store, counters, ...parts });
  const alice = await app.makeUser('alice');
  const created = await app.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'example.com', exclude_ips: '203.0.113.0/24' } });
  const id = created.body.data.id as number;
  const send = async (page: string, headers: Record<string, string>, event?: Record<string, unknown>) => {
    const r = await app.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://example.com${page}`, ...(event ? { event } : {}) }), headers });
    assert.equal(r.status, 202, r.text);
  };
  const realtime = async (key = alice.key) => {
    const r = await app.call('GET', `/api/v1/stats/${id}/realtime`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  return { ...app, clock, store, counters, alice, id, send, realtime };
}

test('the realtime view counts the distinct visitors, pageviews and pages of the last 5 minutes, buffered or stored', async () => {
  const { send, realtime, counters, clock } = await tracked();
  await send('/', visitor('192.0.2.1'));
  await send('/pricing?utm_source=x', visitor('192.0.2.1'));
  await send('/pricing', visitor('192.0.2.2'));
  await send('/', visitor('192.0.2.3', GOOGLEBOT));
  await send('/', visitor('203.0.113.9'));
  await send('/pricing', visitor('192.0.2.2'), { name: 'Signup' });
  const expected = { data: { visitors: 2, pageviews: 3, pages: [{ value: '/pricing', count: 2 }, { value: '/', count: 1 }] }, status: 200 };
  assert.deepEqual(await realtime(), expected, 'from the buffer: bots, excluded IPs and custom events are not pageviews');
  await counters.flush();
  assert.deepEqual(await realtime(), expected, 'the same once stored');
  clock.advance(2 * 60_000);
  await send('/docs', visitor('192.0.2.1'));
  assert.deepEqual((await realtime()).data, { visitors: 2, pageviews: 4, pages: [{ value: '/pricing', count: 2 }, { value: '/', count: 1 }, { value: '/docs', count: 1 }] }, 'a visitor of earlier minutes is one visitor, stored or buffered');
  await counters.flush();
  assert.equal((await realtime()).data.visitors, 2);

  // 10:00:30 + 5:29 = 10:05:59: the minute 10:00 is still in; from 10:06 it is not.
  clock.set('2026-11-21T10:05:59Z');
  assert.deepEqual((await realtime()).data, { visitors: 2, pageviews: 4, pages: [{ value: '/pricing', count: 2 }, { value: '/', count: 1 }, { value: '/docs', count: 1 }] });
  clock.set('2026-11-21T10:06:00Z');
  assert.deepEqual((await realtime()).data, { visitors: 1, pageviews: 1, pages: [{ value: '/docs', count: 1 }] });
  clock.set('2026-11-21T10:08:00Z');
  assert.deepEqual((await realtime()).data, { visitors: 0, pageviews: 0, pages: [] });
});

test('the store forgets minutes past the window when later flushes come; deleting the website drops its window', async () => {
  const { send, counters, clock, store, id, call, alice, realtime } = await tracked();
  const subject = `website:${id}`;
  // The store's pages map has no prototype (labels come from visitors).
  const stored = async () => {
    const r = await store.realtimeCounts(subject, 0, []);
    return { ...r, pages: { ...r.pages } };
  };
  await send('/', visitor('192.0.2.1'));
  await counters.flush();
  assert.deepEqual(await stored(), { visitors: 1, pageviews: 1, pages: { '/': 1 } });
  clock.advance(11 * 60_000);
  await send('/later', visitor('192.0.2.2'));
  await counters.flush();
  assert.deepEqual(await stored(), { visitors: 1, pageviews: 1, pages: { '/later': 1 } }, 'minute 10:00 is gone from the store');
  assert.equal((await realtime()).data.pageviews, 1);
  const gone = await call('DELETE', `/api/v1/websites/${id}`, { key: alice.key });
  assert.equal(gone.status, 200, gone.text);
  assert.deepEqual(await stored(), { visitors: 0, pageviews: 0, pages: {} });
});

test('the realtime view has the stats API\'s auth: a key, and the website\'s owner only', async () => {
  const { call, id, makeUser } = await tracked();
  const bob = await makeUser('bob');
  const theirs = await call('GET', `/api/v1/stats/${id}/realtime`, { key: bob.key });
  assert.deepEqual([theirs.status, theirs.body], [404, { message: 'Resource not found.', status: 404 }]);
  assert.equal((await call('GET', `/api/v1/stats/${id}/realtime`, { key: null })).status, 401);
  assert.equal((await call('GET', '/api/v1/stats/99999/realtime')).status, 404);
});

test('pages past maxLabels in a minute count under (other); the answer lists the 100 most viewed', async () => {
  const store = await openTestStore();
  const clock = fixedClock('2026-11-21T10:00:30Z');
  const { send, realtime, counters } = await tracked({ store, clock, counters: new DailyCounters(store, { clock, random: seededRandom(3), maxLabels: 2 }) });
  for (const page of ['/a', '/b', '/c', '/d', '/a']) await send(page, visitor('192.0.2.1'));
  assert.deepEqual((await realtime()).data.pages, [{ value: '(other)', count: 2 }, { value: '/a', count: 2 }, { value: '/b', count: 1 }]);
  await counters.flush();
  assert.deepEqual((await realtime()).data.pages, [{ value: '(other)', count: 2 }, { value: '/a', count: 2 }, { value: '/b', count: 1 }]);
});

test('processes sharing PostgreSQL count one visitor once and every pageview, whichever flushed', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only: the JSON files belong to one process' }, async () => {
  const first = await tracked();
  // A second process on the same database: its own buffer, random source and salt cache.
  const counters = new DailyCounters(first.store, { clock: first.clock, random: seededRandom(99) });
  const other = createApp({ store: first.store, config: first.config, clock: first.clock, random: seededRandom(99), counters });
  const sendOther = (page: string, ip: string) => other.request('/api/event', { method: 'POST', body: JSON.stringify({ page: `https://example.com${page}` }), headers: { 'x-forwarded-for': ip, 'user-agent': CHROME } });
  await first.send('/', visitor('192.0.2.1'));
  assert.equal((await sendOther('/x', '192.0.2.1')).status, 202);
  assert.equal((await sendOther('/y', '192.0.2.2')).status, 202);
  await counters.flush();
  // The first process has its visitor buffered, the other's are stored: the same person counts once.
  assert.deepEqual((await first.realtime()).data, { visitors: 2, pageviews: 3, pages: [{ value: '/', count: 1 }, { value: '/x', count: 1 }, { value: '/y', count: 1 }] });
  await first.counters.flush();
  assert.deepEqual((await first.realtime()).data, { visitors: 2, pageviews: 3, pages: [{ value: '/', count: 1 }, { value: '/x', count: 1 }, { value: '/y', count: 1 }] });
  const fromOther = await other.request(`/api/v1/stats/${first.id}/realtime`, { headers: { authorization: `Bearer ${first.alice.key}` } });
  assert.deepEqual((await fromOther.json()).data, { visitors: 2, pageviews: 3, pages: [{ value: '/', count: 1 }, { value: '/x', count: 1 }, { value: '/y', count: 1 }] });
});

test("the fake backend's clock drives the realtime view, and a reset empties it", async () => {
  const fake = await startFakeServer({ now: '2026-03-01T12:00:00Z' });
  try {
    const auth = { authorization: `Bearer ${FAKE_ADMIN_KEY}` };
    const site = await fake.app.request('/api/v1/websites', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'shop.example' }) });
    const id = (await site.json()).data.id as number;
    const view = async () => (await (await fake.app.request(`/api/v1/stats/${id}/realtime`, { headers: auth })).json()).data;
    const event = await fake.app.request('/api/event', { method: 'POST', body: JSON.stringify({ page: 'https://shop.example/cart' }), headers: { 'user-agent': CHROME } });
    assert.equal(event.status, 202);
    assert.deepEqual(await view(), { visitors: 1, pageviews: 1, pages: [{ value: '/cart', count: 1 }] });
    fake.clock.advance(6 * 60_000);
    assert.deepEqual(await view(), { visitors: 0, pageviews: 0, pages: [] });
    fake.clock.advance(-6 * 60_000);
    assert.deepEqual((await view()).pageviews, 1);
    await fake.reset();
    const again = await fake.app.request('/api/v1/websites', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'shop.example' }) });
    assert.equal((await again.json()).data.id, id, 'the same id after a reset');
    assert.deepEqual(await view(), { visitors: 0, pageviews: 0, pages: [] });
  } finally {
    await fake.close();
  }
});
