import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCOUNT_DISABLED } from '../src/auth/disabled-users.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { secondStoreOf } from './backend.ts';
import { DashClient } from './dashboard-client.ts';
import { ADMIN_KEY, eventually, testApp } from './helpers.ts';

/**
 * Disabling users (admin): through the API and the admin screen, every key of theirs is refused
 * with a plain message, their sessions end, sign-in and "sign in as" are refused, and their links,
 * QR codes and bio pages answer as missing ones; enabling undoes it. Also across two apps on one store.
 */

const adminIdOf = async (t: Awaited<ReturnType<typeof testApp>>) =>
  (await t.store.find<UserRecord>('users', { conditions: [{ field: 'admin', equals: true }] })).items[0]!.id;

test('POST /api/user/:id/disable stops every key of the user with a plain 403, stores when and why, and /enable undoes it', async () => {
  const t = await testApp({ rateLimit: 0 });
  const alice = await t.makeUser('alice');
  const scoped = await t.call('POST', '/api/keys', { key: alice.key, body: { name: 'reader', scopes: ['links:read', 'websites:read'] } });
  assert.equal(scoped.status, 200);
  const scopedKey = scoped.body.apikey as string;
  // Both keys held by the key index before the change.
  assert.equal((await t.call('GET', '/api/urls', { key: alice.key })).status, 200);
  assert.equal((await t.call('GET', '/api/urls', { key: scopedKey })).status, 200);

  const off = await t.call('POST', `/api/user/${alice.id}/disable`, { body: { reason: '  Spam links  ' } });
  assert.equal(off.status, 200, off.text);
  assert.equal(off.body.message, 'User has been disabled.');
  assert.deepEqual(off.body.data.disabled, { date: '2026-11-21 10:00:00', reason: 'Spam links' });
  const stored = await t.store.get<UserRecord>('users', alice.id);
  assert.deepEqual([stored?.disabled, stored?.disabledAt, stored?.disabledReason], [true, '2026-11-21 10:00:00', 'Spam links']);

  for (const [key, path] of [[alice.key, '/api/urls'], [scopedKey, '/api/urls'], [alice.key, '/api/account'], [scopedKey, '/api/v1/websites']] as const) {
    const refused = await t.call('GET', path, { key });
    assert.equal(refused.status, 403, `${path}: ${refused.text}`);
    assert.equal(refused.body.message, ACCOUNT_DISABLED);
  }
  const write = await t.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/after' } });
  assert.equal(write.status, 403);
  assert.equal((await t.store.find('links', { owner: alice.id })).total, 0, 'nothing was stored');

  // The admin sees it, and can list the disabled users.
  assert.deepEqual((await t.call('GET', `/api/user/${alice.id}`)).body.data.disabled, { date: '2026-11-21 10:00:00', reason: 'Spam links' });
  const listed = await t.call('GET', '/api/users?filter=disabled');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.body.data.map((u: { id: number }) => u.id), [alice.id]);

  const on = await t.call('POST', `/api/user/${alice.id}/enable`);
  assert.equal(on.status, 200, on.text);
  assert.equal(on.body.data.disabled, null);
  assert.equal((await t.store.get<UserRecord>('users', alice.id))?.disabled, false);
  assert.equal((await t.call('GET', '/api/urls', { key: alice.key })).status, 200);
  assert.equal((await t.call('GET', '/api/urls', { key: scopedKey })).status, 200);
  assert.deepEqual((await t.call('GET', '/api/users?filter=disabled')).body.data, []);
  // Both are audited, as the admin's writes.
  await t.audit.flush();
  const lines = (await t.store.find('audit', { owner: await adminIdOf(t), sort: { field: 'id', direction: 'asc' } })).items.filter((e) => /^\/api\/user\/:id\/(dis|en)able$/.test(String(e.route)));
  assert.deepEqual(lines.map((e) => [e.route, e.resourceId, e.status]), [['/api/user/:id/disable', alice.id, 200], ['/api/user/:id/enable', alice.id, 200]]);
});

test('disabling refuses the admin itself, other users, a long reason and a missing user, and stores nothing then', async () => {
  const t = await testApp({ rateLimit: 0 });
  const alice = await t.makeUser('alice');
  const bob = await t.makeUser('bob');
  const adminId = await adminIdOf(t);
  const cases: [string, string, string | undefined, unknown, number, RegExp][] = [
    ['the admin itself', `/api/user/${adminId}/disable`, undefined, {}, 400, /cannot disable your own account/],
    ['a user who is no admin', `/api/user/${bob.id}/disable`, alice.key, {}, 403, /./],
    ['a reason over 500 characters', `/api/user/${bob.id}/disable`, undefined, { reason: 'x'.repeat(501) }, 400, /at most 500/],
    ['a reason that is no string', `/api/user/${bob.id}/disable`, undefined, { reason: 5 }, 400, /reason/],
    ['a missing user', '/api/user/999999/disable', undefined, {}, 404, /User does not exist/],
  ];
  for (const [name, path, key, body, status, message] of cases) {
    const got = await t.call('POST', path, { key: key ?? ADMIN_KEY, body });
    assert.equal(got.status, status, `${name}: ${got.text}`);
    assert.match(got.body.message, message, name);
  }
  const disabled = await t.store.find<UserRecord>('users', { conditions: [{ field: 'disabled', equals: true }] });
  assert.equal(disabled.total, 0);
  assert.equal((await t.call('GET', '/api/account')).status, 200);
});

test("a disabled user's links, QR codes, bio pages and campaign rotators and pages answer as missing ones, and work again once enabled", async () => {
  const t = await testApp({ rateLimit: 0 });
  const alice = await t.makeUser('alice');
  const link = await t.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/alice', custom: 'alice-link' } });
  assert.equal(link.status, 200, link.text);
  const qr = await t.call('POST', '/api/qr/add', { key: alice.key, body: { type: 'link', data: 'https://example.com/qr', name: 'code' } });
  assert.equal(qr.status, 200, qr.text);
  const qrAlias = (qr.body.link as string).split('/').pop()!;
  const bio = await t.call('POST', '/api/bio/add', { key: alice.key, body: { name: 'Alice', custom: 'alicebio' } });
  assert.equal(bio.status, 200, bio.text);
  const bioPath = new URL(bio.body.link as string).pathname;
  const campaign = await t.call('POST', '/api/campaign/add', { key: alice.key, body: { name: 'Promo', slug: 'promo', public: true } });
  assert.equal(campaign.status, 200, campaign.text);
  assert.equal((await t.call('POST', `/api/campaign/${campaign.body.id}/assign/${link.body.id}`, { key: alice.key })).status, 200);
  const listPath = new URL(campaign.body.list as string).pathname;

  const open = async () =>
    Promise.all(['/alice-link', `/qr/${qrAlias}/scan`, bioPath, '/r/promo', listPath].map(async (path) => (await t.app.request(path)).status));
  assert.deepEqual(await open(), [302, 302, 200, 302, 200]);
  assert.equal((await t.call('POST', `/api/user/${alice.id}/disable`, { body: {} })).status, 200);
  assert.deepEqual(await open(), [404, 404, 404, 404, 404]);
  assert.equal((await t.call('POST', `/api/user/${alice.id}/enable`)).status, 200);
  assert.deepEqual(await open(), [302, 302, 200, 302, 200]);
  assert.equal((await t.app.request('/alice-link')).headers.get('location'), 'https://example.com/alice');
});

test('a disabled user is signed out of the dashboard, cannot sign in (password, key or one-time link), and cannot be signed in as', async () => {
  const t = await testApp({ rateLimit: 0 });
  const alice = await t.makeUser('alice');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_alice', 'secret-pw')).status, 303);
  assert.equal((await browser.get('/app/links')).status, 200);
  const admin = new DashClient(t.app);
  await admin.get('/app/login');
  assert.equal((await admin.post('/app/login', { apikey: ADMIN_KEY })).status, 303);
  const adminId = await adminIdOf(t);
  const link = await t.call('GET', `/api/user/login/${alice.id}`);
  assert.equal(link.status, 200);

  // Disabled on the admin screen, with a reason the list then shows.
  await admin.get('/app/admin/users');
  const off = await admin.post(`/app/admin/users/${alice.id}/disable`, { reason: 'Phishing' });
  assert.deepEqual([off.status, off.location], [303, '/app/admin/users?done=disabled']);
  const list = await admin.get('/app/admin/users');
  assert.match(list.text, /<strong>Disabled<\/strong> since 2026-11-21 10:00:00: Phishing/);
  assert.match(list.text, new RegExp(`action="/app/admin/users/${alice.id}/enable"`));
  assert.doesNotMatch(list.text, new RegExp(`action="/app/admin/users/${alice.id}/sign-in-as"`));
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0, 'her sessions are gone');

  const after = await browser.get('/app/links');
  assert.deepEqual([after.status, after.res.headers.get('location')], [302, '/app/login']);
  const again = await browser.signIn('user_alice', 'secret-pw');
  assert.equal(again.status, 403);
  assert.ok(again.text.includes('This account has been disabled.'), again.text);
  const wrong = await browser.signIn('user_alice', 'not-her-password');
  assert.equal(wrong.status, 401, 'a wrong password never tells');
  assert.doesNotMatch(wrong.text, /disabled/);
  await browser.get('/app/login');
  const byKey = await browser.post('/app/login', { apikey: alice.key });
  assert.equal(byKey.status, 403);
  assert.ok(byKey.text.includes('This account has been disabled.'));
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0, 'no session was opened');
  const token = new URL(link.body.url as string).searchParams.get('token')!;
  assert.equal((await t.app.request(`/login?token=${encodeURIComponent(token)}`)).status, 403);
  const before = (await t.store.get<UserRecord>('users', alice.id))!.keyHash;
  const used = await t.app.request('/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://sho.rt', 'sec-fetch-site': 'same-origin' }, body: `token=${encodeURIComponent(token)}` });
  assert.equal(used.status, 403);
  assert.equal((await t.store.get<UserRecord>('users', alice.id))!.keyHash, before, 'no new key');

  await admin.get('/app/admin/users');
  const as = await admin.post(`/app/admin/users/${alice.id}/sign-in-as`);
  assert.equal(as.status, 400);
  assert.match(as.text, /is disabled: enable them first/);
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0);
  assert.equal((await admin.post(`/app/admin/users/${adminId}/disable`, {})).status, 400);

  const on = await admin.post(`/app/admin/users/${alice.id}/enable`);
  assert.deepEqual([on.status, on.location], [303, '/app/admin/users?done=enabled']);
  assert.equal((await browser.signIn('user_alice', 'secret-pw')).status, 303);
  await t.audit.flush();
  const lines = (await t.store.find('audit', { owner: adminId, sort: { field: 'id', direction: 'asc' } })).items.filter((e) => String(e.route).startsWith('/app/admin/users/:id/')).map((e) => [e.route, e.resourceId]);
  assert.deepEqual(lines, [['/app/admin/users/:id/disable', alice.id], ['/app/admin/users/:id/enable', alice.id]]);
});

test('two apps on one store: a key B held is refused by B once A disabled its user, and B stops the link too', async () => {
  const a = await testApp({ rateLimit: 0 });
  const b = await testApp({ rateLimit: 0 }, { store: await secondStoreOf(a.store, undefined, { listen: true }) });
  const alice = await a.makeUser('alice');
  assert.equal((await a.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/x', custom: 'two-apps' } })).status, 200);
  for (let round = 0; round < 3; round++) {
    assert.equal((await b.call('GET', '/api/urls', { key: alice.key })).status, 200);
    assert.equal((await b.call('GET', '/api/urls', { key: alice.key })).status, 200); // held by B's key index now
    assert.equal((await b.app.request('/two-apps')).status, 302);
    assert.equal((await a.call('POST', `/api/user/${alice.id}/disable`, { body: {} })).status, 200);
    const next = await b.call('GET', '/api/urls', { key: alice.key });
    assert.deepEqual([next.status, next.body.message], [403, ACCOUNT_DISABLED], `round ${round}`);
    // B hears of the change through the change feed (PostgreSQL; within milliseconds).
    assert.ok(await eventually(async () => (await b.app.request('/two-apps')).status === 404), `round ${round}: the link stops on B`);
    assert.equal((await a.call('POST', `/api/user/${alice.id}/enable`)).status, 200);
    assert.ok(await eventually(async () => (await b.call('GET', '/api/urls', { key: alice.key })).status === 200), `round ${round}: enabled on B`);
  }
});

test("a disabled user's open event stream ends, and a new one is refused", async () => {
  const t = await testApp({ rateLimit: 0 });
  const alice = await t.makeUser('alice');
  const res = await t.app.request('/api/events/stream', { headers: { authorization: `Bearer ${alice.key}` } });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /events of user/);
  assert.equal((await t.call('POST', `/api/user/${alice.id}/disable`, { body: {} })).status, 200);
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    (async () => {
      while (!(await reader.read()).done);
      return true;
    })(),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
  ]);
  clearTimeout(timer);
  assert.equal(ended, true, 'the stream ended');
  const again = await t.call('GET', '/api/events/stream', { key: alice.key });
  assert.deepEqual([again.status, again.body.message], [403, ACCOUNT_DISABLED]);
});
