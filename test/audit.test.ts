import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT, AuditLog } from '../src/audit/audit-log.ts';
import type { AuditRecord } from '../src/audit/audit-log.ts';
import { MESSAGES } from '../src/errors.ts';
import { ADMIN_KEY, allOf, eventually, testApp } from './helpers.ts';
import { makeKey } from './key-helpers.ts';

async function auditApp(overrides = {}) {
  const t = await testApp({ rateLimit: 1000, analyticsRateLimit: 1000, trustProxy: true, ...overrides });
  const alice = await t.makeUser('alice');
  const bob = await t.makeUser('bob');
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  /** The entries of `GET /api/audit` (with `query`) as `key` reads them, after storing what is buffered. */
  const entries = async (key: string, query = '') => {
    await t.audit.flush();
    const r = await t.call('GET', `/api/audit${query}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body.data.entries as Record<string, unknown>[];
  };
  return { ...t, alice, bob, from, entries };
}

/** An entry as the API shows it, without its id. */
const shown = (e: Record<string, unknown>) => {
  const { id: _id, ...rest } = e;
  return rest;
};

test('every write is audited with who, which key, what, the outcome and where from; reads are not', async () => {
  const { call, alice, from, entries } = await auditApp();
  const key = await makeKey(call, alice.key, { scopes: ['links:*'] });
  const made = await call('POST', '/api/url/add', { key: key.apikey, headers: from('203.0.113.9'), body: { url: 'https://example.com/a' } });
  assert.equal(made.status, 200);
  const id = made.body.id as number;
  assert.equal((await call('PUT', `/api/url/${id}/update`, { key: alice.key, headers: from('2001:db8::1'), body: { url: 'https://example.com/b' } })).status, 200);
  assert.equal((await call('GET', `/api/url/${id}`, { key: key.apikey })).status, 200);
  assert.equal((await call('GET', '/api/urls', { key: alice.key })).status, 200);
  assert.equal((await call('DELETE', `/api/url/${id}/delete`, { key: key.apikey, headers: from('203.0.113.9') })).status, 200);
  const base = { date: '2026-11-21 10:00:00', user_id: alice.id, resource: 'links' };
  assert.deepEqual((await entries(alice.key)).map(shown), [
    { ...base, key_id: key.id, method: 'DELETE', route: '/api/url/:id/delete', resource_id: id, status: 200, ip: '203.0.113.9' },
    { ...base, key_id: null, method: 'PUT', route: '/api/url/:id/update', resource_id: id, status: 200, ip: '2001:db8::1' },
    { ...base, key_id: key.id, method: 'POST', route: '/api/url/add', resource_id: id, status: 200, ip: '203.0.113.9' },
    { ...base, key_id: null, method: 'POST', route: '/api/keys', resource: 'keys', resource_id: key.id, status: 200, ip: 'unknown' },
  ]);
});

test('an admin making a sign-in link for a user is audited, though it is a GET', async () => {
  const { call, alice, entries } = await auditApp();
  assert.equal((await call('GET', `/api/user/login/${alice.id}`, { key: ADMIN_KEY })).status, 200);
  assert.deepEqual((await entries(ADMIN_KEY)).map((e) => [e.method, e.route, e.resource, e.resource_id, e.status]), [['GET', '/api/user/login/:id', 'users', alice.id, 200]]);
});

test('refused writes are audited with their status (a scope, validation, another user\'s record), the error\'s under ERROR_STATUS=200 too', async () => {
  const { call, alice, bob, entries } = await auditApp({ errorStatus: 200 });
  const reader = await makeKey(call, alice.key, { scopes: ['links:read', 'websites:read'] });
  const theirs = await call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/bob' } });
  const cases: [string, string, string, unknown][] = [
    [reader.apikey, 'POST', '/api/url/add', { url: 'https://example.com/x' }],
    [alice.key, 'POST', '/api/url/add', { url: 'not a url' }],
    [alice.key, 'DELETE', `/api/url/${theirs.body.id}/delete`, undefined],
    [reader.apikey, 'POST', '/api/v1/websites', { domain: 'a.example.com' }],
    [alice.key, 'DELETE', '/api/user/2/delete', undefined],
  ];
  for (const [key, method, path, body] of cases) {
    const r = await call(method, path, { key, ...(body === undefined ? {} : { body }) });
    assert.ok(r.status === 200 ? r.body.error === 1 : r.status === 403, `${method} ${path}: ${r.status} ${r.text}`);
  }
  const got = (await entries(alice.key)).map((e) => [e.method, e.route, e.status, e.key_id, e.resource_id]);
  assert.deepEqual(got.slice(0, 5).reverse(), [
    ['POST', '/api/url/add', 403, reader.id, null],
    ['POST', '/api/url/add', 400, null, null],
    ['DELETE', '/api/url/:id/delete', 404, null, theirs.body.id],
    ['POST', '/api/v1/websites', 403, reader.id, null],
    ['DELETE', '/api/user/:id/delete', 403, null, 2],
  ]);
  // Requests without a valid key are no user's: nothing to audit.
  assert.equal((await call('POST', '/api/url/add', { key: 'sk_wrong_key_00000000', body: {} })).body.message, MESSAGES.invalidKey);
  assert.equal((await entries(alice.key)).length, 6);
});

test('each user reads its own log, newest first and paged; the admin reads anyone\'s (?user=) or everyone\'s (?user=all)', async () => {
  const { call, alice, bob, entries } = await auditApp();
  for (let i = 0; i < 3; i++) assert.equal((await call('POST', '/api/pixel/add', { key: alice.key, body: { type: 'gapixel', name: `p${i}`, tag: `G-${i}` } })).status, 200);
  assert.equal((await call('POST', '/api/campaign/add', { key: bob.key, body: { name: 'Bob camp' } })).status, 200);
  await entries(alice.key);
  const page = await call('GET', '/api/audit?limit=2&page=2', { key: alice.key });
  assert.deepEqual([page.body.data.result, page.body.data.currentpage, page.body.data.entries.length], [3, 2, 1]);
  assert.deepEqual((await entries(bob.key)).map((e) => [e.user_id, e.route]), [[bob.id, '/api/campaign/add']]);
  const ids = (list: Record<string, unknown>[]) => list.map((e) => e.id as number);
  const all = await entries(ADMIN_KEY, '?user=all');
  assert.deepEqual(all.map((e) => e.user_id), [bob.id, alice.id, alice.id, alice.id]);
  assert.ok(ids(all).every((id, i, list) => i === 0 || id < list[i - 1]!), 'newest first');
  assert.deepEqual(ids(await entries(ADMIN_KEY, `?user=${bob.id}`)), [all[0]!.id]);
  assert.deepEqual(await entries(ADMIN_KEY), []);
  assert.equal((await entries(alice.key, `?user=${alice.id}`)).length, 3);
  for (const [query, status, message] of [
    [`?user=${bob.id}`, 403, MESSAGES.forbidden],
    ['?user=all', 403, MESSAGES.forbidden],
    ['?user=bob', 400, 'Invalid user: must be the id of a user, or all.'],
    ['?key=x', 400, 'Invalid key: must be the id of an API key, or account for the account key.'],
  ] as const) {
    const r = await call('GET', `/api/audit${query}`, { key: alice.key });
    assert.deepEqual([r.status, r.body], [status, { error: 1, message }], query);
  }
});

test('?key= filters by the key that wrote; reading the log needs audit:read', async () => {
  const { call, alice, entries } = await auditApp();
  const writer = await makeKey(call, alice.key, { scopes: ['pixels:write'] });
  const auditor = await makeKey(call, alice.key, { scopes: ['audit:read'] });
  assert.equal((await call('POST', '/api/pixel/add', { key: writer.apikey, body: { type: 'gapixel', name: 'p', tag: 'G-1' } })).status, 200);
  assert.deepEqual((await entries(auditor.apikey, `?key=${writer.id}`)).map((e) => e.route), ['/api/pixel/add']);
  assert.deepEqual((await entries(auditor.apikey, '?key=account')).map((e) => e.route), ['/api/keys', '/api/keys']);
  const refused = await call('GET', '/api/audit', { key: writer.apikey });
  assert.deepEqual([refused.status, refused.body], [403, { error: 1, message: 'This API key lacks the scope audit:read.' }]);
});

test('entries are buffered, not written per request: one transaction a flush', async () => {
  const { call, store, audit, alice } = await auditApp();
  await audit.flush();
  const writes = mock.method(store, 'transaction');
  try {
    for (let i = 0; i < 4; i++) await call('POST', '/api/pixel/add', { key: alice.key, body: { type: 'gapixel', name: `p${i}`, tag: 'G' } });
    const byRequests = writes.mock.callCount();
    assert.equal(byRequests, 4, 'the four creates, and no audit write');
    await audit.flush();
    assert.equal(writes.mock.callCount(), byRequests + 1);
  } finally {
    writes.mock.restore();
  }
  assert.equal((await allOf(store, AUDIT)).length, 4);
});

test('entries older than AUDIT_RETENTION_DAYS are pruned; 0 keeps them', async () => {
  const { call, store, clock, alice } = await auditApp();
  const log = new AuditLog(store, { clock, retentionDays: 30 });
  const keep = new AuditLog(store, { clock, retentionDays: 0 });
  const day = 86_400_000;
  const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const now = clock.now();
  const entry = { userId: alice.id, keyId: null, method: 'POST', route: '/api/url/add', resource: 'links', resourceId: null, status: 200, ip: '192.0.2.1' };
  for (const age of [45, 31, 30.5, 29, 1]) log.record({ ...entry, date: at(now - age * day) });
  await log.flush();
  assert.equal(await keep.prune(now), 0);
  assert.equal((await allOf(store, AUDIT)).length, 5);
  assert.equal(await log.prune(now), 3);
  assert.deepEqual((await allOf<AuditRecord>(store, AUDIT)).map((e) => e.date), [at(now - 29 * day), at(now - day)]);
  assert.equal(await log.prune(now), 0);
  // Through the API as well.
  assert.equal((await call('GET', '/api/audit', { key: alice.key })).body.data.result, 2);
});

test('a user deleted takes its entries along, buffered ones included', async () => {
  const { call, store, audit, alice, bob } = await auditApp();
  assert.equal((await call('POST', '/api/pixel/add', { key: bob.key, body: { type: 'gapixel', name: 'p', tag: 'G' } })).status, 200);
  await audit.flush();
  assert.equal((await call('POST', '/api/pixel/add', { key: bob.key, body: { type: 'gapixel', name: 'q', tag: 'G' } })).status, 200);
  assert.equal((await call('POST', '/api/pixel/add', { key: alice.key, body: { type: 'gapixel', name: 'r', tag: 'G' } })).status, 200);
  assert.equal((await call('DELETE', `/api/user/${bob.id}/delete`, { key: ADMIN_KEY })).status, 200);
  await audit.flush();
  const left = await allOf<AuditRecord>(store, AUDIT);
  assert.deepEqual(left.map((e) => [e.userId, e.route]), [[alice.id, '/api/pixel/add'], [1, '/api/user/:id/delete']]);
  assert.equal(left[1]!.resourceId, bob.id);
});

test('pruning runs by itself: soon after the start, then again and again', async () => {
  const { store, clock, alice } = await auditApp();
  // The server's are 10 s and an hour; the same schedule, shorter.
  const log = new AuditLog(store, { clock, retentionDays: 1, pruneMs: { first: 150, every: 300 } });
  const entry = { userId: alice.id, keyId: null, method: 'POST', route: '/api/url/add', resource: 'links', resourceId: null, status: 200, ip: '192.0.2.1' };
  const old = new Date(clock.now() - 2 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
  const count = async () => (await allOf(store, AUDIT)).length;
  log.record({ ...entry, date: old });
  await log.flush();
  log.startPruning();
  assert.equal(await count(), 1, 'not at once');
  assert.ok(await eventually(async () => (await count()) === 0, 3000), 'pruned soon after the start');
  log.record({ ...entry, date: old });
  await log.flush();
  assert.ok(await eventually(async () => (await count()) === 0, 3000), 'and again later');
  await log.close();
  log.record({ ...entry, date: old });
  await log.flush();
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(await count(), 1, 'not once closed');
});

test('a flush the store refuses keeps its entries for the next one', async () => {
  const { store, clock, alice } = await auditApp();
  let refuse = true;
  const flaky = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'transaction') return (fn: never) => (refuse ? Promise.reject(new Error('the database is away')) : target.transaction(fn));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const log = new AuditLog(flaky, { clock });
  log.record({ userId: alice.id, keyId: null, method: 'PUT', route: '/api/account/update', resource: 'account', resourceId: null, status: 200, ip: '192.0.2.1' });
  await log.flush();
  assert.equal((await allOf(store, AUDIT)).length, 0);
  refuse = false;
  await log.flush();
  assert.deepEqual((await allOf<AuditRecord>(store, AUDIT)).map((e) => e.route), ['/api/account/update']);
});
