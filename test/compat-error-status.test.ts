import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openApiDocument } from '../src/openapi/document.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { ConflictError, StoreUnavailableError } from '../src/store/store.ts';
import type { Store } from '../src/store/store.ts';
import { openTestStore, snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 10: ERROR_STATUS=200 answers link-API errors with HTTP 200 and `error: 1`, as the
// real product does; the default keeps meaningful statuses; the analytics API keeps them always.
test('ERROR_STATUS is read from the environment and the flag; anything but real or 200 is refused', () => {
  assert.equal(loadConfig({}).errorStatus, 'real');
  assert.equal(loadConfig({ ERROR_STATUS: '200' }).errorStatus, 200);
  assert.equal(loadConfig({}, ['--error-status', '200']).errorStatus, 200);
  assert.equal(loadConfig({ ERROR_STATUS: '200' }, ['--error-status=real']).errorStatus, 'real');
  for (const bad of ['400', 'ok', '2000']) assert.throws(() => loadConfig({ ERROR_STATUS: bad }), ConfigError, bad);
});

const LINK_ERRORS: [name: string, method: string, path: string, opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }, status: number, message: RegExp][] = [
  ['no key', 'GET', '/api/urls', { key: null }, 401, /valid API key/],
  ['a body over BODY_LIMIT', 'POST', '/api/url/add', { body: { url: `https://example.com/${'x'.repeat(3000)}` } }, 413, /larger than 2000 bytes/],
  ['a body that is not JSON', 'POST', '/api/url/add', { raw: 'url=https://example.com/', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, /Unsupported Media Type/],
  ['a URL without a scheme', 'POST', '/api/url/add', { body: { url: 'example.com' } }, 400, /must start with http:\/\/ or https:\/\//],
  ['invalid url', 'POST', '/api/url/add', { body: { url: 'not a url' } }, 400, /valid URL/],
  ['missing url', 'POST', '/api/url/add', { body: {} }, 400, /Missing required parameter: url/],
  ['unknown link', 'GET', '/api/url/999', {}, 404, /Link does not exist/],
  ['unknown endpoint', 'GET', '/api/nothing-here', {}, 404, /Endpoint not found/],
  ['wrong method', 'DELETE', '/api/urls', {}, 405, /Method not allowed/],
];

for (const mode of ['real', 200] as const) {
  test(`link-API errors with ERROR_STATUS=${mode}: body {error: 1, message}, status ${mode === 200 ? '200' : 'meaningful'}, nothing stored`, async () => {
    const t = await testApp({ errorStatus: mode, bodyLimit: 2000 });
    const before = await snapshotOf(t.store, 'links');
    const user = await t.makeUser('not-admin');
    const errors = [...LINK_ERRORS, ['not an admin', 'GET', '/api/users', { key: user.key }, 403, /permission/] as (typeof LINK_ERRORS)[number]];
    for (const [name, method, path, opts, real, message] of errors) {
      const r = await t.call(method, path, opts);
      assert.equal(r.status, mode === 200 ? 200 : real, `${name}: ${r.text}`);
      assert.equal(r.body.error, 1, name);
      assert.match(r.body.message, message, name);
    }
    assert.equal(await snapshotOf(t.store, 'links'), before);
  });

  test(`the analytics API keeps real statuses with ERROR_STATUS=${mode}`, async () => {
    const t = await testApp({ errorStatus: mode });
    const before = await snapshotOf(t.store, 'websites');
    const noKey = await t.call('GET', '/api/v1/websites', { key: null });
    assert.equal(noKey.status, 401);
    assert.deepEqual(noKey.body, { message: 'Unauthenticated.', status: 401 });
    const invalid = await t.call('POST', '/api/v1/websites', { body: { domain: '' } });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.status, 422);
    const missing = await t.call('GET', '/api/v1/websites/999');
    assert.equal(missing.status, 404);
    const event = await t.call('POST', '/api/event', { key: null, body: { page: 'https://nobody.example.org/' } });
    assert.equal(event.status, 404, 'the tracking endpoint belongs to the analytics side');
    assert.equal(await snapshotOf(t.store, 'websites'), before);
  });
}

/** A store whose every call fails with `failure()` while `state.failing` is set (the app's own bookkeeping aside). */
function failingStore(store: Store, state: { failing: (() => Error) | null }): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const local = prop === 'version' || prop === 'revision' || prop === 'beforeClose';
      return (...args: unknown[]) => (state.failing && !local ? Promise.reject(state.failing()) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}

// Issue 24: clients retry on 429 and 503 (by status and Retry-After); only the errors a client fixes
// by changing its request become 200 under ERROR_STATUS=200. The rest answer alike in both modes.
for (const mode of ['real', 200] as const) {
  test(`ERROR_STATUS=${mode}: a rate limit stays 429, storage away 503, a concurrent change 409, a fault 500; with Retry-After where there is one`, async () => {
    const state: { failing: (() => Error) | null } = { failing: null };
    const t = await testApp({ errorStatus: mode, rateLimit: 2, authFailureLimit: 2 }, { store: failingStore(await openTestStore(), state) });
    const user = await t.makeUser('retrying');
    const before = await snapshotOf(t.store, 'links');

    for (let i = 0; i < 2; i++) assert.equal((await t.call('GET', '/api/urls', { key: user.key })).status, 200);
    const limited = await t.call('POST', '/api/url/add', { key: user.key, body: { url: 'https://example.com/' } });
    assert.deepEqual([limited.status, limited.body], [429, { error: 1, message: 'Too Many API Requests.' }]);
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');

    for (let i = 0; i < 2; i++) assert.equal((await t.call('GET', '/api/urls', { key: 'sk_wrong_key_0000000000000000000000000000' })).status, mode === 200 ? 200 : 401);
    const failures = await t.call('GET', '/api/urls', { key: 'sk_wrong_key_0000000000000000000000000000' });
    assert.deepEqual([failures.status, failures.body.error], [429, 1], 'too many failed keys from one client: 429 too');
    assert.match(failures.headers.get('retry-after') ?? '', /^[1-9]\d*$/);

    state.failing = () => new StoreUnavailableError('the test took the database away');
    const away = await t.call('POST', '/api/qr/add', { body: { type: 'text', data: 'x' } });
    assert.deepEqual([away.status, away.body.error, away.headers.get('retry-after')], [503, 1, '2']);
    state.failing = () => new ConflictError('links', 'not-a-unique-of-the-row');
    const raced = await t.call('POST', '/api/url/add', { body: { url: 'https://example.com/raced' } });
    assert.deepEqual([raced.status, raced.body], [409, { error: 1, message: 'The request conflicts with a change made at the same time. Please try again.' }]);
    state.failing = () => new Error('a bug');
    const fault = await t.call('GET', '/api/qr/1');
    assert.deepEqual([fault.status, fault.body], [500, { error: 1, message: 'An internal error occurred. Please try again later.' }]);
    state.failing = null;
    assert.equal(await snapshotOf(t.store, 'links'), before, 'nothing stored');
  });
}

// The same for the analytics product: its API (ANALYTICS_RATE_LIMIT per user, failed keys per client)
// and its tracking endpoint (EVENT_RATE_LIMIT per client IP) answer 429 with Retry-After in both modes.
for (const mode of ['real', 200] as const) {
  test(`ERROR_STATUS=${mode}: the analytics API and POST /api/event answer a rate limit with 429 and Retry-After`, async () => {
    const t = await testApp({ errorStatus: mode, analyticsRateLimit: 2, eventRateLimit: 2, authFailureLimit: 2 });
    const user = await t.makeUser('analytics-retrying');

    const site = await t.call('POST', '/api/v1/websites', { key: user.key, body: { domain: 'site.example.com' } });
    assert.equal(site.status, 201, site.text);
    assert.equal((await t.call('GET', '/api/v1/websites', { key: user.key })).status, 200);
    const limited = await t.call('GET', '/api/v1/websites', { key: user.key });
    assert.deepEqual([limited.status, limited.body], [429, { message: 'Too Many Attempts.', status: 429 }]);
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');

    for (let i = 0; i < 2; i++) assert.equal((await t.call('GET', '/api/v1/websites', { key: 'sk_wrong_key_0000000000000000000000000000' })).status, 401);
    const failures = await t.call('GET', '/api/v1/websites', { key: 'sk_wrong_key_0000000000000000000000000000' });
    assert.deepEqual([failures.status, failures.body], [429, { message: 'Too Many Attempts.', status: 429 }], 'too many failed keys from one client');
    assert.match(failures.headers.get('retry-after') ?? '', /^[1-9]\d*$/);

    const event = () => t.call('POST', '/api/event', { key: null, body: { page: 'https://site.example.com/' } });
    for (let i = 0; i < 2; i++) assert.equal((await event()).status, 202);
    const busy = await event();
    assert.deepEqual([busy.status, busy.body], [429, { error: 1, message: 'Too Many API Requests.' }]);
    assert.match(busy.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(busy.headers.get('access-control-allow-origin'), '*', 'a script on the tracked site can read the refusal');
    const counted = await t.counters.totals([`website:${site.body.data.id}`], ['pageviews']);
    assert.equal(counted.get(`website:${site.body.data.id}`)?.pageviews, 2, 'the refused event is not counted');
  });
}

test('the OpenAPI document describes the setting it runs with', () => {
  const real = openApiDocument({ resources: RESOURCES, config: loadConfig({}) });
  const ok = openApiDocument({ resources: RESOURCES, config: loadConfig({ ERROR_STATUS: '200' }) });
  const add = (d: typeof real) => d.paths['/api/url/add']!.post!.responses as Record<string, any>;
  assert.ok(add(real)['400'], 'meaningful statuses are documented by default');
  assert.deepEqual(Object.keys(add(ok)), ['200', '409', '429', '503'], 'what a client retries keeps its status (409: its Idempotency-Key still running)');
  assert.ok(add(ok)['429'].headers['Retry-After'] && add(ok)['503'].headers['Retry-After']);
  const schema = add(ok)['200'].content['application/json'].schema;
  assert.deepEqual(schema.anyOf[1], { $ref: '#/components/schemas/LinkError' });
  const sites = ok.paths['/api/v1/websites']!.post!.responses as Record<string, unknown>;
  assert.ok(sites['422'] && sites['401'], 'the analytics API keeps its statuses');
  assert.match(String((ok.info as { description: string }).description), /ERROR_STATUS=200/);
});
