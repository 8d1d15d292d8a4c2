import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { RouteScopes } from '../src/auth/route-scopes.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { openApiDocument } from '../src/openapi/document.ts';
import { openApiPath } from '../src/openapi/operation.ts';
import { isReferenceOperation } from '../src/openapi/reference.ts';
import { defineResource } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { testApp } from './helpers.ts';

const { app, config, call } = await testApp({ openRegistration: true });
const doc = openApiDocument({ resources: RESOURCES, config });
const scopes = new RouteScopes(RESOURCES);
const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

test('the validator refuses a broken document', async () => {
  const broken = structuredClone(doc);
  delete (broken.paths['/api/qr']!.get!.responses as Record<string, { description?: string }>)['200']!.description;
  assert.equal((await new Validator().validate(broken)).valid, false);
});

test('the document is valid OpenAPI 3.1 and every $ref resolves', async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(validator.version, '3.1');
  assert.doesNotThrow(() => validator.resolveRefs());
  const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/(schemas|headers)\/[^"]+"/g) ?? [];
  const components = doc.components as Record<string, Record<string, unknown>>;
  for (const r of new Set(refs)) {
    const [, kind, name] = /components\/(\w+)\/([^"]+)"/.exec(r)!;
    assert.ok(components[kind!]?.[name!], `unresolved ${r}`);
  }
});

test('every route the app serves is documented, and every documented operation is served', async () => {
  // Middleware is registered for ALL methods, or for `/*` (the body limit, on the methods with a body).
  const served = new Set(app.routes.filter((r) => r.method !== 'ALL' && r.path !== '/*').map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`));
  const documented = new Set(operations.map((o) => `${o.method} ${o.path}`));
  // The only routes beside the operations answer 405, in front of a less literal pattern (GET /api/url/add, not GET /api/url/{id}).
  const undocumented = [...served].filter((k) => !documented.has(k));
  assert.ok(undocumented.includes('get /api/url/add'));
  for (const k of undocumented) {
    const [method, path] = k.split(' ') as [string, string];
    assert.equal((await call(method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'))).status, 405, `${k} is served but not documented`);
  }
  assert.deepEqual([...documented].filter((k) => !served.has(k)), [], 'documented but not served');
});

test('each row of the table is documented at its own paths, with its list key and examples', () => {
  const methods = { list: 'get', get: 'get', create: 'post', update: 'put', remove: 'delete' } as const;
  for (const row of RESOURCES) {
    for (const [kind, path] of Object.entries(row.paths)) {
      const op = doc.paths[openApiPath(path)]?.[methods[kind as keyof typeof methods]];
      assert.ok(op, `${row.name} ${kind} ${path}`);
      if (kind === 'create') {
        const content = (op.requestBody as { content: Record<string, { example: unknown }> }).content;
        for (const media of Object.values(content)) assert.deepEqual(media.example, row.example(1), `${row.name} create example`);
      }
    }
    if (row.paths.list && row.api !== 'analytics') {
      const list = (doc.components as { schemas: Record<string, { properties: { data: { type: string; properties: object } } }> }).schemas[`${row.name.charAt(0).toUpperCase()}${row.name.slice(1)}List`];
      // A plain list (the admin users list) has its entries right under `data`; a flat one (files) has no `data`.
      if (row.listShape === 'plain') assert.equal(list?.properties.data.type, 'array', `${row.name} plain list`);
      else if (row.listShape === 'flat') assert.ok(list && !('data' in list.properties) && row.listKey in list.properties, `${row.name} flat list key ${row.listKey}`);
      else assert.ok(list && row.listKey in list.properties.data.properties, `${row.name} list key ${row.listKey}`);
    }
  }
});

test('create and update bodies come from the row: its fields, and its required ones', () => {
  const schemas = (doc.components as { schemas: Record<string, { properties: object; required?: string[] }> }).schemas;
  const qr = RESOURCES.find((r) => r.name === 'qr')!;
  assert.deepEqual(Object.keys(schemas.QrCreate!.properties), Object.keys(qr.fields));
  assert.deepEqual(schemas.QrCreate!.required, ['type', 'data']);
  assert.deepEqual(schemas.QrUpdate!.required, ['data']);
  assert.deepEqual(Object.keys(schemas.PixelUpdate!.properties), ['name', 'tag']);
  // The name defaults to '' and is then refused: required in the document although optional to the converter.
  assert.deepEqual(schemas.CampaignCreate!.required, ['name']);
  assert.deepEqual((schemas.WebsiteCreate!.properties as Record<string, unknown>).privacy, { enum: [0, 1, 2], type: 'number', default: 0 });
});

test('operations outside the reference, and extension rows, are marked x-extension', () => {
  for (const { path, method, op } of operations) {
    const hono = path.replace(/\{(\w+)\}/g, ':$1');
    assert.equal(op['x-extension'] === true, !isReferenceOperation(method, hono), `${method} ${path}`);
    if (op['x-extension']) assert.match(String(op.description), /Extension/);
  }
  const tags = doc.tags as { name: string; 'x-extension'?: boolean }[];
  for (const name of ['Links', 'Bio pages', 'CTA overlays', 'Splash pages']) assert.equal(tags.find((t) => t.name === name)?.['x-extension'], true, name);
  assert.equal(tags.find((t) => t.name === 'QR codes')?.['x-extension'], undefined);
  assert.equal(doc.paths['/api/qr']?.get?.['x-extension'], undefined);
  assert.equal(doc.paths['/api/overlay/{id}']?.get?.['x-extension'], true);
});

test('authenticated operations use the bearer scheme and document the rate-limit headers; public ones need no key', () => {
  for (const { path, method, op } of operations) {
    const security = op.security as unknown[];
    const responses = op.responses as Record<string, { headers?: Record<string, unknown> }>;
    if (path.startsWith('/api/') && !['/api/', '/api/register', '/api/event'].includes(path)) {
      // The one scope a key needs for it, as the server checks it.
      const hono = path.replace(/\{(\w+)\}/g, ':$1');
      assert.deepEqual(security, [{ bearer: [scopes.of(method, hono)!.scope] }], `${method} ${path}`);
      assert.match(String((responses['403'] as { description?: string } | undefined)?.description), /lacks the scope/, `${method} ${path} 403`);
      for (const status of ['200', '201', '404', '429']) {
        if (responses[status]) assert.ok(responses[status].headers?.['X-RateLimit-Remaining'], `${method} ${path} ${status}`);
      }
      assert.ok(responses['401'] && responses['429']?.headers?.['Retry-After'], `${method} ${path} errors`);
    } else {
      assert.deepEqual(security, [], `${method} ${path}`);
    }
  }
  assert.equal((doc.components as { securitySchemes: { bearer: { scheme: string } } }).securitySchemes.bearer.scheme, 'bearer');
});

test('operation ids are unique', () => {
  const ids = operations.map((o) => o.op.operationId);
  assert.equal(new Set(ids).size, ids.length);
});

test('a row with a response hook but no shape for it stops the document', () => {
  const odd = defineResource({ name: 'odd', collection: 'odds', api: 'link', owned: true, fields: {}, paths: { get: '/api/odd/:id' }, listKey: 'odds', messages: { notFound: 'x', updated: '', deleted: '' }, example: () => ({}), entry: () => ({}), single: () => ({}) });
  assert.throws(() => openApiDocument({ resources: [odd], config }), /no response shapes/);
  const pixel = RESOURCES.find((r) => r.name === 'pixel')!;
  assert.throws(() => openApiDocument({ resources: [{ ...pixel, single: () => ({}) }], config }), /single\(\) hook but no "single" in its `shapes`/);
});

test('GET /openapi.json answers the document; GET /docs lists every path and operation, self-contained', async () => {
  const json = await call('GET', '/openapi.json', { key: null });
  assert.equal(json.status, 200);
  assert.deepEqual(json.body, JSON.parse(JSON.stringify(doc)));
  const page = await call('GET', '/docs', { key: null });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  assert.doesNotMatch(page.text, /<script|https?:\/\/(?!sho\.rt)[^"'\s<]*\.(js|css)/);
  for (const { path, method, op } of operations) {
    // Paths break after their slashes and dots only (<wbr>), never inside a word.
    const escaped = path.replace(/&/g, '&amp;').replace(/([/.])(?=\S)/g, '$1<wbr>');
    assert.ok(page.text.includes(`<code>${escaped}</code>`), `docs lists ${path}`);
    assert.ok(page.text.includes(`id="${String(op.operationId)}"`), `docs has ${method} ${path}`);
  }
  assert.match(page.text, /curl -X POST &#39;http:\/\/sho\.rt\/api\/qr\/add&#39;/);
});

test('the document and /docs name the scope each operation needs, mark admin operations, and list every scope', async () => {
  const page = (await call('GET', '/docs', { key: null })).text;
  for (const scope of SCOPES) assert.ok(page.includes(`<code class="nw">${scope}</code>`), scope);
  const article = (id: string) => page.slice(page.indexOf(`<article id="${id}">`), page.indexOf('</article>', page.indexOf(`<article id="${id}">`)));
  assert.match(article('createLink'), /scope <code class="nw">links:write<\/code><\/span>/);
  assert.match(article('listUser'), /scope <code class="nw">\*<\/code> · admin only/);
  assert.match(article('rotateAccountKey'), /scope <code class="nw">\*<\/code><\/span>/);
  assert.equal(doc.paths['/api/users']?.get?.['x-admin'], true);
  assert.equal(doc.paths['/api/account/rotate-key']?.post?.['x-admin'], undefined);
  assert.deepEqual(doc.paths['/api/v1/stats/{id}']?.get?.security, [{ bearer: ['stats:read'] }]);
});
