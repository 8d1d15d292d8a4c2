import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES } from '../src/resources/table.ts';
import { snapshotOf, testApp } from './helpers.ts';

// Every link-management row of the resource table gets the same checks, derived from the row.
const rows = RESOURCES.filter((r) => r.api === 'link' && r.owned && r.paths.create);

const at = (path: string, id: number | string) => path.replace(':id', String(id));

test('the table has link-management rows to test', () => {
  assert.ok(rows.length >= 1);
});

for (const row of rows) {
  test(`resource ${row.name}`, async (t) => {
    const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');

    const create = (n: number, key = alice.key) => call('POST', row.paths.create!, { key, body: row.example(n) });

    await t.test('create stores the record for its owner and answers error 0', async () => {
      const r = await create(1);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.error, 0);
      assert.equal(typeof r.body.id, 'number');
      const stored = (await store.get(row.collection, r.body.id));
      assert.ok(stored);
      assert.equal(stored.userId, alice.id);
      assert.match(String(stored.date), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    await t.test('list pages newest first with the envelope of the reference', async () => {
      for (let n = 2; n <= 4; n++) assert.equal((await create(n)).status, 200);
      const r = await call('GET', `${row.paths.list}?limit=2&page=1`, { key: alice.key });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.error, '0');
      const d = r.body.data;
      assert.deepEqual([d.result, d.perpage, d.currentpage, d.nextpage, d.maxpage], [4, 2, 1, 2, 2]);
      assert.equal(d[row.listKey].length, 2);
      assert.ok(d[row.listKey][0].id > d[row.listKey][1].id);
      const last = await call('GET', `${row.paths.list}?limit=2&page=2`, { key: alice.key });
      assert.equal(last.body.data.nextpage, null);
      const past = await call('GET', `${row.paths.list}?limit=2&page=9`, { key: alice.key });
      assert.equal(past.status, 200);
      assert.deepEqual(past.body.data[row.listKey], []);
      const others = await call('GET', row.paths.list!, { key: bob.key });
      assert.equal(others.body.data.result, 0);
    });

    await t.test('bad limit and page fall back to the defaults (15, page 1), as the real product reads them', async () => {
      for (const q of ['limit=0', 'limit=abc', 'page=-1', 'page=1.5', 'limit=', 'page=x']) {
        const r = await call('GET', `${row.paths.list}?${q}`, { key: alice.key });
        assert.equal(r.status, 200, q);
        assert.equal(r.body.error, '0');
        assert.equal(r.body.data.perpage, 15, q);
        assert.equal(r.body.data.currentpage, 1, q);
      }
      // Clients ask for 1,000 at a time: that many, no more.
      const most = await call('GET', `${row.paths.list}?limit=1000`, { key: alice.key });
      assert.deepEqual([most.body.data.perpage, most.body.data.maxpage], [1000, 1]);
      const capped = await call('GET', `${row.paths.list}?limit=1001`, { key: alice.key });
      assert.equal(capped.body.data.perpage, 1000);
    });

    if (row.paths.get) {
      await t.test('get answers the record; another user and odd ids get the same 404', async () => {
        const id = (await create(5)).body.id;
        const mine = await call('GET', at(row.paths.get!, id), { key: alice.key });
        assert.equal(mine.status, 200, mine.text);
        assert.equal(mine.body.error, 0);
        const missing = await call('GET', at(row.paths.get!, 999999), { key: alice.key });
        assert.equal(missing.status, 404);
        assert.deepEqual(missing.body, { error: 1, message: row.messages.notFound });
        const theirs = await call('GET', at(row.paths.get!, id), { key: bob.key });
        assert.deepEqual([theirs.status, theirs.body], [404, missing.body]);
        for (const odd of ['-1', '0', '1e99', '%2e%2e', '%00', 'x']) {
          const r = await call('GET', at(row.paths.get!, odd), { key: alice.key });
          // `%2e%2e` is `..`: the URL resolves to the parent, `/api/`, the API index; never a record.
          if (odd === '%2e%2e' && r.status === 200) assert.deepEqual([r.body.data, typeof r.body.version], [undefined, 'string'], odd);
          else assert.equal(r.status, 404, odd);
        }
      });
    }

    await t.test('each missing required field is a 400 naming it, and nothing is stored', async () => {
      for (const field of row.create?.required ?? []) {
        const before = await snapshotOf(store, row.collection);
        const body = { ...row.example(50) };
        delete body[field];
        const r = await call('POST', row.paths.create!, { key: alice.key, body });
        assert.equal(r.status, 400, `${field}: ${r.text}`);
        assert.equal(r.body.error, 1);
        assert.match(r.body.message, new RegExp(field));
        assert.equal(await snapshotOf(store, row.collection), before);
      }
    });

    await t.test('a wrong type in any field is a 400, and nothing is stored', async () => {
      for (const field of Object.keys(row.fields)) {
        const before = await snapshotOf(store, row.collection);
        const body = { ...row.example(51), [field]: { nested: { deep: [1, 2] } } };
        const r = await call('POST', row.paths.create!, { key: alice.key, body });
        assert.equal(r.status, 400, `${field}: ${r.text}`);
        assert.equal(r.body.error, 1);
        assert.equal(await snapshotOf(store, row.collection), before);
      }
    });

    await t.test('non-JSON, malformed and non-object bodies are refused, nothing stored', async () => {
      const before = await snapshotOf(store, row.collection);
      const cases = [
        { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 415 },
        { raw: '{"name": ', headers: { 'content-type': 'application/json' }, status: 400 },
        { raw: '[1,2]', headers: { 'content-type': 'application/json' }, status: 400 },
      ];
      for (const c of cases) {
        const r = await call('POST', row.paths.create!, { key: alice.key, raw: c.raw, headers: c.headers });
        assert.equal(r.status, c.status, c.raw);
        assert.equal(r.body.error, 1);
      }
      assert.equal(await snapshotOf(store, row.collection), before);
    });

    if (row.paths.update) {
      await t.test("update changes the owner's record; another user's id is a 404 and changes nothing", async () => {
        const id = (await create(6)).body.id;
        const fresh = row.example(600);
        const body = Object.fromEntries((row.update?.fields ?? Object.keys(row.fields)).filter((f) => f in fresh).map((f) => [f, fresh[f]]));
        const before = JSON.stringify((await store.get(row.collection, id)));
        const theirs = await call('PUT', at(row.paths.update!, id), { key: bob.key, body });
        assert.equal(theirs.status, 404);
        assert.deepEqual(theirs.body, { error: 1, message: row.messages.notFound });
        assert.equal(JSON.stringify((await store.get(row.collection, id))), before);
        const r = await call('PUT', at(row.paths.update!, id), { key: alice.key, body });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.error, 0);
        const stored = (await store.get(row.collection, id))!;
        // Fields stored under their request name must hold the new value (others are mapped by the row).
        const same = Object.entries(body).filter(([k, value]) => k in stored && typeof value !== 'object');
        assert.ok(same.length > 0, 'the update example changes at least one stored field');
        for (const [k, value] of same) assert.equal(stored[k], value, k);
      });
    }

    if (row.paths.remove) {
      await t.test("delete removes the owner's record; another user's id is a 404", async () => {
        const id = (await create(7)).body.id;
        const theirs = await call('DELETE', at(row.paths.remove!, id), { key: bob.key });
        assert.deepEqual([theirs.status, theirs.body], [404, { error: 1, message: row.messages.notFound }]);
        assert.ok((await store.get(row.collection, id)));
        const r = await call('DELETE', at(row.paths.remove!, id), { key: alice.key });
        assert.deepEqual([r.status, r.body], [200, { error: 0, message: row.messages.deleted }]);
        assert.equal((await store.get(row.collection, id)), undefined);
        const again = await call('DELETE', at(row.paths.remove!, id), { key: alice.key });
        assert.equal(again.status, 404);
      });
    }

    await t.test('every route needs a key and carries the rate-limit headers', async () => {
      const paths = [row.paths.list, row.paths.create].filter((p): p is string => !!p);
      for (const p of paths) {
        const anon = await call(p === row.paths.create ? 'POST' : 'GET', p, { key: null });
        assert.equal(anon.status, 401);
        assert.deepEqual(anon.body, { error: 1, message: 'A valid API key is required to use this service.' });
        assert.equal(anon.headers.get('www-authenticate'), 'Bearer');
      }
      const r = await call('GET', row.paths.list!, { key: alice.key });
      assert.equal(r.headers.get('x-ratelimit-limit'), '1000');
      assert.match(r.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
      assert.match(r.headers.get('x-ratelimit-reset') ?? '', /^\d{10}$/);
    });
  });
}
