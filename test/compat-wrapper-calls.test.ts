import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiKey } from '../src/auth/keys.ts';
import { ADMIN_KEY, snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 2: the vendor's own PHP wrapper POSTs JSON to older endpoints, with `Token <key>`;
// each call answers exactly what its v3 equivalent answers.
const t = await testApp({ rateLimit: 10_000 });
const alice = await t.makeUser('wrap');
const bob = await t.makeUser('other');
const as = (key: string) => ({ key: null, headers: { authorization: `Token ${key}` } });
const wrapper = (path: string, body: unknown, key = alice.key) => t.call('POST', path, { ...as(key), body });
const ids: number[] = [];
for (const n of [1, 2, 3]) ids.push((await t.call('POST', '/api/url/add', { key: alice.key, body: { url: `https://example.com/wrap/${n}` } })).body.id);
await t.call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/bob' } });

test('POST /api/url/get answers GET /api/urls: the same page, paging and order read as leniently', async () => {
  const cases: [body: Record<string, unknown>, query: string][] = [
    [{ limit: 2, page: 1, order: 'date' }, 'limit=2&page=1&order=date'],
    [{ limit: 2, page: 2, order: 'date' }, 'limit=2&page=2&order=date'],
    [{ limit: '1', page: '3', order: 'click' }, 'limit=1&page=3&order=click'],
    [{ limit: 'ten', page: 0, order: 'nonsense' }, 'limit=ten&page=0&order=nonsense'],
    [{ limit: { many: true }, page: null }, ''],
    [{}, ''],
  ];
  for (const [body, query] of cases) {
    const posted = await wrapper('/api/url/get', body);
    const got = await t.call('GET', `/api/urls?${query}`, { key: alice.key });
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(posted.body, got.body, JSON.stringify(body));
  }
  const page = (await wrapper('/api/url/get', { limit: 2, page: 1, order: 'date' })).body;
  assert.equal(page.error, '0');
  assert.deepEqual([page.data.result, page.data.perpage, page.data.currentpage, page.data.nextpage, page.data.maxpage], [3, 2, 1, 2, 2]);
  assert.deepEqual(page.data.urls.map((u: { id: number }) => u.id), [ids[2], ids[1]], 'newest first, only her own links');
  assert.equal((await wrapper('/api/url/get', { limit: 500 })).body.data.perpage, 500, 'clients ask for 500 at a time');
  assert.equal((await wrapper('/api/url/get', { limit: 5000 })).body.data.perpage, 1000, 'the cap of 1,000 holds');
});

test('POST /api/url/stats answers GET /api/url/:id; an id of nothing, or of another user, is its 404', async () => {
  for (const urlid of [ids[0]!, String(ids[1])]) {
    const posted = await wrapper('/api/url/stats', { urlid });
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(posted.body, (await t.call('GET', `/api/url/${urlid}`, { key: alice.key })).body);
    assert.equal(posted.body.details.longurl, `https://example.com/wrap/${ids.indexOf(Number(urlid)) + 1}`);
  }
  for (const urlid of [999, 4, 0, '1x']) {
    const r = await wrapper('/api/url/stats', { urlid });
    assert.deepEqual([r.status, r.body], [404, { error: 1, message: 'Link does not exist.' }], String(urlid));
  }
  const missing = await wrapper('/api/url/stats', {});
  assert.deepEqual([missing.status, missing.body], [400, { error: 1, message: 'Missing required parameter: urlid' }]);
  const wrong = await wrapper('/api/url/stats', { urlid: { id: 1 } });
  assert.equal(wrong.status, 400);
  assert.match(wrong.body.message, /urlid/);
});

test('POST /api/user/create (admin) creates a user as POST /api/user/add does, and refuses what it refuses', async () => {
  const body = { username: 'phpuser', password: '1234567891011', email: 'demo@yourwebsite.com', planid: 2, expiration: '2027-11-20 11:00:00' };
  const r = await wrapper('/api/user/create', body, ADMIN_KEY);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual({ ...r.body, data: { ...r.body.data, apikey: 'shown' } }, { error: 0, message: 'User has been registered.', data: { id: r.body.data.id, email: 'demo@yourwebsite.com', username: 'phpuser', apikey: 'shown' } });
  const stored = (await t.store.get('users', r.body.data.id))!;
  assert.deepEqual([stored.username, stored.email, stored.planid, stored.status, stored.expires, stored.keyHash], ['phpuser', 'demo@yourwebsite.com', 2, 'pro', '2027-11-20 11:00:00', hashApiKey(r.body.data.apikey)]);
  assert.equal((await t.call('GET', '/api/account', as(r.body.data.apikey))).body.data.username, 'phpuser', 'the new key works');

  const before = await snapshotOf(t.store, 'users');
  const refused: [body: Record<string, unknown>, key: string, status: number, message: string][] = [
    [{ ...body, username: 'again' }, ADMIN_KEY, 400, 'An account is already associated with this email.'],
    [{ ...body, username: 'xx2', email: 'x2@example.com', planid: 7 }, ADMIN_KEY, 400, 'Plan does not exist.'],
    [{ ...body, username: 'xx3', email: 'x3@example.com', planid: '2' }, ADMIN_KEY, 400, 'Invalid planid: Invalid type: Expected number but received "2".'],
    [{ username: 'xx4', email: 'x4@example.com' }, ADMIN_KEY, 400, 'Missing required parameter: password'],
    [{ ...body, username: 'xx5', email: 'x5@example.com' }, alice.key, 403, 'You do not have permission to access this endpoint.'],
  ];
  for (const [input, key, status, message] of refused) {
    const no = await wrapper('/api/user/create', input, key);
    assert.deepEqual([no.status, no.body], [status, { error: 1, message }], JSON.stringify(input));
  }
  assert.equal(await snapshotOf(t.store, 'users'), before, 'nothing stored');
});

test('POST /api/user/get (admin) answers GET /api/user/:id', async () => {
  const posted = await wrapper('/api/user/get', { userid: alice.id }, ADMIN_KEY);
  assert.equal(posted.status, 200, posted.text);
  assert.deepEqual(posted.body, (await t.call('GET', `/api/user/${alice.id}`)).body);
  assert.equal(posted.body.data.email, 'user_wrap@example.com');
  assert.ok(!posted.text.includes(alice.key) && !posted.text.includes('scrypt'), 'no secret');
  const none = await wrapper('/api/user/get', { userid: 9999 }, ADMIN_KEY);
  assert.deepEqual([none.status, none.body], [404, { error: 1, message: 'User does not exist.' }]);
  const notAdmin = await wrapper('/api/user/get', { userid: alice.id });
  assert.deepEqual([notAdmin.status, notAdmin.body.message], [403, 'You do not have permission to access this endpoint.']);
  const missing = await wrapper('/api/user/get', {}, ADMIN_KEY);
  assert.deepEqual([missing.status, missing.body.message], [400, 'Missing required parameter: userid']);
});

test('with ERROR_STATUS=200 the wrapper calls answer their errors with 200 and error 1, as the real product', async () => {
  const real = await testApp({ errorStatus: 200 });
  const r = await real.call('POST', '/api/url/stats', { ...as(ADMIN_KEY), body: { urlid: 5 } });
  assert.deepEqual([r.status, r.body], [200, { error: 1, message: 'Link does not exist.' }]);
});
