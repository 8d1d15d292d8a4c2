import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, collectionsOf } from '../src/resources/table.ts';
import { testApp } from './helpers.ts';
import { fingerprint } from './backend.ts';

type Rec = Record<string, unknown>;

/** An id nobody has. */
const MISSING = 999_999;

/** A route that takes ids: each path variable names the collection it points into; `body` may carry ids too. */
interface IdRoute {
  method: string;
  path: string;
  ids: Record<string, string>;
  body?: Rec;
  query?: string;
}

/** Every route that takes an id in its path: each row's get/update/remove, then the special routes. */
function pathRoutes(): IdRoute[] {
  const out: IdRoute[] = [];
  for (const row of RESOURCES) {
    const ids = { id: row.collection };
    const fields = row.update?.fields ?? Object.keys(row.fields);
    const body = Object.fromEntries(Object.entries(row.example(77)).filter(([k]) => fields.includes(k)));
    if (row.paths.get) out.push({ method: 'GET', path: row.paths.get, ids });
    for (const method of row.paths.update ? (row.api === 'analytics' ? ['PUT', 'PATCH'] : ['PUT']) : []) out.push({ method, path: row.paths.update!, ids, body });
    if (row.paths.remove) out.push({ method: 'DELETE', path: row.paths.remove, ids });
  }
  out.push(
    { method: 'POST', path: '/api/campaign/:campaignid/assign/:linkid', ids: { campaignid: 'campaigns', linkid: 'links' } },
    { method: 'GET', path: '/api/channel/:id', ids: { id: 'channels' } },
    ...(['links', 'bios', 'qrs'] as const).map((c) => ({
      method: 'POST',
      path: `/api/channel/:channelid/assign/${c === 'bios' ? 'bio' : c === 'qrs' ? 'qr' : 'links'}/:itemid`,
      ids: { channelid: 'channels', itemid: c },
    })),
    { method: 'GET', path: '/api/v1/stats/:id', ids: { id: 'websites' }, query: 'name=pageviews&from=2026-11-01&to=2026-11-21' },
    { method: 'POST', path: '/api/user/:id/rotate-key', ids: { id: 'users' }, body: {} },
  );
  return out;
}

/** Body fields holding ids of the user's other records: the table's references, and links' own spellings of them. */
function bodyReferences(): { row: (typeof RESOURCES)[number]; field: string; collection: string; value: (id: number) => unknown }[] {
  const out = [];
  for (const row of RESOURCES) {
    for (const [field, ref] of Object.entries(row.references ?? {})) {
      if (field in row.fields) out.push({ row, field, collection: ref.collection, value: (id: number) => (ref.many ? [id] : id) });
    }
  }
  const links = RESOURCES.find((r) => r.collection === 'links')!;
  out.push(
    { row: links, field: 'channel', collection: 'channels', value: (id: number) => id },
    { row: links, field: 'type', collection: 'splash', value: (id: number) => String(id) },
    { row: links, field: 'type', collection: 'overlays', value: (id: number) => `overlay-${id}` },
  );
  return out;
}

test("user B acting on user A's records gets exactly what a missing id gets, and nothing changes", async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 0, analyticsRateLimit: 0 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  // Each user gets one record of every kind; B's own ids fill the path variables not under test.
  const own = { alice: new Map<string, number>([['users', alice.id]]), bob: new Map<string, number>([['users', bob.id]]) };
  for (const [who, user, n] of [['alice', alice, 1], ['bob', bob, 2]] as const) {
    for (const row of RESOURCES.filter((r) => r.owned && r.paths.create)) {
      const r = await call('POST', row.paths.create!, { key: user.key, body: row.example(n) });
      assert.ok(r.status === 200 || r.status === 201, `${who} ${row.name}: ${r.text}`);
      own[who].set(row.collection, r.body.id ?? r.body.data.id);
    }
  }
  const dump = () => fingerprint(store, collectionsOf(RESOURCES));
  const before = await dump();
  let pairs = 0;

  /** B sends the request twice, once with A's id and once with a missing one: both answers must be the same refusal. */
  async function same(label: string, send: (id: number) => Promise<{ status: number; body: Rec }>, aliceId: number) {
    const theirs = await send(aliceId);
    const missing = await send(MISSING);
    // Reference messages name the id that was sent: compare them with the id left out.
    const plain = (body: Rec, id: number) => (typeof body.message === 'string' ? { ...body, message: body.message.replace(new RegExp(`\\b${id}\\b`), '<id>') } : body);
    assert.ok(theirs.status >= 400 && theirs.status < 500, `${label}: ${theirs.status} ${JSON.stringify(theirs.body)}`);
    assert.deepEqual([theirs.status, plain(theirs.body, aliceId)], [missing.status, plain(missing.body, MISSING)], label);
    assert.equal(await dump(), before, `${label}: nothing changed`);
    pairs++;
  }

  await t.test('path ids', async () => {
    for (const route of pathRoutes()) {
      for (const [param, collection] of Object.entries(route.ids)) {
        const label = `${route.method} ${route.path} (${param} = A's ${collection})`;
        const path = (id: number) =>
          route.path.replace(/:(\w+)/g, (_, name: string) => String(name === param ? id : (own.bob.get(route.ids[name]!) ?? MISSING))) + (route.query ? `?${route.query}` : '');
        await same(label, (id) => call(route.method, path(id), { key: bob.key, body: route.body }), own.alice.get(collection)!);
      }
    }
  });

  await t.test('ids inside bodies', async () => {
    for (const ref of bodyReferences()) {
      const targets = [ref.row.paths.create!, ref.row.paths.update?.replace(':id', String(own.bob.get(ref.row.collection)))].filter((p): p is string => !!p);
      for (const [i, path] of targets.entries()) {
        const label = `${i ? 'PUT' : 'POST'} ${path} (${ref.field} = A's ${ref.collection})`;
        const body = (id: number) => ({ ...ref.row.example(500 + pairs), [ref.field]: ref.value(id) });
        await same(label, (id) => call(i ? 'PUT' : 'POST', path, { key: bob.key, body: body(id) }), own.alice.get(ref.collection)!);
      }
    }
  });

  await t.test("a short URL of A's link: the real product's 403, which changes nothing and shows nothing of the link", async () => {
    // The one place where another user's record does not answer like a missing one: clients of the
    // real product expect its message (docs/compatibility.md); short URLs are public anyway.
    const alias = (await store.get<{ id: number; alias: string }>('links', own.alice.get('links')!))!.alias;
    const theirs = await call('GET', `/api/urls?short=${encodeURIComponent(`http://sho.rt/${alias}`)}`, { key: bob.key });
    assert.deepEqual([theirs.status, theirs.body], [403, { error: 1, message: 'You do not have the permission to access this short url.' }]);
    const missing = await call('GET', `/api/urls?short=${encodeURIComponent('http://sho.rt/no-such-alias')}`, { key: bob.key });
    assert.deepEqual([missing.status, missing.body], [404, { error: 1, message: 'Invalid short url. Please try again.' }]);
    assert.equal(await dump(), before, 'nothing changed');
  });

  await t.test("A's branded domain in B's link", async () => {
    const domain = String((await store.get('domains', own.alice.get('domains')!))!.domain);
    await same('POST /api/url/add (domain = A’s)', (id) => call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/x', domain: id === MISSING ? 'https://missing.example.net' : domain } }), 0);
  });

  assert.ok(pairs >= 40, `${pairs} pairs compared`);
});
