import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken, generateApiKey, hashApiKey, sameKeyHash } from '../src/auth/keys.ts';
import { hashPassword, verifyPassword } from '../src/auth/passwords.ts';
import { createLogger } from '../src/log.ts';
import { ADMIN_KEY, testApp , allOf } from './helpers.ts';
import { LIVE_ADMIN_KEY, liveServer } from './live-server.ts';

const INVALID = { error: 1, message: 'A valid API key is required to use this service.' };

test('keys carry at least 32 bytes of entropy and are stored as hashes', () => {
  const a = generateApiKey();
  assert.match(a, /^sk_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, generateApiKey());
  assert.ok(sameKeyHash(hashApiKey(a), hashApiKey(a)));
  assert.ok(!sameKeyHash(hashApiKey(a), hashApiKey(a + 'x')));
  assert.ok(!sameKeyHash('', ''));
});

test('bearer tokens are read only from a well-formed header', () => {
  const cases: [string | undefined, string | null][] = [
    ['Bearer sk_abcdefgh', 'sk_abcdefgh'],
    ['bearer   sk_abcdefgh ', 'sk_abcdefgh'],
    ['Token sk_abcdefgh', 'sk_abcdefgh'],
    ['token  sk_abcdefgh', 'sk_abcdefgh'],
    ['Basic sk_abcdefgh', null],
    ['Token', null],
    ['Bearer', null],
    ['Bearer short', null],
    [undefined, null],
  ];
  for (const [header, want] of cases) assert.equal(bearerToken(header), want, String(header));
});

test('passwords are scrypt-hashed and verified', async () => {
  const h = await hashPassword('correct horse');
  assert.match(h, /^scrypt\$16384\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse', h), true);
  assert.equal(await verifyPassword('wrong horse', h), false);
  assert.equal(await verifyPassword('x', 'garbage'), false);
});

test('missing, malformed, unknown and expired keys get 401 with WWW-Authenticate', async () => {
  const { call, clock } = await testApp();
  const cases: [string, Record<string, string>][] = [
    ['no header', {}],
    ['not bearer', { authorization: `Basic ${ADMIN_KEY}` }],
    ['unknown key', { authorization: 'Bearer sk_unknown_000000000000000000000' }],
  ];
  for (const [name, headers] of cases) {
    const r = await call('GET', '/api/account', { key: null, headers });
    assert.equal(r.status, 401, name);
    assert.deepEqual(r.body, INVALID, name);
    assert.equal(r.headers.get('www-authenticate'), 'Bearer', name);
  }
  const rotated = await call('POST', '/api/account/rotate-key', { body: { expires: '2026-11-22 10:00:00' } });
  assert.equal(rotated.status, 200, rotated.text);
  const key = rotated.body.apikey;
  assert.equal((await call('GET', '/api/account', { key })).status, 200);
  assert.equal((await call('GET', '/api/account', { key: ADMIN_KEY })).status, 401, 'the old key stops working');
  clock.advance(25 * 3600 * 1000);
  const expired = await call('GET', '/api/account', { key });
  assert.equal(expired.status, 401);
  assert.match(expired.body.message, /expired/);
  assert.match(expired.headers.get('www-authenticate') ?? '', /^Bearer/);
});

test('unknown routes answer JSON 404 in the API\'s error shape, never HTML', async () => {
  const { call } = await testApp();
  const r = await call('GET', '/api/nothing-here');
  assert.equal(r.status, 404);
  assert.deepEqual(r.body, { error: 1, message: 'Endpoint not found.' });
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const wrongMethod = await call('PATCH', '/api/account');
  assert.deepEqual([wrongMethod.status, wrongMethod.headers.get('allow'), wrongMethod.body], [405, 'GET, HEAD', { error: 1, message: 'Method not allowed. Use GET.' }]);
});

test('bodies over the limit are 413, non-JSON bodies 415, broken JSON 400', async () => {
  const { call } = await testApp({ bodyLimit: 1000 });
  const big = await call('PUT', '/api/account/update', { body: { password: 'x'.repeat(2000) } });
  assert.equal(big.status, 413);
  assert.equal(big.body.error, 1);
  const form = await call('PUT', '/api/account/update', { raw: 'email=a@b.c', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(form.status, 415);
  const broken = await call('PUT', '/api/account/update', { raw: '{"email":', headers: { 'content-type': 'application/json' } });
  assert.deepEqual([broken.status, broken.body], [400, { error: 1, message: 'The request body is not valid JSON.' }]);
});

test('an unexpected error is a generic 500; details go only to the log', async () => {
  const lines: string[] = [];
  const log = { debug() {}, info() {}, warn() {}, error: (m: string, x?: Record<string, unknown>) => lines.push(m + JSON.stringify(x)), enabled: () => true };
  const { call, store } = await testApp({}, { log });
  store.get = () => {
    throw new Error('disk on fire');
  };
  const r = await call('GET', '/api/pixel/1');
  assert.deepEqual([r.status, r.body], [500, { error: 1, message: 'An internal error occurred. Please try again later.' }]);
  assert.ok(lines.some((l) => l.includes('disk on fire')));
  assert.ok(!lines.some((l) => l.includes(ADMIN_KEY)));
});

test('GET /health answers without a key', async () => {
  const { call } = await testApp();
  const r = await call('GET', '/health', { key: null });
  assert.deepEqual([r.status, r.body], [200, { status: 'ok' }]);
});

test('one access-log line per request (method, path as received, status, duration), never a key, a password or a query', async (t) => {
  const lines: string[] = [];
  const server = await liveServer(':memory:', {}, createLogger('info', (l) => lines.push(l)));
  t.after(() => server.close());
  const send = (method: string, path: string, key: string, body?: unknown) =>
    fetch(server.url + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  lines.length = 0; // the start's own lines
  await (await send('PUT', '/api/account/update?token=secret-query', LIVE_ADMIN_KEY, { password: 'hunter2-password' })).text();
  await (await send('GET', '/api/account', 'sk_wrong_key_guess_000000000000')).text();
  await (await send('GET', '/nope%0A2026-01-01T00:00:00.000Z%20INFO%20forged', LIVE_ADMIN_KEY)).text();
  for (let i = 0; i < 50 && lines.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(lines.length, 3, lines.join('\n'));
  assert.match(lines[0]!, / INFO PUT \/api\/account\/update 200 \d+\.\dms$/);
  assert.match(lines[1]!, / INFO GET \/api\/account 401 \d+\.\dms$/);
  assert.match(lines[2]!, / INFO GET \/nope%0A2026-01-01T00:00:00\.000Z%20INFO%20forged 404 \d+\.\dms$/, 'an encoded line break stays encoded');
  const all = lines.join('\n');
  for (const secret of [LIVE_ADMIN_KEY, 'sk_wrong_key_guess', 'hunter2', 'secret-query']) assert.ok(!all.includes(secret), secret);
});

test('below info, the access log is not even installed', async (t) => {
  const lines: string[] = [];
  // A spy that records every info line it is handed, but says info is off: only a skipped wrapper keeps it empty.
  const spy = { ...createLogger('silent'), info: (m: string) => void lines.push(m), enabled: (level: string) => level === 'warn' || level === 'error' };
  const server = await liveServer(':memory:', {}, spy);
  t.after(() => server.close());
  lines.length = 0;
  await (await fetch(`${server.url}/health`)).text();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(lines, []);
});

test('every served route under /api but register, event and the index checks the key first, in its API\'s shape, and stores nothing', async (t) => {
  const { app, call, store } = await testApp({ authFailureLimit: 0 });
  const before = JSON.stringify((await allOf(store, 'users'))) + JSON.stringify((await allOf(store, 'links')));
  const routes = new Map<string, { method: string; path: string }>();
  for (const r of app.routes) {
    if (!r.path.startsWith('/api/') || r.method === 'ALL') continue;
    routes.set(`${r.method} ${r.path}`, { method: r.method, path: r.path.replace(/:[a-z]+/g, '1') });
  }
  assert.ok(routes.size > 40, `only ${routes.size} routes found`);
  for (const [name, r] of routes) {
    await t.test(name, async () => {
      const got = await call(r.method, r.path, { key: null, ...(r.method === 'GET' ? {} : { body: { url: 'https://example.com/' } }) });
      // Sign-up, tracking events and the API index (name, version, docs) need no key.
      if (r.path === '/api/register' || r.path === '/api/event' || r.path === '/api/') {
        assert.notEqual(got.status, 401);
        return;
      }
      assert.equal(got.status, 401, got.text);
      assert.deepEqual(got.body, r.path.startsWith('/api/v1/') ? { message: 'Unauthenticated.', status: 401 } : INVALID);
      assert.equal(got.headers.get('www-authenticate'), 'Bearer');
    });
  }
  await t.test('an unknown path or method under /api: 401 without a key, 404 or 405 with one', async () => {
    for (const [method, path, status] of [['GET', '/api/nothing', 404], ['PATCH', '/api/account', 405], ['GET', '/api/url/add', 405], ['GET', '/api/v1/nothing', 404], ['POST', '/api/v1/stats/1', 405], ['GET', '/api/url', 404]] as const) {
      assert.equal((await call(method, path, { key: null })).status, 401, `${method} ${path}`);
      assert.equal((await call(method, path)).status, status, `${method} ${path} with a key`);
    }
  });
  assert.equal(JSON.stringify((await allOf(store, 'users'))) + JSON.stringify((await allOf(store, 'links'))), before);
});
