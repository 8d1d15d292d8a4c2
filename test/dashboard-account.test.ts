import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyPassword } from '../src/auth/passwords.ts';
import { hashApiKey } from '../src/auth/keys.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { SESSIONS } from '../src/resources/sessions.ts';
import type { SessionRecord } from '../src/resources/sessions.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

/** An app with two users, the first signed in with its password. */
async function world() {
  const t = await testApp({ rateLimit: 0 });
  const u = await t.makeUser('acct');
  const other = await t.makeUser('other');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_acct', 'secret-pw')).status, 303);
  const user = async (id = u.id) => (await t.store.get<UserRecord>('users', id))!;
  const auditOf = async () => {
    await t.audit.flush();
    return (await t.store.find('audit', { owner: u.id, sort: { field: 'id', direction: 'asc' } })).items.filter((e) => String(e.route).startsWith('/app')).map((e) => [e.route, e.resource, e.status]);
  };
  return { t, u, other, browser, user, auditOf };
}

test('the email changes with the current password; a wrong one, a taken or bad email change nothing and say why beside the field', async () => {
  const { browser, user, auditOf } = await world();
  const page = await browser.get('/app/account');
  assert.equal(page.status, 200);
  assert.match(page.text, /Plan: <strong>Default<\/strong>/);
  assert.match(page.text, /name="current_password"/);

  const cases = [
    { form: { email: 'new@example.com', current_password: 'wrong-pw' }, status: 401, field: 'current_password', message: /not your current password/ },
    { form: { email: 'new@example.com', current_password: '' }, status: 400, field: 'current_password', message: /Enter your current password/ },
    { form: { email: 'user_other@example.com', current_password: 'secret-pw' }, status: 400, field: 'email', message: /already associated/ },
    { form: { email: 'not-an-email', current_password: 'secret-pw' }, status: 400, field: 'email', message: /valid email/ },
  ];
  for (const c of cases) {
    const r = await browser.post('/app/account/email', c.form);
    assert.equal(r.status, c.status, c.form.email);
    assert.match(r.text, new RegExp(`id="${c.field}-error">[^<]*`));
    assert.match(/id="[a-z_]+-error">([^<]*)/.exec(r.text)![1]!, c.message);
    assert.match(r.text, new RegExp(`value="${c.form.email}"`), 'the form keeps what was typed');
    assert.equal((await user()).email, 'user_acct@example.com');
  }
  const ok = await browser.post('/app/account/email', { email: 'new@example.com', current_password: 'secret-pw' });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/app/account?done=email');
  assert.equal((await user()).email, 'new@example.com');
  assert.match((await browser.get(ok.location!)).text, /The email was changed/);
  assert.deepEqual(await auditOf(), [
    ['/app/account/email', 'users', 401],
    ['/app/account/email', 'users', 400],
    ['/app/account/email', 'users', 400],
    ['/app/account/email', 'users', 400],
    ['/app/account/email', 'users', 200],
  ]);
});

test('a password is changed with the current one, set without one when the account has none, and both new ones must agree', async () => {
  const { t, u, browser, user } = await world();
  const before = (await user()).password;
  await browser.get('/app/account');
  let r = await browser.post('/app/account/password', { current_password: 'secret-pw', password: 'new-secret', password_again: 'other-secret' });
  assert.equal(r.status, 400);
  assert.match(r.text, /id="password_again-error">The two new passwords differ/);
  r = await browser.post('/app/account/password', { current_password: 'nope-nope', password: 'new-secret', password_again: 'new-secret' });
  assert.equal(r.status, 401);
  r = await browser.post('/app/account/password', { current_password: 'secret-pw', password: 'abc', password_again: 'abc' });
  assert.equal(r.status, 400);
  assert.match(r.text, /id="password-error">Password must be at least 5 characters/);
  assert.equal((await user()).password, before, 'nothing stored');
  assert.doesNotMatch(r.text, /value="abc"/, 'a password is never shown again');

  r = await browser.post('/app/account/password', { current_password: 'secret-pw', password: 'new-secret', password_again: 'new-secret' });
  assert.equal(r.status, 303);
  assert.ok(await verifyPassword('new-secret', (await user()).password));

  // An account without a password (made with a sign-in link) sets one without a current one.
  await t.store.transaction((tx) => tx.update('users', u.id, { password: '' }));
  const page = await browser.get('/app/account');
  assert.doesNotMatch(page.text, /name="current_password"/);
  assert.match(page.text, /Set the password/);
  r = await browser.post('/app/account/password', { password: 'first-secret', password_again: 'first-secret' });
  assert.equal(r.status, 303);
  assert.match((await user()).password, /^scrypt\$/);
  const fresh = new DashClient(t.app);
  assert.equal((await fresh.signIn('user_acct', 'first-secret')).status, 303);
});

test('the account page shows the plan and its end: a user with an expiry reads "until … UTC", one without "without an end"', async () => {
  const { t, browser } = await world();
  assert.match((await browser.get('/app/account')).text, /Plan: <strong>Default<\/strong>, without an end\./);
  const ends = await t.makeUser('ends');
  await t.store.transaction((tx) => tx.update('users', ends.id, { planid: 2, status: 'pro', expires: '2027-03-01 12:00:00' }));
  const theirs = new DashClient(t.app);
  await theirs.get('/app/login');
  assert.equal((await theirs.post('/app/login', { apikey: ends.key })).status, 303);
  const page = await theirs.get('/app/account');
  assert.equal(page.status, 200);
  assert.match(page.text, /<h1>user_ends<\/h1>/);
  assert.match(page.text, /Plan: <strong>Pro<\/strong>, until 2027-03-01 12:00:00 UTC\./);
});

test('a user without a password: the one-time sign-in link gives a key, the key opens the dashboard, a password is set there, and it signs in', async () => {
  const { t, user } = await world();
  const { id, key: oldKey } = await t.makeUser('nopw');
  await t.store.transaction((tx) => tx.update('users', id, { password: '' }));
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_nopw', 'any-password')).status, 401, 'no password opens it');

  // The admin's link (GET /api/user/login/:id), opened: one button, nothing used up yet.
  const link = await t.call('GET', `/api/user/login/${id}`);
  assert.equal(link.status, 200, link.text);
  const url = new URL(link.body.url as string);
  assert.equal(url.origin + url.pathname, 'http://sho.rt/login');
  const token = url.searchParams.get('token')!;
  const opened = await t.app.request(`/login?token=${encodeURIComponent(token)}`);
  assert.equal(opened.status, 200);
  const form = await opened.text();
  assert.match(form, /<h1>Sign in as user_nopw<\/h1>/);
  assert.match(form, /<form method="post" action="\/login"><input type="hidden" name="token" value="[^"]+">/);
  // Its button: a new API key, shown once; the link is used up.
  const use = () => t.app.request('/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${encodeURIComponent(token)}` });
  const got = await use();
  assert.equal(got.status, 200);
  const apikey = /<code>(sk_[A-Za-z0-9_-]+)<\/code>/.exec(await got.text())?.[1];
  assert.ok(apikey, 'the new key is shown');
  assert.equal((await user(id)).loginHash, null);
  assert.equal((await use()).status, 404, 'the link works once');
  assert.equal((await t.call('GET', '/api/account', { key: apikey })).status, 200);
  assert.equal((await t.call('GET', '/api/account', { key: oldKey })).status, 401, 'the old key stopped');

  // The key opens the dashboard, where the password is set without a current one.
  await browser.get('/app/login');
  const signed = await browser.post('/app/login', { apikey });
  assert.equal(signed.status, 303);
  assert.equal(signed.location, '/app/links');
  const account = await browser.get('/app/account');
  assert.match(account.text, /<h1>user_nopw<\/h1>/);
  assert.doesNotMatch(account.text, /name="current_password"/);
  assert.match(account.text, /Set the password/);
  const set = await browser.post('/app/account/password', { password: 'chosen-secret', password_again: 'chosen-secret' });
  assert.equal(set.status, 303, set.text);
  assert.match((await user(id)).password, /^scrypt\$/);

  // And with it, the username and password sign in.
  const fresh = new DashClient(t.app);
  const withPassword = await fresh.signIn('user_nopw', 'chosen-secret');
  assert.equal(withPassword.status, 303);
  assert.equal(withPassword.location, '/app/links');
  assert.match((await fresh.get('/app/account')).text, /<h1>user_nopw<\/h1>/);
  const sessions = (await t.store.find<SessionRecord>(SESSIONS, { owner: id, sort: { field: 'id', direction: 'asc' } })).items;
  assert.deepEqual(sessions.map((r) => r.method), ['key', 'password']);
});

test('an API key made on the page is shown once, works, lists with its scopes, and is revoked; bad input stores nothing', async () => {
  const { t, u, other, browser, auditOf } = await world();
  const keysOf = async (owner: number) => (await t.store.find('api_keys', { owner })).items;
  await browser.get('/app/account/keys');
  const bad = await browser.post('/app/account/keys', { name: 'Deploy', ips: '203.0.113.0/24' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /id="scopes-error">Invalid scopes/);
  assert.match(bad.text, /name="name" value="Deploy"/);
  const badIp = await browser.post('/app/account/keys', { name: 'Deploy', scopes: ['links:read'], ips: 'not-an-ip' });
  assert.equal(badIp.status, 400);
  assert.match(badIp.text, /id="ips-error">Invalid ips/);
  const past = await browser.post('/app/account/keys', { name: 'Deploy', scopes: ['links:read'], expires: '2020-01-01T00:00' });
  assert.equal(past.status, 400);
  assert.match(past.text, /id="expires-error">The expiry date must be later than now/);
  assert.equal((await keysOf(u.id)).length, 0);

  const posted = await browser.post('/app/account/keys', { name: 'Deploy <b>', scopes: ['links:read', 'qr:*'], expires: '2027-06-01T12:00', ips: '203.0.113.0/24\n198.51.100.7' });
  // Post, redirect, get: the page that shows the key can be reloaded without making a second one.
  assert.equal(posted.status, 303);
  assert.match(posted.location ?? '', /^\/app\/account\/keys\?made=[0-9a-f]{16}$/);
  const nonce = posted.location!.split('=')[1]!;
  const cookie = posted.res.headers.getSetCookie().find((l) => l.startsWith(`shown_once_${nonce}=`));
  assert.match(cookie ?? '', /HttpOnly/i);
  assert.match(cookie ?? '', /Path=\/app\/account\/keys/);
  assert.doesNotMatch(cookie ?? '', /sk_/, 'the key is sealed in the cookie');
  // Sealed for its session: the same cookie in another session of the account opens nothing.
  const second = new DashClient(t.app);
  assert.equal((await second.signIn('user_acct', 'secret-pw')).status, 303);
  second.cookies.set(`shown_once_${nonce}`, browser.cookies.get(`shown_once_${nonce}`)!);
  assert.doesNotMatch((await second.get(posted.location!)).text, /<code class="secret">/);
  // A second form in another tab has a cookie of its own: each page shows its own key.
  const otherTab = await browser.post('/app/account/keys', { name: 'Other tab', scopes: ['links:read'] });
  const otherKey = /<code class="secret">([^<]+)<\/code>/.exec((await browser.get(otherTab.location!)).text)?.[1];
  assert.ok(otherKey);
  const made = await browser.get(posted.location!);
  assert.equal(made.status, 200);
  const apikey = /<code class="secret">([^<]+)<\/code>/.exec(made.text)?.[1];
  assert.ok(apikey);
  assert.match(made.text, /Deploy &lt;b&gt;/, 'stored text is escaped');
  const stored = (await keysOf(u.id)).find((k) => k.name === 'Deploy <b>');
  assert.ok(stored);
  assert.equal(stored.keyHash, hashApiKey(apikey));
  assert.deepEqual(stored.scopes, ['links:read', 'qr:*']);
  assert.deepEqual(stored.ips, ['203.0.113.0/24', '198.51.100.7']);
  assert.equal(stored.expires, '2027-06-01 12:00:00');

  assert.notEqual(otherKey, apikey);
  const reloaded = await browser.get(posted.location!);
  assert.ok(!reloaded.text.includes(apikey), 'a reload shows the key no more');
  assert.match(reloaded.text, /The key was made\. It was shown once, on the page that followed its form, and is not shown again/);
  assert.equal((await keysOf(u.id)).length, 2, 'and makes no third key');
  await t.call('DELETE', `/api/keys/${(await keysOf(u.id)).find((k) => k.name === 'Other tab')!.id}`, { key: u.key });
  const again = await browser.get('/app/account/keys');
  assert.ok(!again.text.includes(apikey), 'the key is never shown again');
  assert.match(again.text, /links:read, qr:\*/);
  assert.match(again.text, new RegExp(`sk_…${apikey.slice(-4)}`));

  // Another user's key answers as a missing one, and stays.
  const theirs = await t.call('POST', '/api/keys', { key: other.key, body: { name: 'theirs', scopes: ['links:read'] } });
  assert.equal((await browser.post(`/app/account/keys/${theirs.body.id}/revoke`)).status, 404);
  assert.equal((await keysOf(other.id)).length, 1);

  const revoked = await browser.post(`/app/account/keys/${stored.id}/revoke`);
  assert.equal(revoked.status, 303);
  assert.equal((await keysOf(u.id)).length, 0);
  assert.equal((await t.call('GET', '/api/urls', { key: apikey })).status, 401);
  assert.deepEqual(await auditOf(), [
    ['/app/account/keys', 'api_keys', 400],
    ['/app/account/keys', 'api_keys', 400],
    ['/app/account/keys', 'api_keys', 400],
    ['/app/account/keys', 'api_keys', 200],
    ['/app/account/keys', 'api_keys', 200],
    ['/app/account/keys/:id/revoke', 'api_keys', 200],
  ]);
});

test('a session opened with a narrow key cannot make a wider key, nor see or change the account, nor sign out other sessions', async () => {
  const { t, u, browser } = await world();
  const made = await t.call('POST', '/api/keys', { key: u.key, body: { name: 'keys only', scopes: ['keys:*', 'links:read'] } });
  const narrow = new DashClient(t.app);
  await narrow.get('/app/login');
  assert.equal((await narrow.post('/app/login', { apikey: made.body.apikey })).status, 303);
  await narrow.get('/app/account/keys');
  // Nor revoke a wider key: the API's refusal, on a page.
  const wide = await t.call('POST', '/api/keys', { key: u.key, body: { name: 'wide', scopes: ['*'] } });
  const revoke = await narrow.post(`/app/account/keys/${wide.body.id}/revoke`);
  assert.equal(revoke.status, 403);
  assert.match(revoke.res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(revoke.text, /cannot revoke a key with the scope \*/);
  assert.ok(await t.store.get('api_keys', wide.body.id), 'the wide key stays');
  await t.call('DELETE', `/api/keys/${wide.body.id}`, { key: u.key });
  const wider = await narrow.post('/app/account/keys', { name: 'wider', scopes: ['*'] });
  assert.equal(wider.status, 400);
  assert.match(wider.text, /cannot give the scope \*/);
  const email = await narrow.post('/app/account/email', { email: 'x@example.com', current_password: 'secret-pw' });
  assert.equal(email.status, 403);
  assert.equal((await t.store.find('api_keys', { owner: u.id })).total, 1);
  assert.equal((await t.store.get<UserRecord>('users', u.id))!.email, 'user_acct@example.com');
  // The account page (email, plan, every session with its address) is GET /api/account's: account:read.
  const account = await narrow.get('/app/account');
  assert.equal(account.status, 403);
  assert.match(account.text, /lacks the scope account:read/);
  assert.doesNotMatch(account.text, /user_acct@example\.com/);
  const everywhere = await narrow.post('/app/account/sessions/revoke-all', {});
  assert.equal(everywhere.status, 403);
  assert.match(everywhere.text, /lacks the scope account:write/);
  assert.equal((await browser.get('/app/account')).status, 200, 'the full session is still signed in');
});

test('a session whose key may make keys but not read them sees the key it made, and no list', async () => {
  const { t, u } = await world();
  const made = await t.call('POST', '/api/keys', { key: u.key, body: { name: 'maker', scopes: ['keys:write'] } });
  const maker = new DashClient(t.app);
  await maker.get('/app/login');
  assert.equal((await maker.post('/app/login', { apikey: made.body.apikey })).status, 303);
  await maker.get('/app/links');
  assert.equal((await maker.get('/app/account/keys')).status, 403, 'no list without keys:read');
  const posted = await maker.post('/app/account/keys', { name: 'child', scopes: ['keys:write'] }, { csrf: /name="csrf" value="([^"]+)"/.exec((await maker.get('/app/links')).text)?.[1] ?? null });
  assert.equal(posted.status, 303, posted.text);
  const shown = await maker.get(posted.location!);
  assert.equal(shown.status, 200);
  const child = /<code class="secret">([^<]+)<\/code>/.exec(shown.text)?.[1];
  assert.ok(child, 'the key it made is shown');
  assert.doesNotMatch(shown.text, /id="keys-h"/, 'and not the list');
  assert.equal((await t.call('GET', '/api/keys', { key: u.key })).body.data.keys.length, 2);
});

test("a webhook made on the page shows its secret once, sends a test event and is deleted; another user's answers 404", async () => {
  const { t, u, other, browser, auditOf } = await world();
  const hooksOf = async (owner: number) => (await t.store.find('webhooks', { owner })).items;
  await browser.get('/app/account/webhooks');
  const bad = await browser.post('/app/account/webhooks', { url: 'ftp://hooks.example.com/x', events: ['link.created'] });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /id="url-error">Invalid url/);
  const none = await browser.post('/app/account/webhooks', { url: 'https://hooks.example.com/x' });
  assert.equal(none.status, 400);
  assert.match(none.text, /id="events-error">Invalid events/);
  assert.match(none.text, /value="https:\/\/hooks.example.com\/x"/);
  assert.equal((await hooksOf(u.id)).length, 0);

  const posted = await browser.post('/app/account/webhooks', { url: 'https://hooks.example.com/x', events: ['link.created', 'link.deleted'] });
  assert.equal(posted.status, 303);
  assert.match(posted.location ?? '', /^\/app\/account\/webhooks\?made=[0-9a-f]{16}$/);
  const made = await browser.get(posted.location!);
  assert.equal(made.status, 200);
  const secret = /<code class="secret">([^<]+)<\/code>/.exec(made.text)?.[1];
  const [hook] = await hooksOf(u.id);
  assert.ok(hook && secret);
  assert.equal(hook.secret, secret);
  assert.deepEqual(hook.events, ['link.created', 'link.deleted']);
  const reloaded = await browser.get(posted.location!);
  assert.ok(!reloaded.text.includes(secret), 'a reload shows the secret no more');
  assert.match(reloaded.text, /Its secret was shown once, on the page that followed its form, and is not shown again/);
  assert.equal((await hooksOf(u.id)).length, 1, 'and makes no second webhook');
  assert.ok(!(await browser.get('/app/account/webhooks')).text.includes(secret), 'the secret is never shown again');

  const tested = await browser.post(`/app/account/webhooks/${hook.id}/test`);
  assert.equal(tested.status, 303);
  const deliveries = (await t.store.find('deliveries', { owner: u.id })).items;
  assert.equal(deliveries.length, 1);
  assert.equal((deliveries[0]!.event as { type: string }).type, 'webhook.ping');

  const theirs = await t.call('POST', '/api/webhooks', { key: other.key, body: { url: 'https://hooks.example.com/theirs', events: ['*'] } });
  assert.equal((await browser.post(`/app/account/webhooks/${theirs.body.id}/delete`)).status, 404);
  assert.equal((await browser.post(`/app/account/webhooks/${theirs.body.id}/test`)).status, 404);
  assert.equal((await hooksOf(other.id)).length, 1);

  assert.equal((await browser.post(`/app/account/webhooks/${hook.id}/delete`)).status, 303);
  assert.equal((await hooksOf(u.id)).length, 0);
  assert.deepEqual(await auditOf(), [
    ['/app/account/webhooks', 'webhooks', 400],
    ['/app/account/webhooks', 'webhooks', 400],
    ['/app/account/webhooks', 'webhooks', 200],
    ['/app/account/webhooks/:id/test', 'webhooks', 202],
    ['/app/account/webhooks/:id/delete', 'webhooks', 200],
  ]);
});

test('every new form of the account is refused without its form token, and nothing changes', async () => {
  const { t, u, browser, user } = await world();
  const key = await t.call('POST', '/api/keys', { key: u.key, body: { name: 'kept', scopes: ['links:read'] } });
  const hook = await t.call('POST', '/api/webhooks', { key: u.key, body: { url: 'https://hooks.example.com/kept', events: ['*'] } });
  const posts: [string, Record<string, string | string[]>][] = [
    ['/app/account/email', { email: 'csrf@example.com', current_password: 'secret-pw' }],
    ['/app/account/password', { current_password: 'secret-pw', password: 'csrf-secret', password_again: 'csrf-secret' }],
    ['/app/account/keys', { name: 'csrf', scopes: ['links:read'] }],
    [`/app/account/keys/${key.body.id}/revoke`, {}],
    ['/app/account/webhooks', { url: 'https://hooks.example.com/csrf', events: ['*'] }],
    [`/app/account/webhooks/${hook.body.id}/test`, {}],
    [`/app/account/webhooks/${hook.body.id}/delete`, {}],
  ];
  const before = await user();
  for (const [path, form] of posts) {
    for (const csrf of [null, 'forged-token']) {
      const r = await browser.post(path, form, { csrf });
      assert.equal(r.status, 403, `${path} ${String(csrf)}`);
    }
  }
  assert.deepEqual(await user(), before);
  assert.equal((await t.store.find('api_keys', { owner: u.id })).total, 1);
  assert.equal((await t.store.find('webhooks', { owner: u.id })).total, 1);
  assert.equal((await t.store.find('deliveries', { owner: u.id })).total, 0);
});
