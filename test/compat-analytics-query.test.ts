import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from './helpers.ts';

// Issue 16, item 11: per_page outside 10/25/50/100 and unknown sort_by, sort, search_by are their
// defaults (a client that checks its key with per_page=1 must get an answer), on websites and stats.
async function sites() {
  const t = await testApp({ analyticsRateLimit: 10000 });
  const alice = await t.makeUser('alice');
  for (const domain of ['bravo.example.com', 'alpha.example.com', 'charlie.example.com']) {
    const r = await t.call('POST', '/api/v1/websites', { key: alice.key, body: { domain } });
    assert.equal(r.status, 201, r.text);
  }
  const get = (path: string) => t.call('GET', path, { key: alice.key });
  return { ...t, alice, get };
}

test('websites: a per_page that is not 10, 25, 50 or 100 is 50', async () => {
  const t = await sites();
  for (const perPage of ['1', '7', '1000', 'abc', '-10', '10.0']) {
    const r = await t.get(`/api/v1/websites?per_page=${perPage}`);
    assert.equal(r.status, 200, `${perPage}: ${r.text}`);
    assert.equal(r.body.meta.per_page, 50, perPage);
    assert.equal(r.body.data.length, 3, perPage);
  }
  assert.equal((await t.get('/api/v1/websites?per_page=10')).body.meta.per_page, 10);
});

test('websites: unknown sort_by, sort and search_by are id, desc and domain', async () => {
  const t = await sites();
  const domains = (r: { body: any }) => r.body.data.map((w: { domain: string }) => w.domain);
  const newestFirst = ['charlie.example.com', 'alpha.example.com', 'bravo.example.com'];
  assert.deepEqual(domains(await t.get('/api/v1/websites')), newestFirst);
  for (const query of ['sort_by=name', 'sort=up', 'sort_by=name&sort=sideways', 'sort_by=privacy&sort=DESC']) {
    const r = await t.get(`/api/v1/websites?${query}`);
    assert.equal(r.status, 200, query);
    assert.deepEqual(domains(r), newestFirst, query);
  }
  // A known sort_by with an unknown sort: that field, descending.
  assert.deepEqual(domains(await t.get('/api/v1/websites?sort_by=domain&sort=up')), ['charlie.example.com', 'bravo.example.com', 'alpha.example.com']);
  const search = await t.get('/api/v1/websites?search=alpha&search_by=privacy');
  assert.equal(search.status, 200);
  assert.deepEqual(domains(search), ['alpha.example.com'], 'search_by falls back to domain');
});

test('websites: a bad page or favorite is still a 422', async () => {
  const t = await sites();
  const r = await t.get('/api/v1/websites?per_page=1&page=0');
  assert.deepEqual([r.status, r.body], [422, { message: { page: ['The page must be at least 1.'] }, status: 422 }]);
  const fav = await t.get('/api/v1/websites?favorite=maybe');
  assert.equal(fav.status, 422);
});

test('stats: unknown per_page, sort_by, sort and search_by are 50, count, desc and value', async () => {
  const t = await sites();
  const pages = ['/a', '/b', '/b', '/c', '/c', '/c'];
  for (const page of pages) {
    const r = await t.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://alpha.example.com${page}` }), headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 202, r.text);
  }
  const site = (await t.get('/api/v1/websites?search=alpha')).body.data[0];
  const stats = (extra: string) => t.get(`/api/v1/stats/${site.id}?name=page&from=2026-11-21&to=2026-11-21${extra}`);
  const expected = [{ value: '/c', count: 3 }, { value: '/b', count: 2 }, { value: '/a', count: 1 }];
  assert.deepEqual((await stats('')).body.data, expected);
  for (const extra of ['&per_page=1', '&sort_by=date', '&sort=up', '&search_by=count&search=/', '&per_page=7&sort_by=x&sort=y']) {
    const r = await stats(extra);
    assert.equal(r.status, 200, `${extra}: ${r.text}`);
    assert.equal(r.body.per_page, 50, extra);
    assert.deepEqual(r.body.data, expected, extra);
  }
});
