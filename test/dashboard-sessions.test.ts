import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hashApiKey } from '../src/auth/keys.ts';
import { dashboardAreas } from '../src/dashboard/routes.ts';
import type { Services } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { SESSIONS } from '../src/resources/sessions.ts';
import type { SessionRecord } from '../src/resources/sessions.ts';
import { DashClient } from './dashboard-client.ts';
import { ADMIN_KEY, allOf, testApp } from './helpers.ts';

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

/** The dashboard's own routes of a method, as its areas build them (the app's route list also holds its 405 answers to other methods there); each one mounted. */
function dashboardRoutes(t: Awaited<ReturnType<typeof testApp>>, method: 'GET' | 'POST'): string[] {
  // Building the areas reads the config only; the services are used when a request comes, and none comes to these.
  const areas = dashboardAreas({ config: t.config } as unknown as Services, { attempts: null, keys: null, failures: null, limiter: null } as unknown as Parameters<typeof dashboardAreas>[1]);
  const paths = [...new Set(areas.flatMap((a) => a.routes).filter((r) => r.method === method).map((r) => r.path))];
  const mounted = new Set(t.app.routes.filter((r) => r.method === method).map((r) => r.path));
  for (const path of paths) assert.ok(mounted.has(path), `${method} ${path} is mounted`);
  return paths;
}

/** An app (registration open) with the admin signed in, who owns one record of each kind a dashboard path names by `:id`, and another user. */
async function everyRecord() {
  const t = await testApp({ rateLimit: 0, openRegistration: true });
  const alice = await t.makeUser('alice');
  const admin = new DashClient(t.app);
  await admin.get('/app/login');
  assert.equal((await admin.post('/app/login', { apikey: ADMIN_KEY })).status, 303);
  const made = async (path: string, body: Record<string, unknown>): Promise<number> => {
    const r = await t.call('POST', path, { body });
    assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.text}`);
    return Number(r.body.id ?? r.body.data?.id);
  };
  const upload = await t.app.request('/api/files/upload/kept.txt', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/octet-stream' }, body: 'kept' });
  const [session] = (await t.store.find<SessionRecord>(SESSIONS)).items;
  // Per path before `/:id`: the admin's record of it (another user's account, for the admin's user screens).
  const ids: Record<string, number> = {
    '/app/links': await made('/api/url/add', { url: 'https://example.com/kept', custom: 'kept' }),
    '/app/qrs': await made('/api/qr/add', { type: 'text', data: 'kept', name: 'Kept' }),
    '/app/bios': await made('/api/bio/add', { name: 'Kept', alias: 'kept-bio' }),
    '/app/files': ((await upload.json()) as { id: number }).id,
    '/app/campaigns': await made('/api/campaign/add', { name: 'Kept' }),
    '/app/channels': await made('/api/channel/add', { name: 'Kept' }),
    '/app/pixels': await made('/api/pixel/add', { type: 'gtmpixel', name: 'Kept', tag: 'GTM-KEPT1' }),
    '/app/domains': await made('/api/domain/add', { domain: 'https://go.example.com' }),
    '/app/splash': await made('/api/splash/add', { name: 'Kept', title: 'Wait' }),
    '/app/overlays': await made('/api/overlay/add', { type: 'message', name: 'Kept', message: 'Hi', buttontext: 'Go', buttonlink: 'https://example.com/' }),
    '/app/websites': await made('/api/v1/websites', { domain: 'kept.example.com', privacy: 0 }),
    '/app/account/keys': await made('/api/keys', { name: 'kept', scopes: ['links:read'] }),
    '/app/account/webhooks': await made('/api/webhooks', { url: 'https://hooks.example.com/kept', events: ['*'] }),
    '/app/account/sessions': session!.id,
    '/app/admin/users': alice.id,
  };
  const fill = (pattern: string): string => {
    const at = pattern.indexOf('/:id');
    if (at < 0) return pattern;
    const id = ids[pattern.slice(0, at)];
    assert.ok(id, `${pattern}: everyRecord makes no record for it; add one`);
    return pattern.replace(':id', String(id));
  };
  return { t, admin, alice, ids, fill };
}

test('every POST route of the dashboard, read from its areas, refuses a signed-in post without its form token: 403, nothing stored', async () => {
  const { t, admin, ids, fill } = await everyRecord();
  const routes = dashboardRoutes(t, 'POST');
  assert.ok(routes.length >= 50, `${routes.length} routes`);
  const everything = async () => {
    await t.audit.flush();
    await t.keyUses.flush();
    const records = await Promise.all(RESOURCES.map(async (r) => [r.collection, await allOf(t.store, r.collection)] as const));
    return JSON.stringify({ records, file: [...((await t.store.readFileContent(ids['/app/files']!)) ?? [])] });
  };
  // A form each handler would act on (create, edit, delete, revoke, sign in, register, disable) were the token not checked.
  const form = {
    url: 'https://example.com/csrf', custom: 'csrf-alias', name: 'Csrf', title: 'Csrf', domain: 'csrf.example.com', type: 'text', data: 'csrf', alias: 'csrf-bio',
    email: 'csrf@example.com', username: 'csrf_user', login: 'user_alice', password: 'secret-pw', password_again: 'secret-pw', current_password: 'secret-pw',
    action: 'delete', ids: [String(ids['/app/links'])], events: ['*'], scopes: ['links:read'], privacy: '0', reason: 'csrf', item: 'https://example.com/item',
  };
  await admin.get('/app/account');
  const before = await everything();
  for (const path of routes.map(fill)) {
    const r = await admin.post(path, form, { csrf: null });
    assert.equal(r.status, 403, `${path}: ${r.text.slice(0, 200)}`);
    assert.match(r.text, /Form expired/, path);
  }
  assert.equal(await everything(), before, 'nothing stored, changed or removed');
  assert.equal(admin.cookies.has('dash_session'), true, 'still signed in');
  // What else the app mounts for POST under /app is its 405 to a path that has no POST.
  for (const extra of t.app.routes.filter((r) => r.method === 'POST' && r.path.startsWith('/app') && !routes.includes(r.path))) {
    assert.equal((await admin.post(fill(extra.path), form)).status, 405, extra.path);
  }
});

test('every page of the dashboard, read from its areas, signed in or out, refused or missing, has the security headers of the stats page', async () => {
  const { t, admin, fill } = await everyRecord();
  // The reference: the stats page, the other private page of a signed-in owner.
  const stats = await t.call('GET', '/stats/kept.example.com', { key: null });
  assert.equal(stats.status, 200);
  const SET = ['x-frame-options', 'x-content-type-options', 'referrer-policy', 'cross-origin-opener-policy', 'cross-origin-embedder-policy'] as const;
  const expected = Object.fromEntries(SET.map((h) => [h, stats.headers.get(h)]));
  assert.deepEqual(expected, { 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const assertPage = (name: string, r: { status: number; text: string; res: Response }, status: number) => {
    assert.equal(r.status, status, name);
    assert.match(r.res.headers.get('content-type') ?? '', /^text\/html/, name);
    assert.deepEqual(Object.fromEntries(SET.map((h) => [h, r.res.headers.get(h)])), expected, name);
    assert.equal(r.res.headers.get('cache-control'), 'no-store', name);
    const csp = new Map(r.res.headers.get('content-security-policy')!.split(';').map((d) => d.trim().split(/\s+/)).map(([k = '', ...v]) => [k, v]));
    for (const [directive, sources] of [['default-src', ["'none'"]], ['base-uri', ["'none'"]], ['frame-ancestors', ["'none'"]], ['form-action', ["'self'"]]] as const) assert.deepEqual(csp.get(directive), sources, `${name}: ${directive}`);
    assert.ok(![...csp.values()].flat().some((s) => s === "'unsafe-inline'" || s === "'unsafe-eval'" || s === '*'), `${name}: nothing unsafe`);
    for (const [, code] of r.text.matchAll(/<script>([\s\S]*?)<\/script>/g)) assert.ok(csp.get('script-src')?.includes(hash(code!)), `${name}: its script, by hash`);
    for (const [, css] of r.text.matchAll(/<style>([\s\S]*?)<\/style>/g)) assert.ok(csp.get('style-src')?.includes(hash(css!)), `${name}: its style, by hash`);
  };
  let pages = 0;
  // The QR images (…/qr, …/image) are images, not pages (dashboard-links and dashboard-qrs fetch them; drawing one is slow).
  for (const path of dashboardRoutes(t, 'GET').filter((p) => !/\/(qr|image)$/.test(p)).map(fill)) {
    const r = await admin.get(path);
    if (r.status === 302) {
      assert.match(r.res.headers.get('location')!, /^\/app(\/links)?$/, `${path} redirects within the dashboard`);
      continue;
    }
    assertPage(path, r, 200);
    pages++;
  }
  assert.ok(pages >= 40, `${pages} pages`);
  assertPage('a missing link', await admin.get('/app/links/999999'), 404);
  assertPage('a refused form', await admin.post('/app/links', { url: 'https://example.com/x' }, { csrf: null }), 403);
  const out = new DashClient(t.app);
  assertPage('the sign-in page', await out.get('/app/login'), 200);
  assertPage('the registration page', await out.get('/app/register'), 200);
  assertPage('a wrong password', await out.post('/app/login', { login: 'user_alice', password: 'wrong-pw' }), 401);
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
