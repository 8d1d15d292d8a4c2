import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

test('bio pages', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const add = (body: unknown, key = alice.key) => call('POST', '/api/bio/add', { key, body });

  await t.test('add without alias generates a free 6-character one and answers id and link', async () => {
    const r = await add({ name: 'About me' });
    assert.equal(r.status, 200, r.text);
    const stored = (await store.get('bios', r.body.id))!;
    assert.match(String(stored.alias), /^[A-Za-z0-9]{6}$/);
    assert.deepEqual(r.body, { error: 0, id: r.body.id, link: `http://sho.rt/u/${stored.alias}` });
    assert.deepEqual({ ...stored }, { id: r.body.id, userId: alice.id, date: '2026-11-21 10:00:00', name: 'About me', alias: stored.alias, channels: [] });
    const got = await call('GET', `/api/bio/${r.body.id}`, { key: alice.key });
    assert.deepEqual(got.body, { error: 0, data: { id: r.body.id, name: 'About me', alias: stored.alias, link: `http://sho.rt/u/${stored.alias}`, date: '2026-11-21 10:00:00' } });
  });

  await t.test('aliases are unique across the server, whatever the case', async () => {
    assert.equal((await add({ name: 'Mine', alias: 'jane' })).status, 200);
    for (const [alias, key] of [['jane', bob.key], ['JANE', alice.key]] as const) {
      const before = await snapshotOf(store, 'bios');
      const r = await add({ name: 'Copy', alias }, key);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message: 'That alias is taken. Please choose another one.' }], alias);
      assert.equal(await snapshotOf(store, 'bios'), before);
    }
  });

  await t.test('invalid names and aliases are refused, storing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'Bio page name must be 2 to 100 characters.'],
      [{ name: 'n'.repeat(101) }, 'Bio page name must be 2 to 100 characters.'],
      [{ name: 'Fine', alias: 'ab' }, 'Alias must be 3 to 64 letters, digits, dashes or underscores.'],
      [{ name: 'Fine', alias: 'a b c' }, 'Alias must be 3 to 64 letters, digits, dashes or underscores.'],
    ];
    const before = await snapshotOf(store, 'bios');
    for (const [body, message] of cases) {
      const r = await add(body);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message }], JSON.stringify(body));
    }
    assert.equal(await snapshotOf(store, 'bios'), before);
  });

  await t.test('update may keep its own alias but not take another', async () => {
    const id = (await add({ name: 'Second', alias: 'second' })).body.id;
    const same = await call('PUT', `/api/bio/${id}/update`, { key: alice.key, body: { alias: 'SECOND' } });
    assert.deepEqual([same.status, same.body], [200, { error: 0, message: 'Bio page has been updated successfully.' }]);
    assert.equal((await store.get('bios', id))!.alias, 'SECOND');
    const before = await snapshotOf(store, 'bios');
    const taken = await call('PUT', `/api/bio/${id}/update`, { key: alice.key, body: { alias: 'jane' } });
    assert.deepEqual([taken.status, taken.body], [400, { error: 1, message: 'That alias is taken. Please choose another one.' }]);
    assert.equal(await snapshotOf(store, 'bios'), before);
  });
});
