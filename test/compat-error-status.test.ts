import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openApiDocument } from '../src/openapi/document.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { snapshotOf, testApp } from './helpers.ts';

// Issue 16, item 10: ERROR_STATUS=200 answers link-API errors with HTTP 200 and `error: 1`, as the
// real product does; the default keeps meaningful statuses; the analytics API keeps them always.
test('ERROR_STATUS is read from the environment and the flag; anything but real or 200 is refused', () => {
  assert.equal(loadConfig({}).errorStatus, 'real');
  assert.equal(loadConfig({ ERROR_STATUS: '200' }).errorStatus, 200);
  assert.equal(loadConfig({}, ['--error-status', '200']).errorStatus, 200);
  assert.equal(loadConfig({ ERROR_STATUS: '200' }, ['--error-status=real']).errorStatus, 'real');
  for (const bad of ['400', 'ok', '2000']) assert.throws(() => loadConfig({ ERROR_STATUS: bad }), ConfigError, bad);
});

const LINK_ERRORS: [name: string, method: string, path: string, opts: { key?: null; body?: unknown }, status: number, message: RegExp][] = [
  ['no key', 'GET', '/api/urls', { key: null }, 401, /valid API key/],
  ['invalid url', 'POST', '/api/url/add', { body: { url: 'not a url' } }, 400, /valid URL/],
  ['missing url', 'POST', '/api/url/add', { body: {} }, 400, /Missing required parameter: url/],
  ['unknown link', 'GET', '/api/url/999', {}, 404, /Link does not exist/],
  ['unknown endpoint', 'GET', '/api/nothing-here', {}, 404, /Endpoint not found/],
  ['wrong method', 'DELETE', '/api/urls', {}, 405, /Method not allowed/],
];

for (const mode of ['real', 200] as const) {
  test(`link-API errors with ERROR_STATUS=${mode}: body {error: 1, message}, status ${mode === 200 ? '200' : 'meaningful'}, nothing stored`, async () => {
    const t = await testApp({ errorStatus: mode });
    const before = await snapshotOf(t.store, 'links');
    for (const [name, method, path, opts, real, message] of LINK_ERRORS) {
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

test('the OpenAPI document describes the setting it runs with', () => {
  const real = openApiDocument({ resources: RESOURCES, config: loadConfig({}) });
  const ok = openApiDocument({ resources: RESOURCES, config: loadConfig({ ERROR_STATUS: '200' }) });
  const add = (d: typeof real) => d.paths['/api/url/add']!.post!.responses as Record<string, any>;
  assert.ok(add(real)['400'], 'meaningful statuses are documented by default');
  assert.deepEqual(Object.keys(add(ok)), ['200']);
  const schema = add(ok)['200'].content['application/json'].schema;
  assert.deepEqual(schema.anyOf[1], { $ref: '#/components/schemas/LinkError' });
  const sites = ok.paths['/api/v1/websites']!.post!.responses as Record<string, unknown>;
  assert.ok(sites['422'] && sites['401'], 'the analytics API keeps its statuses');
  assert.match(String((ok.info as { description: string }).description), /ERROR_STATUS=200/);
});
