import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { API_KEYS } from '../src/auth/api-key-record.ts';
import type { ApiKeyRecord } from '../src/auth/api-key-record.ts';
import { MESSAGES } from '../src/errors.ts';
import { collectionsOf, RESOURCES } from '../src/resources/table.ts';
import { fingerprint } from './backend.ts';
import { ADMIN_KEY, allOf, testApp } from './helpers.ts';
import { makeKey } from './key-helpers.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function keysApp(overrides = {}) {
  const t = await testApp({ rateLimit: 1000, analyticsRateLimit: 1000, trustProxy: true, ...overrides });
  const alice = await t.makeUser('alice');
  const bob = await t.makeUser('bob');
  const dump = () => fingerprint(t.store, collectionsOf(RESOURCES));
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  return { ...t, alice, bob, dump, from };
}

test('a key is shown once, listed without its secret, and stored only as its hash', async () => {
  const { call, store, alice } = await keysApp();
  const made = await call('POST', '/api/keys', { key: alice.key, body: { name: ' CI deploys ', scopes: ['qr:*', 'links:read', 'qr:*'], ips: ['203.0.113.0/24'], expires: '2027-01-01' } });
  assert.equal(made.status, 200, made.text);
  const apikey = made.body.apikey as string;
  assert.match(apikey, /^sk_[A-Za-z0-9_-]{43}$/);
  const entry = { id: made.body.id, name: 'CI deploys', scopes: ['links:read', 'qr:*'], expires: '2027-01-01 00:00:00', ips: ['203.0.113.0/24'], hint: `sk_…${apikey.slice(-4)}`, date: '2026-11-21 10:00:00', last_used: null };
  assert.deepEqual(made.body, { error: 0, id: made.body.id, apikey, data: entry });

  const stored = await allOf<ApiKeyRecord>(store, API_KEYS);
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.keyHash, sha256(apikey));
  assert.equal(stored[0]!.userId, alice.id);
  assert.ok(!JSON.stringify(stored).includes(apikey.slice(3)), 'the key itself is nowhere in the store');

  const list = await call('GET', '/api/keys', { key: alice.key });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data.keys, [entry]);
  assert.ok(!list.text.includes('keyHash') && !list.text.includes(apikey.slice(3)));
  const one = await call('GET', `/api/keys/${made.body.id}`, { key: alice.key });
  assert.deepEqual(one.body, { error: 0, data: entry });
  // It authenticates, as alice, from its addresses.
  const account = await call('GET', '/api/account', { key: apikey, headers: { 'x-forwarded-for': '203.0.113.50' } });
  assert.equal(account.status, 403, 'account:read is not among its scopes');
  const qrs = await call('GET', '/api/qr', { key: apikey, headers: { 'x-forwarded-for': '203.0.113.50' } });
  assert.equal(qrs.status, 200, qrs.text);
});

test('a key the API would not make is refused with a 400 naming the problem, and nothing is stored', async () => {
  const { call, alice, dump } = await keysApp();
  const cases: [Record<string, unknown>, string | RegExp][] = [
    [{ scopes: ['links:read'] }, 'Missing required parameter: name'],
    [{ name: '  ', scopes: ['links:read'] }, 'Key name cannot be empty.'],
    [{ name: 'x'.repeat(101), scopes: ['links:read'] }, 'Key name must be at most 100 characters.'],
    [{ name: 'k' }, 'Missing required parameter: scopes'],
    [{ name: 'k', scopes: [] }, 'Invalid scopes: a key needs at least one scope.'],
    [{ name: 'k', scopes: 'links:read' }, 'Invalid scopes: must be a list of scopes, such as ["links:read"].'],
    [{ name: 'k', scopes: ['links:delete'] }, /^Invalid scopes: each must be one of \*, links:read, links:write, links:\*, /],
    [{ name: 'k', scopes: ['stats:write'] }, /^Invalid scopes: each must be one of/],
    [{ name: 'k', scopes: ['links:read'], ips: ['10.0.0.0/33'] }, /^Invalid ips: each must be an IP address or a CIDR range/],
    [{ name: 'k', scopes: ['links:read'], ips: ['example.com'] }, /^Invalid ips: each must be/],
    [{ name: 'k', scopes: ['links:read'], ips: '10.0.0.1' }, 'Invalid ips: must be a list of IP addresses or CIDR ranges.'],
    [{ name: 'k', scopes: ['links:read'], ips: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`) }, 'Invalid ips: at most 50 addresses or ranges.'],
    [{ name: 'k', scopes: ['links:read'], expires: '2026-11-21 09:59:59' }, 'The expiry date must be later than now.'],
    [{ name: 'k', scopes: ['links:read'], expires: 'tomorrow' }, 'Dates must be in the form YYYY-MM-DD HH:MM:SS.'],
  ];
  const before = await dump();
  for (const [body, message] of cases) {
    const r = await call('POST', '/api/keys', { key: alice.key, body });
    assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
    assert.equal(r.body.error, 1);
    if (typeof message === 'string') assert.equal(r.body.message, message);
    else assert.match(r.body.message, message);
  }
  assert.equal(await dump(), before);
});

test('x:* covers both verbs of x and * everything; an admin route also needs an admin, the account key needs nothing', async () => {
  const { call, alice } = await keysApp();
  const links = await makeKey(call, alice.key, { scopes: ['links:*'] });
  const all = await makeKey(call, alice.key, { scopes: ['*'] });
  const adminLinks = await makeKey(call, ADMIN_KEY, { scopes: ['links:*'] });
  const adminAll = await makeKey(call, ADMIN_KEY, { scopes: ['*'] });
  const made = await call('POST', '/api/url/add', { key: links.apikey, body: { url: 'https://example.com/star' } });
  assert.equal(made.status, 200, made.text);
  assert.equal((await call('GET', `/api/url/${made.body.id}`, { key: links.apikey })).status, 200);
  assert.equal((await call('GET', '/api/qr', { key: links.apikey })).status, 403);
  assert.equal((await call('GET', '/api/v1/websites', { key: all.apikey })).status, 200);
  assert.deepEqual((await call('GET', '/api/users', { key: all.apikey })).body, { error: 1, message: MESSAGES.forbidden });
  assert.deepEqual((await call('GET', '/api/users', { key: adminLinks.apikey })).body, { error: 1, message: 'This API key lacks the scope *.' });
  assert.equal((await call('GET', '/api/users', { key: adminAll.apikey })).status, 200);
  // The account key, as the real product's clients use it, reaches everything it did.
  for (const [method, path] of [['GET', '/api/qr'], ['GET', '/api/v1/websites'], ['GET', '/api/account'], ['GET', '/api/keys'], ['GET', '/api/audit']]) {
    assert.equal((await call(method!, path!, { key: alice.key })).status, 200, path);
  }
});

test('rotating the account key needs *: it makes a key of every scope', async () => {
  const { call, store, alice } = await keysApp();
  const account = await makeKey(call, alice.key, { scopes: ['account:*'] });
  const before = await store.get('users', alice.id);
  const r = await call('POST', '/api/account/rotate-key', { key: account.apikey, body: {} });
  assert.deepEqual([r.status, r.body], [403, { error: 1, message: 'This API key lacks the scope *.' }]);
  assert.deepEqual(await store.get('users', alice.id), before);
  assert.equal((await call('PUT', '/api/account/update', { key: account.apikey, body: { email: 'alice.new@example.com' } })).status, 200);
});

test('an expired key is refused with 401 as an expired account key is, and writes nothing', async () => {
  const { call, clock, alice, dump } = await keysApp();
  const key = await makeKey(call, alice.key, { scopes: ['links:*'], expires: '2026-11-21 10:05:00' });
  assert.equal((await call('GET', '/api/urls', { key: key.apikey })).status, 200);
  (clock as unknown as { advance(ms: number): void }).advance(5 * 60_000);
  const before = await dump();
  for (const [method, path] of [['GET', '/api/urls'], ['POST', '/api/url/add']]) {
    const r = await call(method!, path!, { key: key.apikey, ...(method === 'POST' ? { body: { url: 'https://example.com/late' } } : {}) });
    assert.deepEqual([r.status, r.body], [401, { error: 1, message: MESSAGES.expiredKey }]);
    assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  }
  assert.equal(await dump(), before);
  // The analytics API says it in its own words.
  assert.deepEqual((await call('GET', '/api/v1/websites', { key: key.apikey })).body, { message: 'Unauthenticated.', status: 401 });
});

test('a key with an address allow-list works from those addresses only (IPv4, IPv6, CIDR; the client IP as TRUST_PROXY gives it)', async () => {
  const { call, alice, dump, from } = await keysApp({ authFailureLimit: 3 });
  const key = await makeKey(call, alice.key, { scopes: ['links:*'], ips: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7'] });
  for (const ip of ['203.0.113.1', '203.0.113.254', '2001:db8::5', '2001:db8:ffff::1', '198.51.100.7', '::ffff:203.0.113.9']) {
    assert.equal((await call('GET', '/api/urls', { key: key.apikey, headers: from(ip) })).status, 200, ip);
  }
  const before = await dump();
  for (const ip of ['203.0.114.1', '2001:db9::1', '198.51.100.8', '198.51.100.8', '198.51.100.8']) {
    const r = await call('POST', '/api/url/add', { key: key.apikey, headers: from(ip), body: { url: 'https://example.com/elsewhere' } });
    assert.deepEqual([r.status, r.body], [403, { error: 1, message: 'This API key may not be used from this address.' }], ip);
  }
  // Refusals count as failed authentications of the client address (AUTH_FAILURE_LIMIT, here 3).
  const over = await call('GET', '/api/urls', { key: key.apikey, headers: from('198.51.100.8') });
  assert.equal(over.status, 429);
  assert.ok(Number(over.headers.get('retry-after')) > 0);
  assert.equal(await dump(), before);
  assert.deepEqual((await call('GET', '/api/v1/websites', { key: key.apikey, headers: from('203.0.114.1') })).body, { message: 'This API key may not be used from this address.', status: 403 });
});

test('a revoked key stops working at once; only its owner can revoke it or see it', async () => {
  const { call, store, alice, bob, dump } = await keysApp();
  const key = await makeKey(call, alice.key, { scopes: ['links:read'] });
  assert.equal((await call('GET', '/api/urls', { key: key.apikey })).status, 200);
  assert.equal((await call('GET', '/api/urls', { key: key.apikey })).status, 200); // held by the key index now
  const before = await dump();
  for (const [method, path] of [['DELETE', `/api/keys/${key.id}`], ['GET', `/api/keys/${key.id}`]]) {
    const theirs = await call(method!, path!, { key: bob.key });
    assert.deepEqual([theirs.status, theirs.body], [404, { error: 1, message: 'API key does not exist.' }]);
  }
  assert.equal((await call('GET', '/api/keys', { key: bob.key })).body.data.result, 0);
  assert.equal(await dump(), before);
  const revoked = await call('DELETE', `/api/keys/${key.id}`, { key: alice.key });
  assert.deepEqual([revoked.status, revoked.body], [200, { error: 0, message: 'API key has been revoked.' }]);
  assert.deepEqual((await call('GET', '/api/urls', { key: key.apikey })).body, { error: 1, message: MESSAGES.invalidKey });
  assert.equal(await store.get(API_KEYS, key.id), undefined);
  assert.equal((await call('DELETE', `/api/keys/${key.id}`, { key: alice.key })).status, 404);
});

test('a key can only make and revoke keys within itself: its scopes, its expiry, its addresses', async () => {
  const { call, store, alice, from } = await keysApp();
  const maker = await makeKey(call, alice.key, { scopes: ['keys:*', 'links:read', 'qr:*'], expires: '2027-01-01', ips: ['203.0.113.0/24'] });
  const make = (body: Record<string, unknown>) => call('POST', '/api/keys', { key: maker.apikey, headers: from('203.0.113.5'), body: { name: 'child', expires: '2026-12-31', ips: ['203.0.113.128/25'], ...body } });
  const refused: [Record<string, unknown>, string][] = [
    [{ scopes: ['links:write'] }, 'This API key cannot give the scope links:write: it does not hold it.'],
    [{ scopes: ['links:*'] }, 'This API key cannot give the scope links:*: it does not hold it.'],
    [{ scopes: ['*'] }, 'This API key cannot give the scope *: it does not hold it.'],
    [{ scopes: ['links:read'], expires: undefined }, 'This API key expires 2027-01-01 00:00:00: a key it makes must expire no later.'],
    [{ scopes: ['links:read'], expires: '2027-01-02' }, 'This API key expires 2027-01-01 00:00:00: a key it makes must expire no later.'],
    [{ scopes: ['links:read'], ips: undefined }, 'This API key may only be used from some addresses: a key it makes must be limited to addresses within them.'],
    [{ scopes: ['links:read'], ips: ['203.0.0.0/16'] }, 'This API key may only be used from some addresses: a key it makes must be limited to addresses within them.'],
    [{ scopes: ['links:read'], ips: ['203.0.113.9', '198.51.100.1'] }, 'This API key may only be used from some addresses: a key it makes must be limited to addresses within them.'],
  ];
  for (const [body, message] of refused) {
    const r = await make(body);
    assert.deepEqual([r.status, r.body], [403, { error: 1, message }], JSON.stringify(body));
  }
  assert.equal((await allOf(store, API_KEYS)).length, 1);
  const child = await make({ scopes: ['links:read', 'qr:write'] });
  assert.equal(child.status, 200, child.text);
  assert.deepEqual(child.body.data.scopes, ['links:read', 'qr:write']);
  // The account key gives any scope.
  const wide = await call('POST', '/api/keys', { key: alice.key, body: { name: 'wide', scopes: ['*'] } });
  assert.equal(wide.status, 200);
  // And it revokes within itself only: not the wider key, but the child it could have made.
  const revokeWide = await call('DELETE', `/api/keys/${wide.body.id}`, { key: maker.apikey, headers: from('203.0.113.5') });
  assert.deepEqual([revokeWide.status, revokeWide.body], [403, { error: 1, message: 'This API key cannot revoke a key with the scope *: it does not hold it.' }]);
  assert.ok(await store.get(API_KEYS, wide.body.id), 'the wide key stays');
  assert.equal((await call('GET', '/api/keys', { key: wide.body.apikey })).status, 200);
  const revokeChild = await call('DELETE', `/api/keys/${child.body.id}`, { key: maker.apikey, headers: from('203.0.113.5') });
  assert.equal(revokeChild.status, 200, revokeChild.text);
  assert.equal(await store.get(API_KEYS, child.body.id), undefined);
});

test('last_used is noted per request but written at most once a flush (a minute), all keys in one write', async () => {
  const { call, store, clock, keyUses, alice } = await keysApp();
  const a = await makeKey(call, alice.key, { scopes: ['links:read'] });
  const b = await makeKey(call, alice.key, { scopes: ['qr:read'] });
  const stored = async (id: number) => (await store.get<ApiKeyRecord>(API_KEYS, id))!.lastUsed;
  const listed = async () => Object.fromEntries((await call('GET', '/api/keys', { key: alice.key })).body.data.keys.map((k: { id: number; last_used: string | null }) => [k.id, k.last_used]));
  const writes = mock.method(store, 'transaction');
  for (let i = 0; i < 5; i++) assert.equal((await call('GET', '/api/urls', { key: a.apikey })).status, 200);
  assert.equal((await call('GET', '/api/qr', { key: b.apikey })).status, 200);
  assert.equal(writes.mock.callCount(), 0, 'no write per request');
  assert.equal(await stored(a.id), null);
  assert.deepEqual(await listed(), { [a.id]: '2026-11-21 10:00:00', [b.id]: '2026-11-21 10:00:00' });
  await keyUses.flush();
  assert.equal(writes.mock.callCount(), 1, 'both keys in one transaction');
  assert.deepEqual([await stored(a.id), await stored(b.id)], ['2026-11-21 10:00:00', '2026-11-21 10:00:00']);
  (clock as unknown as { advance(ms: number): void }).advance(30_000);
  assert.equal((await call('GET', '/api/urls', { key: a.apikey })).status, 200);
  assert.equal(writes.mock.callCount(), 1);
  assert.equal(await stored(a.id), '2026-11-21 10:00:00');
  writes.mock.restore();
  assert.deepEqual(await listed(), { [a.id]: '2026-11-21 10:00:30', [b.id]: '2026-11-21 10:00:00' });
  // A key revoked before the flush stays revoked.
  assert.equal((await call('DELETE', `/api/keys/${a.id}`, { key: alice.key })).status, 200);
  await keyUses.flush();
  assert.equal(await store.get(API_KEYS, a.id), undefined);
});

test("every key of a user counts against the user's one rate limit", async () => {
  const { call, alice, bob } = await keysApp({ rateLimit: 4 });
  const a = await makeKey(call, alice.key, { scopes: ['links:read'] }); // alice's 1st request
  const b = await makeKey(call, alice.key, { scopes: ['qr:read'] }); // 2nd
  assert.equal((await call('GET', '/api/urls', { key: a.apikey })).status, 200);
  const last = await call('GET', '/api/qr', { key: b.apikey });
  assert.deepEqual([last.status, last.headers.get('x-ratelimit-remaining')], [200, '0']);
  for (const key of [a.apikey, b.apikey, alice.key]) assert.equal((await call('GET', '/api/urls', { key })).status, 429);
  assert.equal((await call('GET', '/api/urls', { key: bob.key })).status, 200);
});

test("deleting a user deletes its keys: they stop working", async () => {
  const { call, store, alice } = await keysApp();
  const key = await makeKey(call, alice.key, { scopes: ['links:read'] });
  assert.equal((await call('GET', '/api/urls', { key: key.apikey })).status, 200);
  assert.equal((await call('DELETE', `/api/user/${alice.id}/delete`, { key: ADMIN_KEY })).status, 200);
  assert.equal((await call('GET', '/api/urls', { key: key.apikey })).status, 401);
  assert.deepEqual(await allOf(store, API_KEYS), []);
});
