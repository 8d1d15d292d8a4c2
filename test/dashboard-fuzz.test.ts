/**
 * Hostile form posts to every POST route of the dashboard, found in the app's own route list (so a
 * screen added later is covered without being named here): signed in, with a valid form token, every
 * field a form of the dashboard uses set to each hostile value, on the user's own record, another
 * user's and an id that is not one. No answer is a 5xx; an answer that is not a redirect (a refusal,
 * or the form again with its messages) stored nothing; and no page shows a stored value unescaped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCE_SCREENS } from '../src/dashboard/resources/rows.ts';
import { exportedCollections, RESOURCES } from '../src/resources/table.ts';
import { fingerprint } from './backend.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

const HOSTILE = [
  '',
  ' ',
  'x'.repeat(5000),
  '\u0000',
  'a\r\nSet-Cookie: pwned=1',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '-1',
  '1e309',
  '99999999999999999999999',
  '../../etc/passwd',
  '\u202etxt.exe',
  '😀'.repeat(300),
  '__proto__',
];

// The names the dashboard's forms post (links, account, sign-in), and the ones a screen of another
// resource is likely to take: the value goes in each, arrays as two copies.
const FIELDS = [
  'login', 'password', 'email', 'username', 'url', 'custom', 'domain', 'description', 'metatitle', 'status', 'type',
  'campaign', 'channel', 'pixels', 'expiry', 'geo_key', 'geo_link', 'device_key', 'device_link', 'language_key',
  'language_link', 'ids', 'id', 'action', 'name', 'scopes', 'events', 'secret', 'privacy', 'current_password',
  'new_password', 'remove_password', 'per_page', 'page', 'q', 'sort', 'expires', 'ips', 'data', 'color', 'bg',
  // The table-driven screens' (src/dashboard/resources): each row's field names, and a channel's item.
  ...new Set(RESOURCE_SCREENS.flatMap((r) => Object.keys(r.row.fields))), 'item',
  // The QR code, bio page and file screens' own fields.
  'foreground', 'background', 'logo', 'remove_logo', 'data_email', 'data_phone', 'data_ssid', 'data_hidden', 'alias', 'avatar', 'theme', 'link_title', 'link_url',
];
const ARRAYS = new Set(['pixels', 'geo_key', 'geo_link', 'device_key', 'device_link', 'language_key', 'language_link', 'ids', 'scopes', 'events', 'ips', 'fields', 'link_title', 'link_url']);

// Posts that end the session: they run last, once each.
const ENDS_SESSION = /logout|sign-?out|sessions/;

test('hostile form posts to every dashboard route: no 5xx, a refusal stores nothing, every page escapes what was stored', async (ctx) => {
  // The account forms' wrong current passwords count with sign-in's: a limit the fuzz never reaches, so it can sign in again.
  const t = await testApp({ rateLimit: 0, dashboardPageLimit: 0, authFailureLimit: 0, passwordAttemptLimit: 100_000, passwordAttemptLinkLimit: 100_000 });
  const alice = await t.makeUser('fuzzalice');
  const bob = await t.makeUser('fuzzbob');
  const own = (await t.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/mine', custom: 'fuzz-mine' } })).body.id as number;
  const others = (await t.call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/bobs', custom: 'fuzz-bobs' } })).body.id as number;
  const posts = [...new Set(t.app.routes.filter((r) => r.method === 'POST' && r.path.startsWith('/app')).map((r) => r.path))].sort((a, b) => Number(ENDS_SESSION.test(a)) - Number(ENDS_SESSION.test(b)));
  assert.ok(posts.includes('/app/links'), `the dashboard's posts were found: ${posts.join(', ')}`);

  const browser = new DashClient(t.app);
  const signIn = async () => assert.equal((await browser.signIn('user_fuzzalice', 'secret-pw')).status, 303);
  await signIn();
  const collections = exportedCollections(RESOURCES);
  let sent = 0;
  for (const path of posts) {
    const targets = path.includes(':') ? [own, others, 0].map((id) => path.replace(/:[a-zA-Z]+/g, String(id))) : [path];
    for (const url of targets) {
      for (const value of HOSTILE) {
        const body = Object.fromEntries(FIELDS.map((f) => [f, ARRAYS.has(f) ? [value, value] : value]));
        // A fresh form token from a page of the session (a post may have ended it: sign in again).
        if ((await browser.get('/app/links')).status !== 200) await signIn();
        const before = await fingerprint(t.store, collections);
        const r = await browser.post(url, body);
        sent++;
        assert.ok(r.status < 500, `POST ${url} with ${JSON.stringify(value.slice(0, 40))}: ${r.status} ${r.text.slice(0, 200)}`);
        if (r.status < 300 || r.status >= 400) assert.equal(await fingerprint(t.store, collections), before, `POST ${url} answered ${r.status} but stored something`);
        assert.doesNotMatch(r.text, /<script>alert|<img src=x/, `POST ${url} echoed a value unescaped`);
      }
    }
  }
  // Whatever was stored, every page that lists or shows it escapes it.
  if ((await browser.get('/app/links')).status !== 200) await signIn();
  for (const page of ['/app', '/app/links', '/app/account', `/app/links/${own}`, `/app/links/${own}/edit`, '/app/qrs', '/app/bios', '/app/files', ...RESOURCE_SCREENS.map((r) => `/app/${r.path}`)]) {
    const shown = await browser.get(page);
    assert.ok(shown.status < 500, `${page}: ${shown.status}`);
    assert.doesNotMatch(shown.text, /<script>alert|<img src=x/, `${page} shows a stored value unescaped`);
  }
  // Bob's link is as it was.
  const bobs = await t.store.get<{ id: number; alias: string; url: string; userId: number }>('links', others);
  assert.deepEqual([bobs?.alias, bobs?.url, bobs?.userId], ['fuzz-bobs', 'https://example.com/bobs', bob.id]);
  assert.ok(sent >= posts.length * HOSTILE.length, `${sent} posts sent`);
  ctx.diagnostic(`${sent} posts to ${posts.length} routes: ${posts.join(', ')}`);
});
