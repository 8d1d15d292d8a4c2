import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteScopes } from '../src/auth/route-scopes.ts';
import { SCOPES, SCOPE_AREAS, covers, isScope, normalScopes } from '../src/auth/scopes.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { keyedRoutes } from './key-helpers.ts';

test('scopes: * covers everything, x:* both verbs of x, any other scope itself only', () => {
  const cases: [string[], string, boolean][] = [
    [['*'], 'links:write', true],
    [['*'], '*', true],
    [['links:*'], 'links:read', true],
    [['links:*'], 'links:write', true],
    [['links:*'], 'links:*', true],
    [['links:*'], 'qr:read', false],
    [['links:*'], '*', false],
    [['links:read'], 'links:write', false],
    [['links:read'], 'links:*', false],
    [['links:read', 'links:write'], 'links:write', true],
    [['stats:read'], 'websites:read', false],
    [[], 'links:read', false],
  ];
  for (const [held, needed, want] of cases) assert.equal(covers(held, needed), want, `${held.join(',')} → ${needed}`);
  assert.deepEqual(normalScopes(['qr:*', 'links:read', 'qr:*', '*']), ['*', 'links:read', 'qr:*']);
  assert.ok(isScope('stats:read') && !isScope('stats:write') && !isScope('stats:*') && !isScope('links') && !isScope('links:delete'));
  for (const area of ['links', 'qr', 'campaigns', 'channels', 'domains', 'pixels', 'files', 'websites', 'webhooks', 'keys', 'account']) assert.ok(isScope(`${area}:*`), area);
});

test('every route of both APIs that takes a key needs exactly one scope, derived from the resource table', async () => {
  const scopes = new RouteScopes(RESOURCES);
  const routes = await keyedRoutes();
  assert.ok(routes.length >= 60, `${routes.length} routes`);
  const used = new Set<string>();
  for (const r of routes) {
    const rule = scopes.of(r.method, r.path);
    assert.ok(rule, `${r.method} ${r.path} has no scope`);
    assert.ok(isScope(rule.scope), `${r.method} ${r.path}: ${rule.scope}`);
    const write = r.path === '/api/user/login/:id' || (!['GET', 'HEAD'].includes(r.method) && !['/api/url/get', '/api/url/stats', '/api/user/get'].includes(r.path));
    assert.equal(rule.write, write, `${r.method} ${r.path}`);
    used.add(rule.scope);
  }
  // Every scope a route can need is needed by some route (webhooks come with their routes).
  const needed = SCOPES.filter((s) => !s.endsWith(':*') && !s.startsWith('webhooks:'));
  assert.deepEqual(needed.filter((s) => !used.has(s)), []);
  assert.deepEqual(Object.keys(SCOPE_AREAS).filter((a) => a !== 'webhooks' && ![...used].some((s) => s.startsWith(`${a}:`))), []);
});

test('what some routes need', () => {
  const scopes = new RouteScopes(RESOURCES);
  const table: [string, string, string, boolean][] = [
    ['GET', '/api/urls', 'links:read', false],
    ['POST', '/api/url/add', 'links:write', true],
    ['POST', '/api/url/get', 'links:read', false],
    ['POST', '/api/url/stats', 'links:read', false],
    ['DELETE', '/api/qr/:id/delete', 'qr:write', true],
    ['POST', '/api/campaign/:campaignid/assign/:linkid', 'campaigns:write', true],
    ['GET', '/api/channel/:id', 'channels:read', false],
    ['POST', '/api/files/upload/:filename', 'files:write', true],
    ['PATCH', '/api/v1/websites/:id', 'websites:write', true],
    ['GET', '/api/v1/stats/:id', 'stats:read', false],
    ['GET', '/api/v1/account', 'account:read', false],
    ['PUT', '/api/account/update', 'account:write', true],
    ['POST', '/api/account/rotate-key', '*', true],
    ['GET', '/api/plans', 'account:read', false],
    ['PUT', '/api/plan/:planid/user/:userid', '*', true],
    ['GET', '/api/users', '*', false],
    ['POST', '/api/user/get', '*', false],
    ['GET', '/api/user/login/:id', '*', true],
    ['POST', '/api/keys', 'keys:write', true],
    ['GET', '/api/audit', 'audit:read', false],
    // Routes of the open issues, mapped by their segment before they exist.
    ['POST', '/api/url/bulk', 'links:write', true],
    ['GET', '/api/webhooks', 'webhooks:read', false],
  ];
  for (const [method, path, scope, write] of table) assert.deepEqual(scopes.of(method, path), { ...scopes.of(method, path)!, scope, write }, `${method} ${path}`);
  assert.equal(scopes.of('GET', '/api/unknown-thing'), null);
  assert.equal(scopes.of('GET', '/qr/:alias'), null);
  // Any method a client sends is one of two: read (GET, HEAD) or write.
  assert.equal(scopes.of('FROB', '/api/users')?.write, true);
});

test('two rows claiming the same path segment for different areas stop the start', () => {
  const [links] = RESOURCES.filter((r) => r.collection === 'links');
  assert.throws(() => new RouteScopes([links!, { ...links!, collection: 'other', scope: 'qr' }]), /two areas/);
});

test('a method reads the same in any letter case (the OpenAPI document writes them in lower case)', () => {
  const scopes = new RouteScopes(RESOURCES);
  assert.equal(scopes.of('get', '/api/v1/stats/:id')?.scope, 'stats:read');
  assert.equal(scopes.of('head', '/api/urls')?.scope, 'links:read');
  assert.equal(scopes.of('post', '/api/url/add')?.scope, 'links:write');
});
