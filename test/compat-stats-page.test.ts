import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flatPage, pageWindow } from '../src/analytics/flat-page.ts';
import { testApp } from './helpers.ts';

// Issue 16, item 13: stats answer the real product's flat Laravel paginator; websites carry
// favorited_at; page links keep every query parameter.
test('pageWindow: every page when few, else start, a window of 3 each side, end (Laravel UrlWindow)', () => {
  const cases: [current: number, last: number, want: (number | null)[]][] = [
    [1, 1, [1]],
    [2, 13, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]],
    [1, 20, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 19, 20]],
    [10, 20, [1, 2, null, 7, 8, 9, 10, 11, 12, 13, null, 19, 20]],
    [20, 20, [1, 2, null, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]],
  ];
  for (const [current, last, want] of cases) assert.deepEqual(pageWindow(current, last), want, `${current}/${last}`);
});

test('flatPage: the shape of Laravel\'s toArray(), with status 200', () => {
  const rows = Array.from({ length: 25 }, (_, i) => ({ value: `v${i}`, count: 25 - i }));
  const p = flatPage(rows, 2, 10, 'http://sho.rt/api/v1/stats/1', { name: 'page', x: 'y' });
  const url = (n: number) => `http://sho.rt/api/v1/stats/1?name=page&x=y&page=${n}`;
  const { data, links, ...rest } = p;
  assert.deepEqual(data.map((r) => r.value), ['v10', 'v11', 'v12', 'v13', 'v14', 'v15', 'v16', 'v17', 'v18', 'v19']);
  assert.deepEqual(rest, {
    current_page: 2, first_page_url: url(1), from: 11, last_page: 3, last_page_url: url(3), next_page_url: url(3),
    path: 'http://sho.rt/api/v1/stats/1', per_page: 10, prev_page_url: url(1), to: 20, total: 25, status: 200,
  });
  assert.deepEqual(links, [
    { url: url(1), label: '&laquo; Previous', active: false },
    { url: url(1), label: '1', active: false },
    { url: url(2), label: '2', active: true },
    { url: url(3), label: '3', active: false },
    { url: url(3), label: 'Next &raquo;', active: false },
  ]);
  const empty = flatPage([], 1, 50, 'http://sho.rt/p', {});
  assert.deepEqual([empty.from, empty.to, empty.last_page, empty.prev_page_url, empty.next_page_url, empty.total], [null, null, 1, null, null, 0]);
});

test('GET /api/v1/stats/{id}: flat paginator, count desc by default, value ordering on request, links keep every parameter', async () => {
  const t = await testApp({ analyticsRateLimit: 10000 });
  const alice = await t.makeUser('alice');
  const site = await t.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'shop.example.com' } });
  const hits: [string, number][] = [['/a', 1], ['/b', 3], ['/c', 2], ['/d', 3]];
  for (const [page, n] of hits) {
    for (let i = 0; i < n; i++) {
      const r = await t.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://shop.example.com${page}` }), headers: { 'content-type': 'text/plain' } });
      assert.equal(r.status, 202);
    }
  }
  const base = `/api/v1/stats/${site.body.data.id}?name=page&from=2026-11-21&to=2026-11-21`;
  const get = (q: string) => t.call('GET', base + q, { key: alice.key });
  const byCount = await get('');
  assert.equal(byCount.status, 200);
  assert.deepEqual(Object.keys(byCount.body), ['current_page', 'data', 'first_page_url', 'from', 'last_page', 'last_page_url', 'links', 'next_page_url', 'path', 'per_page', 'prev_page_url', 'to', 'total', 'status']);
  assert.deepEqual(byCount.body.data, [{ value: '/b', count: 3 }, { value: '/d', count: 3 }, { value: '/c', count: 2 }, { value: '/a', count: 1 }], 'count desc, ties by value');
  assert.equal(byCount.body.meta, undefined);
  assert.deepEqual((await get('&sort=asc')).body.data.map((r: { value: string }) => r.value), ['/a', '/c', '/b', '/d']);
  assert.deepEqual((await get('&sort_by=value')).body.data.map((r: { value: string }) => r.value), ['/d', '/c', '/b', '/a']);
  const paged = await get('&per_page=10&utm=kept&search=');
  assert.equal(paged.body.first_page_url, `http://sho.rt${base}&per_page=10&utm=kept&search=&page=1`, 'every query parameter, even unknown or empty, is kept');
});

test('websites carry favorited_at: stamped when made a favourite, null when not', async () => {
  const t = await testApp();
  const alice = await t.makeUser('alice');
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { key: alice.key, body });
  const plain = await call('POST', '/api/v1/websites', { domain: 'plain.example.com' });
  assert.equal(plain.body.data.favorited_at, null);
  const fav = await call('POST', '/api/v1/websites', { domain: 'fav.example.com', favorite: 1 });
  assert.equal(fav.body.data.favorited_at, '2026-11-21T10:00:00.000000Z');
  t.clock.advance(60_000);
  const made = await call('PATCH', `/api/v1/websites/${plain.body.data.id}`, { favorite: true });
  assert.equal(made.body.data.favorited_at, '2026-11-21T10:01:00.000000Z');
  t.clock.advance(60_000);
  const again = await call('PATCH', `/api/v1/websites/${plain.body.data.id}`, { favorite: true, email: 1 });
  assert.equal(again.body.data.favorited_at, '2026-11-21T10:01:00.000000Z', 'staying a favourite keeps the first stamp');
  const unmade = await call('PUT', `/api/v1/websites/${fav.body.data.id}`, { favorite: false });
  assert.equal(unmade.body.data.favorited_at, null);
  const stored = await t.store.get('websites', plain.body.data.id);
  assert.equal(stored?.favorited_at, '2026-11-21T10:01:00.000000Z');
  const list = await call('GET', '/api/v1/websites?favorite=1');
  assert.deepEqual(list.body.data.map((w: { favorited_at: string }) => w.favorited_at), ['2026-11-21T10:01:00.000000Z']);
});
