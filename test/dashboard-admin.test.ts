import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { UserRecord } from '../src/resources/define.ts';
import { DashClient } from './dashboard-client.ts';
import { ADMIN_KEY, testApp } from './helpers.ts';

/** An app with the admin signed in (with the account key) and two users. */
async function world() {
  const t = await testApp({ rateLimit: 0 });
  const alice = await t.makeUser('alice');
  const bob = await t.makeUser('bob');
  const admin = new DashClient(t.app);
  await admin.get('/app/login');
  assert.equal((await admin.post('/app/login', { apikey: ADMIN_KEY })).status, 303);
  const adminId = (await t.store.find<UserRecord>('users', { conditions: [{ field: 'admin', equals: true }] })).items[0]!.id;
  const auditOf = async (owner: number) => {
    await t.audit.flush();
    return (await t.store.find('audit', { owner, sort: { field: 'id', direction: 'asc' } })).items.filter((e) => String(e.route).startsWith('/app')).map((e) => [e.route, e.resourceId, e.status]);
  };
  return { t, alice, bob, admin, adminId, auditOf };
}

test('the admin lists users with search and pages, makes one (key shown once) and deletes one; bad input stores nothing', async () => {
  const { t, alice, admin, adminId, auditOf } = await world();
  for (let i = 0; i < 26; i++) await t.makeUser(`many${i}`);
  const first = await admin.get('/app/admin/users');
  assert.equal(first.status, 200);
  assert.match(first.text, /29 users; page 1 of 2/);
  assert.match(first.text, /href="\/app\/admin\/users\?page=2">Next page/);
  const second = await admin.get('/app/admin/users?page=2');
  assert.match(second.text, /user_many25/);
  assert.doesNotMatch(second.text, /user_alice/);
  const found = await admin.get('/app/admin/users?q=alice');
  assert.match(found.text, /1 user; page 1 of 1/);
  assert.match(found.text, /user_alice@example.com/);

  const taken = await admin.post('/app/admin/users', { username: 'user_alice', email: 'fresh@example.com', password: 'secret-pw' });
  assert.equal(taken.status, 400);
  assert.match(taken.text, /id="username-error">[^<]*taken|id="username-error">[^<]*already/);
  assert.match(taken.text, /value="fresh@example.com"/);
  const short = await admin.post('/app/admin/users', { username: 'carol', email: 'carol@example.com', password: 'abc' });
  assert.equal(short.status, 400);
  assert.match(short.text, /id="password-error">Password must be at least 5/);
  assert.equal((await t.store.count('users')), 29);

  const posted = await admin.post('/app/admin/users', { username: 'carol', email: 'carol@example.com', password: 'carol-pw' });
  assert.equal(posted.status, 303);
  assert.match(posted.location ?? '', /^\/app\/admin\/users\?made=[0-9a-f]{16}$/);
  const made = await admin.get(posted.location!);
  assert.equal(made.status, 200);
  const apikey = /<code class="secret">([^<]+)<\/code>/.exec(made.text)?.[1];
  assert.ok(apikey);
  assert.equal((await t.call('GET', '/api/account', { key: apikey })).status, 200);
  const reloaded = await admin.get(posted.location!);
  assert.ok(!reloaded.text.includes(apikey), 'a reload shows the key no more');
  assert.match(reloaded.text, /The user was made\./);
  assert.ok(!(await admin.get('/app/admin/users?q=carol')).text.includes(apikey), 'the key is never shown again');

  const deleted = await admin.post(`/app/admin/users/${alice.id}/delete`);
  assert.equal(deleted.status, 303);
  assert.equal(await t.store.get('users', alice.id), undefined);
  assert.equal((await admin.post(`/app/admin/users/${alice.id}/delete`)).status, 404);
  assert.equal((await admin.post(`/app/admin/users/${adminId}/delete`)).status, 400);
  assert.ok(await t.store.get('users', adminId));
  const lines = await auditOf(adminId);
  assert.deepEqual(lines.slice(0, 3).map((l) => l[2]), [400, 400, 200]);
  assert.deepEqual(lines[3], ['/app/admin/users/:id/delete', alice.id, 200]);
});

test('"sign in as" opens a session as the user, audited under the admin, says so on every page, and goes back to the admin', async () => {
  const { t, alice, admin, adminId, auditOf } = await world();
  await admin.get('/app/admin/users');
  const adminCookie = admin.cookies.get('dash_session');
  const as = await admin.post(`/app/admin/users/${alice.id}/sign-in-as`);
  assert.equal(as.status, 303);
  assert.equal(as.location, '/app/links');
  const page = await admin.get('/app/account');
  assert.match(page.text, /<h1>user_alice<\/h1>/);
  assert.match(page.text, /are signed in as <strong>user_alice<\/strong>/);
  assert.match(page.text, /Back to /);
  assert.doesNotMatch(page.text, /href="\/app\/admin\/users"/, 'no admin screen while signed in as a user');
  assert.equal((await admin.get('/app/admin/users')).status, 404);
  // What is done is done as the user.
  await admin.get('/app/account/keys');
  assert.equal((await admin.post('/app/account/keys', { name: 'made as alice', scopes: ['links:read'] })).status, 303);
  assert.equal((await t.store.find('api_keys', { owner: alice.id })).total, 1);
  assert.deepEqual((await auditOf(adminId)).at(-1), ['/app/admin/users/:id/sign-in-as', alice.id, 200]);

  // A copied "sign in as" cookie without the admin's own one cannot go back to the admin.
  const thief = new DashClient(t.app);
  thief.cookies.set('dash_session', admin.cookies.get('dash_session')!);
  await thief.get('/app/account');
  const stolenBack = await thief.post('/app/admin/return');
  assert.equal(stolenBack.location, '/app/login');
  assert.equal(thief.cookies.get('dash_session'), undefined);

  // The admin's browser: signs in as again, and goes back.
  await admin.get('/app/links');
  admin.cookies.set('dash_session', adminCookie!);
  await admin.get('/app/admin/users');
  await admin.post(`/app/admin/users/${alice.id}/sign-in-as`);
  await admin.get('/app/account');
  const back = await admin.post('/app/admin/return');
  assert.equal(back.status, 303);
  assert.equal(back.location, '/app/admin/users?done=back');
  assert.equal(admin.cookies.get('dash_session'), adminCookie);
  assert.equal(admin.cookies.get('dash_admin'), undefined);
  assert.equal((await admin.get('/app/admin/users')).status, 200);
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0, 'the "sign in as" sessions ended');
  assert.deepEqual((await auditOf(adminId)).at(-1), ['/app/admin/return', alice.id, 200]);

  // Signing out while signed in as a user ends the admin's own session in this browser too.
  await admin.post(`/app/admin/users/${alice.id}/sign-in-as`);
  await admin.get('/app/account');
  const out = await admin.post('/app/logout');
  assert.equal(out.location, '/app/login');
  assert.equal(admin.cookies.get('dash_admin'), undefined);
  assert.equal((await t.store.find('sessions', { owner: adminId })).total, 0);
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0);
});

test('the admin disables a user (with a reason) and enables them again: stored, their sessions end, each audited under the admin', async () => {
  const { t, alice, admin, adminId, auditOf } = await world();
  const user = async () => (await t.store.get<UserRecord>('users', alice.id))!;
  const hers = new DashClient(t.app);
  assert.equal((await hers.signIn('user_alice', 'secret-pw')).status, 303);
  await admin.get('/app/admin/users');
  const off = await admin.post(`/app/admin/users/${alice.id}/disable`, { reason: 'Sent spam' });
  assert.equal(off.status, 303);
  assert.equal(off.location, '/app/admin/users?done=disabled');
  assert.deepEqual([(await user()).disabled, (await user()).disabledAt, (await user()).disabledReason], [true, '2026-11-21 10:00:00', 'Sent spam']);
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0, 'her sessions ended');
  assert.equal((await hers.get('/app/links')).res.headers.get('location'), '/app/login');
  assert.equal((await t.call('GET', '/api/account', { key: alice.key })).status, 403, 'her key stopped');
  assert.match((await admin.get('/app/admin/users?q=alice')).text, /<strong>Disabled<\/strong> since 2026-11-21 10:00:00: Sent spam/);
  assert.equal((await admin.post(`/app/admin/users/${adminId}/disable`)).status, 400, 'not the admin themself');
  assert.equal((await t.store.get<UserRecord>('users', adminId))!.disabled ?? false, false);

  const on = await admin.post(`/app/admin/users/${alice.id}/enable`);
  assert.equal(on.status, 303);
  assert.equal(on.location, '/app/admin/users?done=enabled');
  assert.deepEqual([(await user()).disabled, (await user()).disabledAt, (await user()).disabledReason], [false, null, null]);
  assert.equal((await hers.signIn('user_alice', 'secret-pw')).status, 303);
  assert.deepEqual((await auditOf(adminId)).slice(-2), [
    ['/app/admin/users/:id/disable', alice.id, 200],
    ['/app/admin/users/:id/enable', alice.id, 200],
  ]);
});

test('a user who is not the admin gets 404 on every admin screen, and the admin forms need their token', async () => {
  const { t, alice, bob, admin } = await world();
  const user = new DashClient(t.app);
  assert.equal((await user.signIn('user_alice', 'secret-pw')).status, 303);
  await user.get('/app/account');
  assert.equal((await user.get('/app/admin/users')).status, 404);
  assert.doesNotMatch((await user.get('/app/account')).text, /\/app\/admin\/users/);
  for (const path of ['/app/admin/users', `/app/admin/users/${bob.id}/delete`, `/app/admin/users/${bob.id}/disable`, `/app/admin/users/${bob.id}/enable`, `/app/admin/users/${bob.id}/sign-in-as`, '/app/admin/return']) {
    assert.equal((await user.post(path, { username: 'x1234', email: 'x1234@example.com', password: 'secret-pw' })).status, 404, path);
  }
  const disabled = async (id: number) => (await t.store.get<UserRecord>('users', id))!.disabled === true;
  assert.equal(await disabled(bob.id), false);
  assert.equal(await t.store.count('users'), 3);
  // A disabled user stays so when the others try to enable them.
  assert.equal((await t.call('POST', `/api/user/${bob.id}/disable`, { body: {} })).status, 200);
  assert.equal((await user.post(`/app/admin/users/${bob.id}/enable`)).status, 404);
  assert.equal(await disabled(bob.id), true);

  await admin.get('/app/admin/users');
  for (const path of ['/app/admin/users', `/app/admin/users/${alice.id}/delete`, `/app/admin/users/${alice.id}/disable`, `/app/admin/users/${alice.id}/sign-in-as`, `/app/admin/users/${bob.id}/enable`]) {
    assert.equal((await admin.post(path, { username: 'x1234', email: 'x1234@example.com', password: 'secret-pw' }, { csrf: null })).status, 403, path);
  }
  assert.ok(await t.store.get('users', alice.id));
  assert.equal(await t.store.count('users'), 3);
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 1);
  assert.deepEqual([await disabled(alice.id), await disabled(bob.id)], [false, true]);
});
