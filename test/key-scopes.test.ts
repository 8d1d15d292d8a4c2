import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteScopes } from '../src/auth/route-scopes.ts';
import { SCOPES, covers } from '../src/auth/scopes.ts';
import { isAnalyticsPath } from '../src/http/error-body.ts';
import { collectionsOf, RESOURCES } from '../src/resources/table.ts';
import { fingerprint, TEST_BACKEND } from './backend.ts';
import { ADMIN_KEY, testApp } from './helpers.ts';
import { filled, keyedRoutes, makeKey } from './key-helpers.ts';
import { startFakeServer } from '../src/fake/index.ts';

const routes = await keyedRoutes();
const scopes = new RouteScopes(RESOURCES);

test('every route of both APIs refuses a key without its scope (403, nothing stored) and lets a key with it through', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 0, analyticsRateLimit: 0 });
  const alice = await makeUser('alice');
  const dump = () => fingerprint(store, collectionsOf(RESOURCES));
  // Two keys per scope a route needs, made before any route runs (one of them rotates the account key):
  // one with that scope only, one with every other scope that does not cover it.
  const keys = new Map<string, { without: string; with: string }>();
  for (const r of routes) {
    const needed = scopes.of(r.method, r.path)!.scope;
    if (keys.has(needed)) continue;
    // Admin routes need `*` and an admin: the admin's keys.
    const owner = needed === '*' ? ADMIN_KEY : alice.key;
    const others = SCOPES.filter((s) => s !== '*' && !covers([s], needed));
    keys.set(needed, { without: (await makeKey(call, owner, { scopes: others })).apikey, with: (await makeKey(call, owner, { scopes: [needed] })).apikey });
  }
  for (const r of routes) {
    const needed = scopes.of(r.method, r.path)!.scope;
    const url = filled(r.path);
    const body = r.method === 'GET' ? {} : { body: {} };
    await t.test(`${r.method} ${r.path} needs ${needed}`, async () => {
      const before = await dump();
      const refused = await call(r.method, url, { key: keys.get(needed)!.without, ...body });
      const message = `This API key lacks the scope ${needed}.`;
      assert.equal(refused.status, 403, refused.text);
      assert.deepEqual(refused.body, isAnalyticsPath(r.path) ? { message, status: 403 } : { error: 1, message });
      assert.equal(await dump(), before, 'nothing stored');
      const allowed = await call(r.method, url, { key: keys.get(needed)!.with, ...body });
      // Through the scope's gate; a 403 of the route's own rule (a key revoking a wider one) is past it.
      const gated = allowed.status === 401 || (allowed.status === 403 && (allowed.body?.message === message || !/cannot revoke a key with the scope/.test(allowed.body?.message ?? '')));
      assert.ok(!gated, `with ${needed}: ${allowed.status} ${allowed.text}`);
    });
  }
});

test('under ERROR_STATUS=200 a missing scope is a 200 with the error body, as every link-API error is; the analytics API keeps its 403', async () => {
  const { call, makeUser } = await testApp({ errorStatus: 200 });
  const alice = await makeUser('alice');
  const key = await makeKey(call, alice.key, { scopes: ['stats:read'] });
  assert.deepEqual(await call('GET', '/api/urls', { key: key.apikey }).then((r) => [r.status, r.body]), [200, { error: 1, message: 'This API key lacks the scope links:read.' }]);
  assert.deepEqual(await call('GET', '/api/v1/websites', { key: key.apikey }).then((r) => [r.status, r.body]), [403, { message: 'This API key lacks the scope websites:read.', status: 403 }]);
});

test('a private stats page opens to a scoped key with stats:read, not to one without', async () => {
  const { call, makeUser } = await testApp({ trustProxy: true });
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'private.example.com', privacy: 1 } })).status, 201);
  const signIn = (key: string) =>
    call('POST', '/stats/private.example.com', { key: null, raw: new URLSearchParams({ key }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.7' } });
  const stats = await makeKey(call, alice.key, { scopes: ['stats:read'] });
  const links = await makeKey(call, alice.key, { scopes: ['links:*', 'websites:*'] });
  const elsewhere = await makeKey(call, alice.key, { scopes: ['stats:read'], ips: ['203.0.113.0/24'] });
  const opened = await signIn(stats.apikey);
  assert.equal(opened.status, 303);
  assert.match(opened.headers.get('set-cookie') ?? '', /^pa_stats_\d+=owner\./);
  for (const key of [links.apikey, elsewhere.apikey]) {
    const r = await signIn(key);
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('set-cookie'), null);
  }
});

if (TEST_BACKEND === 'file') {
  test('the fake backend takes scoped keys for its users: refused where their scopes do not reach', async () => {
    const fake = await startFakeServer({
      users: [{ email: 'alice@example.com', apikey: 'sk_fake_alice_0000000000000000', keys: [{ apikey: 'sk_fake_alice_readonly_000000', scopes: ['links:read'] }] }],
    });
    try {
      const call = (key: string, method: string, path: string, body?: unknown) =>
        fetch(`${fake.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => [r.status, await r.json()]);
      assert.deepEqual(await call('sk_fake_alice_readonly_000000', 'POST', '/api/url/add', { url: 'https://example.com' }), [403, { error: 1, message: 'This API key lacks the scope links:write.' }]);
      const [status, body] = await call('sk_fake_alice_readonly_000000', 'GET', '/api/urls');
      assert.equal(status, 200);
      assert.equal(body.data.result, 0);
      assert.equal((await call('sk_fake_alice_0000000000000000', 'POST', '/api/url/add', { url: 'https://example.com' }))[0], 200);
      const [, keys] = await call('sk_fake_alice_0000000000000000', 'GET', '/api/keys');
      assert.deepEqual(keys.data.keys.map((k: { name: string; scopes: string[]; hint: string }) => [k.name, k.scopes, k.hint]), [['links:read', ['links:read'], 'sk_…0000']]);
      // A reset brings the key back as it was: it still works, and a key made since is gone.
      assert.equal((await call('sk_fake_alice_0000000000000000', 'POST', '/api/keys', { name: 'later', scopes: ['qr:*'] }))[0], 200);
      await fake.reset();
      assert.equal((await call('sk_fake_alice_0000000000000000', 'GET', '/api/keys'))[1].data.result, 1);
      assert.equal((await call('sk_fake_alice_readonly_000000', 'GET', '/api/urls'))[0], 200);
    } finally {
      await fake.close();
    }
  });
}
