import { test } from 'node:test';
import assert from 'node:assert/strict';
import pkg from '../package.json' with { type: 'json' };
import { ADMIN_KEY, snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 8: plans, plan assignment, one-time sign-in links and the API index.
const t = await testApp({ rateLimit: 10_000 });
const alice = await t.makeUser('plan');
const FEATURES = { pageviews: -1, websites: -1, api: true, data_export: true };
const FORBIDDEN = { error: 1, message: 'You do not have permission to access this endpoint.' };
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  key: null,
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});

test('GET /api/plans lists the plans the server knows, to any key', async () => {
  const r = await t.call('GET', '/api/plans', { key: alice.key });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, {
    error: 0,
    data: [
      { id: 1, name: 'Default', free: true, features: FEATURES },
      { id: 2, name: 'Pro', free: false, features: FEATURES },
    ],
  });
  assert.equal((await t.call('GET', '/api/plans', { key: null })).status, 401);
});

test('PUT /api/plan/:planid/user/:userid (admin) puts a user on a plan: stored, and shown by both APIs', async () => {
  const r = await t.call('PUT', `/api/plan/2/user/${alice.id}`);
  assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'User has been subscribed to this plan.' }]);
  const stored = (await t.store.get('users', alice.id))!;
  assert.deepEqual([stored.planid, stored.status], [2, 'pro']);
  assert.deepEqual((await t.call('GET', '/api/v1/account', { key: alice.key })).body.data.plan, { id: 2, name: 'Pro', features: FEATURES });
  assert.equal((await t.call('GET', '/api/account', { key: alice.key })).body.data.status, 'pro');
  await t.call('PUT', `/api/plan/1/user/${alice.id}`);
  assert.deepEqual([(await t.store.get('users', alice.id))!.planid, (await t.store.get('users', alice.id))!.status], [1, 'free']);

  const before = await snapshotOf(t.store, 'users');
  const refused: [path: string, key: string, status: number, body: unknown][] = [
    [`/api/plan/3/user/${alice.id}`, ADMIN_KEY, 404, { error: 1, message: 'Plan does not exist.' }],
    [`/api/plan/pro/user/${alice.id}`, ADMIN_KEY, 404, { error: 1, message: 'Plan does not exist.' }],
    ['/api/plan/2/user/999', ADMIN_KEY, 404, { error: 1, message: 'User does not exist.' }],
    [`/api/plan/2/user/${alice.id}`, alice.key, 403, FORBIDDEN],
  ];
  for (const [path, key, status, body] of refused) {
    const no = await t.call('PUT', path, { key });
    assert.deepEqual([no.status, no.body], [status, body], path);
  }
  assert.equal(await snapshotOf(t.store, 'users'), before, 'nothing changed');
});

test('GET /api/user/login/:id (admin) makes a one-time, short-lived link that gives the user a new key', async () => {
  const made = await t.call('GET', `/api/user/login/${alice.id}`);
  assert.equal(made.status, 200, made.text);
  assert.deepEqual(Object.keys(made.body).sort(), ['error', 'expires', 'url']);
  assert.equal(made.body.expires, '2026-11-21 10:15:00', '15 minutes');
  const url = new URL(made.body.url);
  // The secret travels in the query, which the access log never writes.
  assert.deepEqual([url.origin, url.pathname], ['http://sho.rt', '/login']);
  const token = url.searchParams.get('token')!;
  const secret = token.split('.')[1]!;
  assert.ok(secret.length >= 43);
  const stored = (await t.store.get('users', alice.id))!;
  assert.ok(!JSON.stringify(stored).includes(secret), 'only a hash is stored');
  assert.equal(typeof stored.loginHash, 'string');

  // Opening the link uses nothing up (mail scanners follow links): twice, the same page.
  for (let i = 0; i < 2; i++) {
    const page = await t.call('GET', `/login?token=${token}`, { key: null });
    assert.equal(page.status, 200);
    assert.match(page.text, /Sign in as user_plan/);
    assert.match(page.text, /<form method="post" action="\/login">/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(page.headers.get('content-security-policy')!, /form-action 'self'/);
    assert.doesNotMatch(page.text, /sk_/, 'no key before the button');
  }
  const foreign = await t.call('POST', '/login', form({ token }, { 'sec-fetch-site': 'cross-site' }));
  assert.equal(foreign.status, 403);
  assert.equal((await t.store.get('users', alice.id))!.keyHash, stored.keyHash, 'a post from another site changes nothing');

  const used = await t.call('POST', '/login', form({ token }));
  assert.equal(used.status, 200, used.text);
  assert.equal(used.headers.get('cache-control'), 'no-store');
  assert.equal(used.headers.get('referrer-policy'), 'no-referrer');
  const key = /<code>(sk_[A-Za-z0-9_-]+)<\/code>/.exec(used.text)?.[1];
  assert.ok(key, 'the new key is shown');
  assert.equal((await t.call('GET', '/api/account', { key })).body.data.username, 'user_plan', 'the new key works');
  assert.equal((await t.call('GET', '/api/account', { key: alice.key })).status, 401, 'the old key does not');
  alice.key = key;
  const after = (await t.store.get('users', alice.id))!;
  assert.deepEqual([after.loginHash, after.loginExpires], [null, null]);

  const again = await t.call('POST', '/login', form({ token }));
  assert.equal(again.status, 404, 'single use');
  assert.doesNotMatch(again.text, /sk_/);
  assert.equal((await t.call('GET', `/login?token=${token}`, { key: null })).status, 404);
});

test('a sign-in link expires, is replaced by a newer one, and a forged one opens nothing', async () => {
  const link = async () => new URL((await t.call('GET', `/api/user/login/${alice.id}`)).body.url).searchParams.get('token')!;
  const first = await link();
  const second = await link();
  assert.equal((await t.call('POST', '/login', form({ token: first }))).status, 404, 'replaced');
  t.clock.advance(15 * 60_000 + 1);
  const before = await snapshotOf(t.store, 'users');
  assert.equal((await t.call('GET', `/login?token=${second}`, { key: null })).status, 404, 'expired');
  assert.equal((await t.call('POST', '/login', form({ token: second }))).status, 404, 'expired');
  const forged = `${alice.id}.${'A'.repeat(43)}`;
  for (const token of [forged, `${second}x`, '', '<script>']) {
    const r = await t.call('POST', '/login', form({ token }));
    assert.equal(r.status, 404, token);
    assert.doesNotMatch(r.text, /<script>/);
  }
  assert.equal(await snapshotOf(t.store, 'users'), before, 'nothing changed');
  const refused = [
    [`/api/user/login/${alice.id}`, alice.key, 403, FORBIDDEN],
    ['/api/user/login/999', ADMIN_KEY, 404, { error: 1, message: 'User does not exist.' }],
  ] as const;
  for (const [path, key, status, body] of refused) {
    const r = await t.call('GET', path, { key });
    assert.deepEqual([r.status, r.body], [status, body], path);
  }
});

test('GET /api/ (and /api) is the API index: name, version, docs; no key needed', async () => {
  for (const path of ['/api/', '/api']) {
    const r = await t.call('GET', path, { key: null });
    assert.equal(r.status, 200, path);
    assert.deepEqual(r.body, { error: 0, name: 'Short links and website analytics', version: pkg.version, docs: 'http://sho.rt/docs', openapi: 'http://sho.rt/openapi.json' });
  }
  const post = await t.call('POST', '/api/', { key: null });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
});
