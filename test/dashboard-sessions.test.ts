import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiKey } from '../src/auth/keys.ts';
import { SESSIONS } from '../src/resources/sessions.ts';
import type { SessionRecord } from '../src/resources/sessions.ts';
import { DashClient } from './dashboard-client.ts';
import { ADMIN_KEY, testApp } from './helpers.ts';

const DAY = 86_400_000;

test('GET /app without a session goes to the sign-in page; a wrong password opens nothing, the right one a stored session', async () => {
  const t = await testApp({ dashboardSessionDays: 2 });
  const u = await t.makeUser('ann');
  const browser = new DashClient(t.app);
  const first = await browser.get('/app');
  assert.equal(first.status, 302);
  assert.equal(first.res.headers.get('location'), '/app/login');
  assert.equal((await browser.get('/app/links')).res.headers.get('location'), '/app/login');

  const wrong = await browser.signIn('user_ann', 'not-the-password');
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /Wrong username, email or password/);
  assert.match(wrong.text, /value="user_ann"/, 'the form keeps the name typed');
  assert.equal(await t.store.count(SESSIONS), 0);

  const right = await browser.signIn('USER_ANN@example.com', 'secret-pw');
  assert.equal(right.status, 303);
  assert.equal(right.location, '/app/links');
  const cookie = right.res.headers.getSetCookie().find((c) => c.startsWith('dash_session='))!;
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.match(cookie, /Path=\/app/);
  assert.doesNotMatch(cookie, /Secure/, 'plain HTTP: no Secure');
  const stored = (await t.store.find<SessionRecord>(SESSIONS)).items;
  assert.equal(stored.length, 1);
  const token = browser.cookies.get('dash_session')!;
  assert.equal(stored[0]!.tokenHash, hashApiKey(token), 'only the hash of the cookie is stored');
  assert.ok(!JSON.stringify(stored[0]).includes(token));
  assert.equal(stored[0]!.userId, u.id);
  const links = await browser.get('/app/links');
  assert.equal(links.status, 200);
  assert.match(links.text, /<h1>Links<\/h1>/);
  assert.match(links.res.headers.get('content-security-policy')!, /default-src 'none'.*script-src 'sha256-/);
  assert.equal(links.res.headers.get('x-frame-options'), 'DENY');
  assert.equal(links.res.headers.get('cache-control'), 'no-store');

  // Expiry: past DASHBOARD_SESSION_DAYS the session opens nothing.
  t.clock.advance(2 * DAY + 1000);
  const late = await browser.get('/app/links');
  assert.equal(late.status, 302);
  assert.equal(late.res.headers.get('location'), '/app/login');
});

test('the cookie is Secure over HTTPS, and behind a proxy only one TRUST_PROXY trusts', async () => {
  const t = await testApp({ trustProxy: false });
  await t.makeUser('sec');
  const viaProxy = new DashClient(t.app, { 'x-forwarded-proto': 'https' });
  await viaProxy.get('/app/login');
  const untrusted = await viaProxy.post('/app/login', { login: 'user_sec', password: 'secret-pw' });
  assert.doesNotMatch(untrusted.res.headers.getSetCookie().join('\n'), /Secure/);
  const https = new DashClient(t.app);
  const page = await https.get('https://sho.rt/app/login');
  assert.match(page.res.headers.getSetCookie().join('\n'), /dash_pre=.*Secure/);
  const trusting = await testApp({ trustProxy: true });
  await trusting.makeUser('sec2');
  const proxied = new DashClient(trusting.app, { 'x-forwarded-proto': 'https' });
  await proxied.get('/app/login');
  const res = await proxied.post('/app/login', { login: 'user_sec2', password: 'secret-pw' });
  assert.equal(res.status, 303);
  assert.match(res.res.headers.getSetCookie().find((c) => c.startsWith('dash_session='))!, /Secure/);
});

test('every post needs the form token of its session: none, a wrong one, or another site refused with 403 and nothing stored', async () => {
  const t = await testApp();
  await t.makeUser('csrf');
  const browser = new DashClient(t.app);
  await browser.signIn('user_csrf', 'secret-pw');
  await browser.get('/app/links/new');
  const cases: { name: string; csrf: string | null | undefined; headers: Record<string, string> }[] = [
    { name: 'no token', csrf: null, headers: {} },
    { name: 'a wrong token', csrf: 'x'.repeat(43), headers: {} },
    { name: 'the token of the signed-out form', csrf: 'A'.repeat(43), headers: {} },
    { name: 'the right token from another site', csrf: undefined, headers: { 'sec-fetch-site': 'cross-site' } },
    { name: "the right token from a script's fetch of this origin (a pixel)", csrf: undefined, headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'empty' } },
  ];
  for (const c of cases) {
    const res = await browser.post('/app/links', { url: 'https://example.com/csrf' }, { csrf: c.csrf, headers: c.headers });
    assert.equal(res.status, 403, c.name);
    assert.match(res.text, /Form expired|pages opened in the browser only/, c.name);
    assert.equal(await t.store.count('links'), 0, `${c.name}: nothing stored`);
  }
  // Nor does a script's read of a page get it: the page (and its form token) answers page loads only.
  const read = await browser.get('/app/links', { 'sec-fetch-dest': 'empty', 'sec-fetch-site': 'same-origin' });
  assert.equal(read.status, 403);
  assert.doesNotMatch(read.text, /name="csrf"/);
  // Sign-out, revocation and the sign-in form are posts too.
  assert.equal((await browser.post('/app/logout', {}, { csrf: null })).status, 403);
  assert.equal(await t.store.count(SESSIONS), 1);
  const other = new DashClient(t.app);
  await other.get('/app/login');
  assert.equal((await other.post('/app/login', { login: 'user_csrf', password: 'secret-pw' }, { csrf: 'wrong' })).status, 403);
  assert.equal(await t.store.count(SESSIONS), 1);
  // With it, the post goes through.
  const ok = await browser.post('/app/links', { url: 'https://example.com/csrf' });
  assert.equal(ok.status, 303);
  assert.equal(await t.store.count('links'), 1);
});

test('sign out, revoking one session from the account page, and signing out everywhere', async () => {
  const t = await testApp();
  const u = await t.makeUser('multi');
  const laptop = new DashClient(t.app, { 'user-agent': 'Laptop browser' });
  const phone = new DashClient(t.app, { 'user-agent': 'Phone browser' });
  const tablet = new DashClient(t.app, { 'user-agent': 'Tablet browser' });
  for (const b of [laptop, phone, tablet]) assert.equal((await b.signIn('user_multi', 'secret-pw')).status, 303);
  const other = await t.makeUser('other');
  const stranger = new DashClient(t.app);
  await stranger.signIn('user_other', 'secret-pw');
  assert.equal(await t.store.count(SESSIONS), 4);

  const account = await laptop.get('/app/account');
  assert.equal(account.status, 200);
  for (const agent of ['Laptop browser', 'Phone browser', 'Tablet browser']) assert.match(account.text, new RegExp(agent));
  assert.match(account.text, /\(this browser\)/);
  const phoneSession = (await t.store.find<SessionRecord>(SESSIONS, { owner: u.id })).items.find((r) => r.agent === 'Phone browser')!;
  // Another user's session answers as a missing one, and stays.
  const strangerSession = (await t.store.find<SessionRecord>(SESSIONS, { owner: other.id })).items[0]!;
  assert.equal((await laptop.post(`/app/account/sessions/${strangerSession.id}/revoke`)).status, 404);
  assert.equal((await stranger.get('/app/links')).status, 200);

  const revoked = await laptop.post(`/app/account/sessions/${phoneSession.id}/revoke`);
  assert.equal(revoked.status, 303);
  assert.equal((await phone.get('/app/links')).res.headers.get('location'), '/app/login');
  assert.equal((await laptop.get('/app/links')).status, 200);

  await tablet.get('/app/links');
  const out = await tablet.post('/app/logout');
  assert.equal(out.location, '/app/login');
  assert.equal((await tablet.get('/app/links')).status, 302);
  assert.equal(await t.store.count(SESSIONS, { owner: u.id }), 1);

  await tablet.signIn('user_multi', 'secret-pw');
  await laptop.get('/app/account');
  const everywhere = await laptop.post('/app/account/sessions/revoke-all');
  assert.equal(everywhere.location, '/app/login');
  assert.equal(await t.store.count(SESSIONS, { owner: u.id }), 0);
  for (const b of [laptop, tablet]) assert.equal((await b.get('/app/links')).status, 302);
  assert.equal((await stranger.get('/app/links')).status, 200, "another user's sessions stay");
});

test('sign-in attempts are limited as link passwords are: once over, even the right password waits', async () => {
  const t = await testApp({ passwordAttemptLimit: 3, passwordAttemptLinkLimit: 0 });
  await t.makeUser('guess');
  const browser = new DashClient(t.app);
  for (let i = 0; i < 3; i++) assert.equal((await browser.signIn('user_guess', `wrong-${i}`)).status, 401);
  const blocked = await browser.signIn('user_guess', 'secret-pw');
  assert.equal(blocked.status, 429);
  assert.ok(Number(blocked.res.headers.get('retry-after')) > 0);
  assert.equal(await t.store.count(SESSIONS), 0);
  // API keys count against the same client.
  await browser.get('/app/login');
  assert.equal((await browser.post('/app/login', { apikey: ADMIN_KEY })).status, 429);
  t.clock.advance(301_000);
  assert.equal((await browser.signIn('user_guess', 'secret-pw')).status, 303);
});

test('an API key opens a session; a scoped key bounds it to its scopes, and its revocation ends it', async () => {
  const t = await testApp();
  const u = await t.makeUser('keys');
  const made = await t.call('POST', '/api/keys', { key: u.key, body: { name: 'reader', scopes: ['links:read'] } });
  assert.equal(made.status, 200, made.text);
  const reader = new DashClient(t.app);
  await reader.get('/app/login');
  assert.equal((await reader.post('/app/login', { apikey: 'sk_wrong_key_00000000000000000000000000000' })).status, 401);
  const signed = await reader.post('/app/login', { apikey: made.body.apikey });
  assert.equal(signed.status, 303);
  assert.equal((await t.store.find<SessionRecord>(SESSIONS)).items[0]!.keyId, made.body.id);
  assert.equal((await reader.get('/app/links')).status, 200);
  await reader.get('/app/links');
  const refused = await reader.post('/app/links', { url: 'https://example.com/scoped' });
  assert.equal(refused.status, 403);
  assert.match(refused.text, /links:write/);
  assert.equal(await t.store.count('links'), 0);
  assert.equal((await t.call('DELETE', `/api/keys/${made.body.id}`, { key: u.key })).status, 200);
  assert.equal((await reader.get('/app/links')).status, 302, 'a revoked key ends its sessions');

  const account = new DashClient(t.app);
  await account.get('/app/login');
  assert.equal((await account.post('/app/login', { apikey: u.key })).status, 303);
  await account.get('/app/links/new');
  assert.equal((await account.post('/app/links', { url: 'https://example.com/account-key' })).status, 303);
});

test('registration (OPEN_REGISTRATION on) keeps what was typed on an error, then opens a session; off, the page is not there', async () => {
  const t = await testApp({ openRegistration: true });
  await t.makeUser('taken');
  const browser = new DashClient(t.app);
  const page = await browser.get('/app/register');
  assert.equal(page.status, 200);
  const clash = await browser.post('/app/register', { username: 'user_taken', email: 'new@example.com', password: 'long-enough' });
  assert.equal(clash.status, 400);
  assert.match(clash.text, /value="new@example.com"/);
  assert.doesNotMatch(clash.text, /long-enough/, 'the password is never sent back');
  assert.match(clash.text, /aria-invalid="true"/);
  const users = await t.store.count('users');
  const made = await browser.post('/app/register', { username: 'newbie', email: 'newbie@example.com', password: 'long-enough' });
  assert.equal(made.status, 200);
  assert.match(made.text, /sk_[A-Za-z0-9_-]{43}/);
  assert.equal(await t.store.count('users'), users + 1);
  assert.equal((await browser.get('/app/links')).status, 200);
  const closed = await testApp({ openRegistration: false });
  assert.equal((await new DashClient(closed.app).get('/app/register')).status, 404);
});

test('DASHBOARD=off: no /app route at all', async () => {
  const t = await testApp({ dashboard: false });
  for (const path of ['/app', '/app/login', '/app/links', '/app/account']) {
    const res = await t.app.request(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get('set-cookie'), null, path);
  }
  const post = await t.app.request('/app/login', { method: 'POST', body: 'login=a&password=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(post.status, 404);
  assert.equal(await t.store.count(SESSIONS), 0);
});
