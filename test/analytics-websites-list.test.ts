import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

// Twelve websites: ids 1..12, domains in an order unlike the ids, every third one a favorite.
const DOMAINS = ['kilo', 'alpha', 'lima', 'bravo', 'juliet', 'charlie', 'india', 'delta', 'hotel', 'echo', 'golf', 'foxtrot'].map((d) => `${d}.example.com`);

async function knownSet() {
  const app = await testApp({ rateLimit: 10000, analyticsRateLimit: 10000 });
  const alice = await app.makeUser('alice');
  for (const [i, domain] of DOMAINS.entries()) {
    const r = await app.call('POST', '/api/v1/websites', { key: alice.key, body: { domain } });
    assert.equal(r.status, 201, r.text);
    if (i % 3 === 0) await app.call('PATCH', `/api/v1/websites/${r.body.data.id}`, { key: alice.key, body: { favorite: true } });
  }
  const list = (query: string) => app.call('GET', `/api/v1/websites${query}`, { key: alice.key });
  return { ...app, alice, list };
}

const ids = (body: { data: { id: number }[] }) => body.data.map((w) => w.id);

test('list: newest first, 50 per page, the Laravel envelope with absolute links', async () => {
  const { list } = await knownSet();
  const r = await list('');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(ids(r.body), [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  assert.deepEqual(r.body.links, { first: 'http://sho.rt/api/v1/websites?page=1', last: 'http://sho.rt/api/v1/websites?page=1', prev: null, next: null });
  assert.deepEqual(r.body.meta, { current_page: 1, from: 1, last_page: 1, path: 'http://sho.rt/api/v1/websites', per_page: 50, to: 12, total: 12 });
  assert.equal(r.body.status, 200);
  assert.deepEqual(Object.keys(r.body.data[0]), ['id', 'domain', 'privacy', 'email', 'password', 'exclude_bots', 'exclude_params', 'exclude_ips', 'favorite', 'favorited_at', 'receives_events', 'verified_at', 'created_at', 'updated_at']);
});

test('list: sorting by domain and id, both directions', async () => {
  const { list } = await knownSet();
  const byDomain = await list('?sort_by=domain&sort=asc');
  assert.deepEqual(byDomain.body.data.map((w: { domain: string }) => w.domain), [...DOMAINS].sort());
  const desc = await list('?sort_by=domain');
  assert.deepEqual(desc.body.data.map((w: { domain: string }) => w.domain), [...DOMAINS].sort().reverse());
  const oldest = await list('?sort_by=id&sort=asc');
  assert.deepEqual(ids(oldest.body), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
});

test('list: search by domain and favorite filter', async () => {
  const { list } = await knownSet();
  const search = await list('?search=LI&search_by=domain');
  assert.deepEqual(search.body.data.map((w: { domain: string }) => w.domain), ['charlie.example.com', 'juliet.example.com', 'lima.example.com']);
  assert.equal(search.body.meta.total, 3);
  const favorites = await list('?favorite=1');
  assert.deepEqual(ids(favorites.body), [10, 7, 4, 1]);
  assert.deepEqual(ids((await list('?favorite=true')).body), [10, 7, 4, 1]);
  assert.deepEqual(ids((await list('?favorite=0&per_page=10')).body), [12, 11, 9, 8, 6, 5, 3, 2]);
  assert.deepEqual((await list('?search=nothing-matches')).body.meta, { current_page: 1, from: null, last_page: 1, path: 'http://sho.rt/api/v1/websites', per_page: 50, to: null, total: 0 });
});

test('list: pagination keeps the query in the links', async () => {
  const { list } = await knownSet();
  const first = await list('?sort=asc&per_page=10');
  assert.deepEqual(ids(first.body), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(first.body.links, {
    first: 'http://sho.rt/api/v1/websites?sort=asc&per_page=10&page=1',
    last: 'http://sho.rt/api/v1/websites?sort=asc&per_page=10&page=2',
    prev: null,
    next: 'http://sho.rt/api/v1/websites?sort=asc&per_page=10&page=2',
  });
  const second = await list('?sort=asc&page=2&per_page=10');
  assert.deepEqual(ids(second.body), [11, 12]);
  assert.deepEqual([second.body.meta.current_page, second.body.meta.from, second.body.meta.to, second.body.meta.last_page], [2, 11, 12, 2]);
  assert.deepEqual([second.body.links.prev, second.body.links.next], ['http://sho.rt/api/v1/websites?sort=asc&per_page=10&page=1', null]);
  const past = await list('?per_page=10&page=5');
  assert.deepEqual([past.status, past.body.data, past.body.meta.from, past.body.meta.to], [200, [], null, null]);
  const spaced = await list('?search=a%20b&unknown=x');
  assert.equal(spaced.body.links.first, 'http://sho.rt/api/v1/websites?search=a+b&unknown=x&page=1', 'every query parameter is kept (issue 16, item 13)');
});

test('list: an invalid favorite or page is a 422 naming it (per_page, sort, sort_by, search_by fall back: issue 16, item 11)', async () => {
  const { list } = await knownSet();
  const cases: [string, Record<string, string[]>][] = [
    ['favorite=maybe', { favorite: ['The favorite field must be true or false.'] }],
    ['page=0', { page: ['The page must be at least 1.'] }],
    ['page=two', { page: ['The page must be an integer.'] }],
    ['page=0&per_page=7', { page: ['The page must be at least 1.'] }],
  ];
  for (const [query, message] of cases) {
    const r = await list(`?${query}`);
    assert.deepEqual([r.status, r.body], [422, { message, status: 422 }], query);
  }
});

test("users are isolated: another user's website answers exactly like a missing one", async () => {
  const { call, store, makeUser, alice } = await knownSet();
  const bob = await makeUser('bob');
  const missing = await call('GET', '/api/v1/websites/999', { key: alice.key });
  assert.deepEqual([missing.status, missing.body], [404, { message: 'Resource not found.', status: 404 }]);
  const before = await snapshotOf(store, 'websites');
  for (const [method, opts] of [['GET', {}], ['PUT', { body: { favorite: true } }], ['PATCH', { body: { email: 1 } }], ['DELETE', {}]] as const) {
    const r = await call(method, '/api/v1/websites/1', { key: bob.key, ...opts });
    assert.deepEqual([r.status, r.body], [404, missing.body], method);
  }
  assert.equal(await snapshotOf(store, 'websites'), before);
  const bobs = await call('GET', '/api/v1/websites', { key: bob.key });
  assert.deepEqual([bobs.body.data, bobs.body.meta.total], [[], 0]);
  for (const odd of ['0', '-1', 'abc', '1.5']) {
    assert.equal((await call('GET', `/api/v1/websites/${odd}`, { key: alice.key })).status, 404, odd);
  }
  // Whether another user tracks a domain is never told: bob gets a website of his own, which receives nothing.
  const second = await call('POST', '/api/v1/websites', { key: bob.key, body: { domain: 'alpha.example.com' } });
  assert.deepEqual([second.status, second.body.data.domain, second.body.data.receives_events], [201, 'alpha.example.com', false]);
});

test('401, 404 and 429 in the analytics shape', async () => {
  const { call } = await testApp({ analyticsRateLimit: 2 });
  const none = await call('GET', '/api/v1/websites', { key: null });
  assert.deepEqual([none.status, none.body], [401, { message: 'Unauthenticated.', status: 401 }]);
  const wrong = await call('GET', '/api/v1/stats/1?name=page', { key: 'sk_not_a_real_key_at_all' });
  assert.deepEqual([wrong.status, wrong.body], [401, { message: 'Unauthenticated.', status: 401 }]);
  const unknown = await call('GET', '/api/v1/nothing-here');
  assert.deepEqual([unknown.status, unknown.body], [404, { message: 'Resource not found.', status: 404 }]);
  assert.equal((await call('GET', '/api/v1/websites')).status, 200);
  const third = await call('GET', '/api/v1/websites');
  assert.deepEqual([third.status, third.body], [429, { message: 'Too Many Attempts.', status: 429 }]);
  assert.equal(third.headers.get('x-ratelimit-limit'), '2');
  assert.equal(third.headers.get('x-ratelimit-remaining'), '0');
  assert.ok(Number(third.headers.get('retry-after')) >= 1);
});
