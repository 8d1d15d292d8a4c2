import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyPassword } from '../src/auth/passwords.ts';
import { snapshotOf, testApp } from './helpers.ts';

test('account', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const me = await makeUser('me');
  await makeUser('other');

  await t.test('GET /api/account answers the account of the key, without secrets', async () => {
    const r = await call('GET', '/api/account', { key: me.key });
    assert.equal(r.status, 200);
    assert.equal(r.body.error, 0);
    assert.deepEqual(Object.keys(r.body.data).sort(), ['avatar', 'email', 'expires', 'id', 'planid', 'registered', 'status', 'username']);
    assert.deepEqual([r.body.data.id, r.body.data.email, r.body.data.status], [me.id, 'user_me@example.com', 'free']);
    assert.equal(r.body.data.registered, '2026-11-21 10:00:00');
    assert.match(r.body.data.avatar, /^https:\/\//);
  });

  await t.test('update with nothing new says no changes were done', async () => {
    const r = await call('PUT', '/api/account/update', { key: me.key, body: { email: 'user_me@example.com' } });
    assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'No changes were done to the account.' }]);
  });

  const rejected: [unknown, string][] = [
    [{ email: 'nope' }, 'Please enter a valid email.'],
    [{ email: 'user_other@example.com' }, 'An account is already associated with this email.'],
    [{ password: 'abc' }, 'Password must be at least 5 characters.'],
    [{ email: 42 }, 'Invalid email: Invalid type: Expected string but received 42.'],
  ];
  for (const [body, message] of rejected) {
    await t.test(`rejects ${JSON.stringify(body)} and changes nothing`, async () => {
      const before = await snapshotOf(store, 'users');
      const r = await call('PUT', '/api/account/update', { key: me.key, body });
      assert.deepEqual([r.status, r.body], [400, { error: 1, message }]);
      assert.equal(await snapshotOf(store, 'users'), before);
    });
  }

  await t.test('email and password change; the password is stored hashed', async () => {
    const r = await call('PUT', '/api/account/update', { key: me.key, body: { email: 'new@example.com', password: 'brand-new' } });
    assert.deepEqual(r.body, { error: 0, message: 'Account has been successfully updated.' });
    const stored = (await store.get('users', me.id))!;
    assert.equal(stored.email, 'new@example.com');
    assert.equal(await verifyPassword('brand-new', String(stored.password)), true);
  });
});
