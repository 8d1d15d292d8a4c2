/** A wrong method on a known path is a 405 naming the path's methods (Allow), in each API's error shape, after the key check. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MethodTable } from '../src/http/method-table.ts';
import { testApp, snapshotOf } from './helpers.ts';

const COLLECTIONS = ['links', 'users', 'websites', 'qrs', 'pixels'];
const everything = async (store: Parameters<typeof snapshotOf>[0]) => (await Promise.all(COLLECTIONS.map((c) => snapshotOf(store, c)))).join('\n');

test('MethodTable: a path answers with the methods of its most literal pattern', () => {
  const table = new MethodTable();
  for (const [method, pattern] of [
    ['GET', '/api/url/:id'],
    ['POST', '/api/url/add'],
    ['PUT', '/api/url/:id/update'],
    ['GET', '/api/account'],
    ['GET', '/:alias'],
    ['POST', '/:alias'],
    ['GET', '/health'],
    ['GET', '/'],
    ['ALL', '/api/user/add'], // a middleware: says nothing about the path's methods
    ['OPTIONS', '/api/event'],
    ['POST', '/api/event'],
    // a less literal pattern over a literal one that, in turn, loses to a more literal one on DELETE
    ['DELETE', '/x/:a/:b'],
    ['GET', '/x/:a/y'],
    ['DELETE', '/x/z/y'],
    ['GET', '/star/*'],
  ]) table.add(method!, pattern!);
  const cases: [method: string, path: string, allow: string[] | null][] = [
    ['GET', '/api/url/add', ['POST']],
    ['HEAD', '/api/url/add', ['POST']],
    ['POST', '/api/url/add', null],
    ['GET', '/api/url/123', null],
    ['HEAD', '/api/url/123', null],
    ['PATCH', '/api/url/123', ['GET', 'HEAD']],
    ['DELETE', '/api/url/123/update', ['PUT']],
    ['GET', '/api/url/123/update/', null], // a trailing slash is another path
    ['GET', '/api/url//update', null], // an empty segment fills no parameter
    ['DELETE', '/api/account', ['GET', 'HEAD']],
    ['POST', '/health', ['GET', 'HEAD']],
    ['PUT', '/spring', ['GET', 'HEAD', 'POST']],
    ['POST', '/', ['GET', 'HEAD']],
    ['GET', '/api/user/add', null],
    ['GET', '/api/event', ['OPTIONS', 'POST']],
    ['GET', '/api/nothing', null],
    ['DELETE', '/x/z/y', null],
    ['DELETE', '/x/q/y', ['GET', 'HEAD']],
    ['DELETE', '/x/q/r', null],
    ['POST', '/star/a', null], // patterns with wildcards, optional or constrained parameters are not modelled
  ];
  for (const [method, path, allow] of cases) assert.deepEqual(table.wrongMethod(method, path), allow, `${method} ${path}`);
  assert.deepEqual(
    table.shadowed().map((r) => `${r.method} ${r.pattern}`).sort(),
    ['DELETE /x/:a/y', 'GET /api/url/add', 'GET /x/z/y', 'POST /health'],
  );
});

test('GET /api/url/add is a 405 naming POST, not "Link does not exist."; GET /api/url/<id> still finds the link', async () => {
  const { call, store } = await testApp();
  const created = await call('POST', '/api/url/add', { body: { url: 'https://example.com/a' } });
  assert.equal(created.status, 200);
  const before = await everything(store);

  const r = await call('GET', '/api/url/add');
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'POST');
  assert.deepEqual(r.body, { error: 1, message: 'Method not allowed. Use POST.' });
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  assert.equal(r.headers.get('x-ratelimit-limit'), '30', 'counted like any authenticated request');

  const head = await call('HEAD', '/api/url/add');
  assert.deepEqual([head.status, head.headers.get('allow'), head.text], [405, 'POST', '']);

  const found = await call('GET', `/api/url/${created.body.id}`);
  assert.equal(found.status, 200);
  assert.equal(found.body.details.longurl, 'https://example.com/a');
  const missing = await call('GET', '/api/url/999');
  assert.deepEqual([missing.status, missing.body.message], [404, 'Link does not exist.']);
  assert.equal(await everything(store), before, 'nothing stored');
});

test('wrong methods on known link-API paths: 405 with Allow and what to use', async () => {
  const { call, store } = await testApp();
  const before = await everything(store);
  const cases: [method: string, path: string, allow: string, message: string][] = [
    ['DELETE', '/api/account', 'GET, HEAD', 'Method not allowed. Use GET.'],
    ['PATCH', '/api/account', 'GET, HEAD', 'Method not allowed. Use GET.'],
    ['POST', '/api/account/update', 'PUT', 'Method not allowed. Use PUT.'],
    ['PATCH', '/api/url/1', 'GET, HEAD', 'Method not allowed. Use GET.'],
    ['GET', '/api/url/1/delete', 'DELETE', 'Method not allowed. Use DELETE.'],
    ['GET', '/api/qr/add', 'POST', 'Method not allowed. Use POST.'],
    ['GET', '/api/user/add', 'POST', 'Method not allowed. Use POST.'],
    ['PUT', '/api/urls', 'GET, HEAD', 'Method not allowed. Use GET.'],
    ['GET', '/api/event', 'OPTIONS, POST', 'Method not allowed. Use OPTIONS or POST.'],
    ['POST', '/health', 'GET, HEAD', 'Method not allowed. Use GET.'],
    ['POST', '/docs', 'GET, HEAD', 'Method not allowed. Use GET.'],
    ['DELETE', '/stats/example.com', 'GET, HEAD, POST', 'Method not allowed. Use GET or POST.'],
  ];
  for (const [method, path, allow, message] of cases) {
    const r = await call(method, path, method === 'GET' ? {} : { body: { url: 'https://example.com/x', password: 'new-password' } });
    assert.equal(r.status, 405, `${method} ${path}`);
    assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
    assert.deepEqual(r.body, { error: 1, message }, `${method} ${path}`);
  }
  assert.equal(await everything(store), before, 'nothing stored');
});

test('the analytics API answers its own 405 (Laravel\'s message), with Allow', async () => {
  const { call, store } = await testApp();
  const site = await call('POST', '/api/v1/websites', { body: { domain: 'example.com' } });
  assert.equal(site.status, 201);
  const before = await everything(store);
  const stats = await call('POST', `/api/v1/stats/${site.body.data.id}`, { body: { name: 'pageviews' } });
  assert.equal(stats.status, 405);
  assert.equal(stats.headers.get('allow'), 'GET, HEAD');
  assert.deepEqual(stats.body, { message: `The POST method is not supported for route api/v1/stats/${site.body.data.id}. Supported methods: GET, HEAD.`, status: 405 });
  const one = await call('POST', `/api/v1/websites/${site.body.data.id}`, { body: { domain: 'other.example' } });
  assert.equal(one.status, 405);
  assert.equal(one.headers.get('allow'), 'DELETE, GET, HEAD, PATCH, PUT');
  assert.deepEqual(one.body, { message: `The POST method is not supported for route api/v1/websites/${site.body.data.id}. Supported methods: DELETE, GET, HEAD, PATCH, PUT.`, status: 405 });
  const list = await call('DELETE', '/api/v1/websites');
  assert.deepEqual([list.status, list.headers.get('allow')], [405, 'GET, HEAD, POST']);
  assert.equal(await everything(store), before, 'nothing stored');
});

test('the key check comes first: a wrong method under /api without a good key is 401, unknown paths stay 404', async () => {
  const { call } = await testApp();
  for (const [method, path] of [['GET', '/api/url/add'], ['DELETE', '/api/account'], ['GET', '/api/nothing-here']] as const) {
    const r = await call(method, path, { key: null });
    assert.deepEqual([r.status, r.body], [401, { error: 1, message: 'A valid API key is required to use this service.' }], `${method} ${path}`);
    assert.equal(r.headers.get('allow'), null);
  }
  const analytics = await call('POST', '/api/v1/stats/1', { key: 'sk_wrong' });
  assert.deepEqual([analytics.status, analytics.body], [401, { message: 'Unauthenticated.', status: 401 }]);
  const unknown = await call('DELETE', '/api/nothing-here');
  assert.deepEqual([unknown.status, unknown.body, unknown.headers.get('allow')], [404, { error: 1, message: 'Endpoint not found.' }, null]);
  const unknownAnalytics = await call('PUT', '/api/v1/nothing');
  assert.deepEqual([unknownAnalytics.status, unknownAnalytics.body], [404, { message: 'Resource not found.', status: 404 }]);
});
