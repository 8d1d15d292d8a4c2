import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiKey } from '../src/auth/keys.ts';
import { ADMIN_KEY, snapshotOf, testApp } from './helpers.ts';

const FORBIDDEN = { error: 1, message: 'You do not have permission to access this endpoint.' };

test('admin user endpoints', async (t) => {
  const { call, store } = await testApp({ rateLimit: 1000 });

  let created: { id: number; apikey: string };
  await t.test('user/add creates a user and shows its key once; only the hash is stored', async () => {
    const r = await call('POST', '/api/user/add', { body: { username: 'carol', email: 'carol@example.com', password: 'secret-1', planid: 2, expiration: '2027-01-01' } });
    assert.equal(r.status, 200, r.text);
    // The real product's answer, with the key beside it (shown this once).
    assert.deepEqual(Object.keys(r.body).sort(), ['data', 'error', 'message']);
    assert.deepEqual({ ...r.body, data: { ...r.body.data, apikey: '' } }, { error: 0, message: 'User has been registered.', data: { id: r.body.data.id, email: 'carol@example.com', username: 'carol', apikey: '' } });
    assert.match(r.body.data.apikey, /^sk_/);
    created = r.body.data;
    const stored = (await store.get('users', r.body.data.id))!;
    assert.equal(stored.keyHash, hashApiKey(r.body.data.apikey));
    assert.ok(!JSON.stringify(stored).includes(r.body.data.apikey));
    assert.match(String(stored.password), /^scrypt\$/);
    assert.deepEqual([stored.status, stored.planid, stored.expires, stored.admin], ['pro', 2, '2027-01-01 00:00:00', false]);
  });

  await t.test('the new key works and is never shown again', async () => {
    const me = await call('GET', '/api/account', { key: created.apikey });
    assert.equal(me.body.data.email, 'carol@example.com');
    const list = await call('GET', '/api/users');
    assert.ok(!list.text.includes(created.apikey));
    assert.ok(!list.text.includes('keyHash') && !list.text.includes('scrypt'));
    const one = await call('GET', `/api/user/${created.id}`);
    assert.deepEqual(Object.keys(one.body.data).sort(), ['admin', 'avatar', 'disabled', 'email', 'expires', 'id', 'planid', 'registered', 'status', 'username']);
  });

  await t.test('duplicate email and invalid fields are 400 and store nothing', async () => {
    const cases: [unknown, string | RegExp][] = [
      [{ username: 'carol2', email: 'CAROL@example.com', password: 'secret-1' }, 'An account is already associated with this email.'],
      [{ username: 'carol', email: 'c3@example.com', password: 'secret-1' }, 'That username is already taken.'],
      [{ username: 'dave', email: 'not-an-email', password: 'secret-1' }, 'Please enter a valid email.'],
      [{ username: 'dave', email: 'dave@example.com', password: '1234' }, 'Password must be at least 5 characters.'],
      [{ username: 'dave', email: 'dave@example.com' }, 'Missing required parameter: password'],
      [{ username: 'dave', email: 'dave@example.com', password: 'secret-1', expiration: 'soon' }, /YYYY-MM-DD/],
    ];
    for (const [body, message] of cases) {
      const before = await snapshotOf(store, 'users');
      const r = await call('POST', '/api/user/add', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      if (typeof message === 'string') assert.equal(r.body.message, message);
      else assert.match(r.body.message, message);
      assert.equal(await snapshotOf(store, 'users'), before);
    }
  });

  await t.test('list filters by email and by admin/free/pro', async () => {
    await call('POST', '/api/user/add', { body: { username: 'erin', email: 'erin@example.com', password: 'secret-1' } });
    const byEmail = await call('GET', '/api/users?email=erin@example.com');
    assert.deepEqual(byEmail.body.data.map((u: { username: string }) => u.username), ['erin']);
    const admins = await call('GET', '/api/users?filter=admin');
    assert.deepEqual(admins.body.data.map((u: { username: string }) => u.username), ['admin']);
    const free = await call('GET', '/api/users?filter=free');
    assert.deepEqual(free.body.data.map((u: { username: string }) => u.username), ['erin']);
    const pro = await call('GET', '/api/users?filter=pro');
    assert.deepEqual(pro.body.data.map((u: { username: string }) => u.username).sort(), ['admin', 'carol']);
    assert.equal((await call('GET', '/api/users?filter=vip')).status, 400);
  });

  await t.test('a non-admin key gets 403 on every admin endpoint, and nothing changes', async () => {
    const before = await snapshotOf(store, 'users');
    const key = created.apikey;
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/users'],
      ['GET', '/api/user/1'],
      ['POST', '/api/user/add', { username: 'mallory', email: 'm@example.com', password: 'secret-1' }],
      ['DELETE', '/api/user/1/delete'],
      ['POST', '/api/user/1/rotate-key'],
    ];
    for (const [method, path, body] of calls) {
      const r = await call(method, path, { key, body });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN], `${method} ${path}`);
    }
    assert.equal(await snapshotOf(store, 'users'), before);
  });

  await t.test('rotate-key returns a new key once; the old one stops working', async () => {
    const r = await call('POST', `/api/user/${created.id}/rotate-key`);
    assert.equal(r.status, 200);
    assert.notEqual(r.body.apikey, created.apikey);
    assert.equal((await call('GET', '/api/account', { key: created.apikey })).status, 401);
    assert.equal((await call('GET', '/api/account', { key: r.body.apikey })).status, 200);
    created.apikey = r.body.apikey;
    assert.equal((await call('POST', '/api/user/9999/rotate-key')).status, 404);
  });

  await t.test('deleting a user removes everything the user owns', async () => {
    const key = created.apikey;
    const pixel = await call('POST', '/api/pixel/add', { key, body: { type: 'bing', name: 'p', tag: 't' } });
    const link = await call('POST', '/api/url/add', { key, body: { url: 'https://example.com' } });
    assert.equal(pixel.status, 200);
    const r = await call('DELETE', `/api/user/${created.id}/delete`);
    assert.deepEqual(r.body, { error: 0, message: 'User has been successfully deleted.' });
    assert.equal((await store.get('users', created.id)), undefined);
    assert.equal((await store.get('pixels', pixel.body.id)), undefined);
    assert.equal((await store.get('links', link.body.id)), undefined);
    assert.equal((await call('GET', '/api/account', { key })).status, 401);
  });

  await t.test('the admin cannot delete its own account: 400, and it and what it owns stay', async () => {
    const link = await call('POST', '/api/url/add', { body: { url: 'https://example.com/admins-own', custom: 'admins-own' } });
    assert.equal(link.status, 200, link.text);
    const admin = (await call('GET', '/api/account')).body.data as { id: number };
    const r = await call('DELETE', `/api/user/${admin.id}/delete`);
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body, { error: 1, message: 'You cannot delete your own account.' });
    assert.ok(await store.get('users', admin.id), 'the admin is still there');
    assert.ok(await store.get('links', link.body.id), 'and its link');
    assert.equal((await call('GET', '/api/users')).status, 200);
  });
});

test('POST /api/register is a 404 unless OPEN_REGISTRATION is on', async () => {
  const closed = await testApp();
  const r = await closed.call('POST', '/api/register', { key: null, body: { email: 'a@example.com', username: 'aaa', password: 'secret-1' } });
  assert.equal(r.status, 404);
  assert.equal((await closed.store.count('users')), 1);

  const open = await testApp({ openRegistration: true });
  const ok = await open.call('POST', '/api/register', { key: null, body: { email: 'a@example.com', username: 'aaa', password: 'secret-1' } });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(Object.keys(ok.body).sort(), ['apikey', 'error', 'id']);
  assert.equal((await open.call('GET', '/api/account', { key: ok.body.apikey })).body.data.username, 'aaa');
  const again = await open.call('POST', '/api/register', { key: null, body: { email: 'a@example.com', username: 'bbb', password: 'secret-1' } });
  assert.deepEqual([again.status, again.body.message], [400, 'An account is already associated with this email.']);
  assert.equal((await open.store.count('users')), 2);
});

test('the admin created on first start uses ADMIN_API_KEY', async () => {
  const { call } = await testApp();
  const r = await call('GET', '/api/account', { key: ADMIN_KEY });
  assert.equal(r.body.data.username, 'admin');
});
