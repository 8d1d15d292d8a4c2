import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from './helpers.ts';

const form = (fields: Record<string, string>) => ({ raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function sites(overrides = {}) {
  const app = await testApp({ trustProxy: true, analyticsRateLimit: 10000, rateLimit: 10000, ...overrides });
  const alice = await app.makeUser('alice');
  const bob = await app.makeUser('bob');
  const make = async (body: Record<string, unknown>) => {
    const r = await app.call('POST', '/api/v1/websites', { key: alice.key, body });
    assert.equal(r.status, 201, r.text);
    return r.body.data.id as number;
  };
  const ids = {
    public: await make({ domain: 'public.example.com' }),
    private: await make({ domain: 'private.example.com', privacy: 1 }),
    password: await make({ domain: 'secret.example.com', privacy: 2, password: 'hunter22' }),
  };
  const page = (path: string, cookie?: string) => app.call('GET', path, { key: null, headers: cookie ? { cookie } : {} });
  const signIn = (domain: string, fields: Record<string, string>) => app.call('POST', `/stats/${domain}`, { key: null, ...form(fields), headers: { ...form(fields).headers, 'x-forwarded-for': '192.0.2.77' } });
  return { ...app, alice, bob, ids, page, signIn };
}

/** The `name=value` part of a Set-Cookie header, and its attributes. */
function cookieOf(setCookie: string | null): { pair: string; attributes: string } {
  assert.ok(setCookie, 'a cookie is set');
  const [pair = '', ...rest] = setCookie.split(';');
  return { pair: pair.trim(), attributes: rest.join(';') };
}

test('privacy 0: the page is public, server-rendered with an inline SVG chart, tables and a date form', async () => {
  const { page, call } = await sites();
  const hit = (p: string) => call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://public.example.com${p}`, referrer: 'https://ref.example.net/' }), headers: { 'x-forwarded-for': '192.0.2.1', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' } });
  assert.equal((await hit('/a?x=1&y=2')).status, 202);
  assert.equal((await hit('/b')).status, 202);
  const r = await page('/stats/public.example.com');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  for (const part of ['<svg', '<polyline', 'name="from"', 'name="to"', 'value="2026-10-23"', 'value="2026-11-21"', 'Pages', 'Referrers', 'Countries', 'Browsers', 'Operating systems', 'Devices', 'ref.example.net', 'Firefox', 'Linux', '<b>2</b>pageviews', '<b>1</b>visitors']) {
    assert.ok(r.text.includes(part), part);
  }
  assert.ok(r.text.includes('/a?x=1&#38;y=2'), 'values are HTML-escaped');
  assert.ok(!/<script|https?:\/\/(?!www\.w3\.org)[^"]*\.(js|css)/.test(r.text), 'no scripts, no CDN');
  const ranged = await page('/stats/public.example.com?from=2026-11-20&to=2026-11-21');
  assert.equal((ranged.text.match(/<circle/g) ?? []).length, 8, 'two days, two series, in the wide and in the phone drawing');
  const bad = await page('/stats/public.example.com?from=2026-11-22&to=2026-01-01');
  assert.equal(bad.status, 200);
  assert.ok(bad.text.includes('Invalid date range'));
  const www = await page('/stats/www.public.example.com');
  assert.deepEqual([www.status, www.headers.get('location')], [301, '/stats/public.example.com']);
  const missing = await page('/stats/nobody.example.com');
  assert.equal(missing.status, 404);
  assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
});

test('privacy 1: owner only, signed in by posting the API key; the cookie is signed, HttpOnly and holds no key', async () => {
  const { page, signIn, alice, bob, ids, call, clock } = await sites();
  const gate = await page('/stats/private.example.com');
  assert.equal(gate.status, 401);
  assert.ok(gate.text.includes('name="key"') && gate.text.includes('method="post"'));
  assert.ok(!gate.text.includes('pageviews</div>'), 'no statistics before signing in');

  const wrong = await signIn('private.example.com', { key: bob.key });
  assert.equal(wrong.status, 401);
  assert.ok(wrong.text.includes('That API key does not own this website.'));
  assert.equal(wrong.headers.get('set-cookie'), null);

  const ok = await signIn('private.example.com', { key: alice.key });
  assert.deepEqual([ok.status, ok.headers.get('location')], [303, '/stats/private.example.com']);
  const { pair, attributes } = cookieOf(ok.headers.get('set-cookie'));
  assert.ok(pair.startsWith(`pa_stats_${ids.private}=owner.`));
  assert.ok(!pair.includes(alice.key) && !ok.headers.get('location')!.includes(alice.key));
  assert.match(attributes, /HttpOnly/);
  assert.match(attributes, /SameSite=Strict/);
  assert.match(attributes, /Path=\/stats\/private\.example\.com/);
  assert.match(attributes, /Max-Age=86400/);
  assert.doesNotMatch(attributes, /Secure/, 'plain http base URL');

  assert.equal((await page('/stats/private.example.com', pair)).status, 200);
  const tampered = pair.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A'));
  assert.equal((await page('/stats/private.example.com', tampered)).status, 401);
  const elsewhere = pair.replace(`pa_stats_${ids.private}=`, `pa_stats_${ids.password}=`);
  assert.equal((await page('/stats/secret.example.com', elsewhere)).status, 401, 'a cookie of one website opens no other');

  clock.advance(86_400_000 + 1000);
  assert.equal((await page('/stats/private.example.com', pair)).status, 401, 'expired');
  clock.advance(-86_400_000 - 1000);
  const rotated = await call('POST', '/api/account/rotate-key', { key: alice.key, body: {} });
  assert.equal(rotated.status, 200, rotated.text);
  assert.equal((await page('/stats/private.example.com', pair)).status, 401, 'rotating the key ends the session');
});

test('privacy 2: a password form; the right password sets the cookie; changing the password ends it', async () => {
  const { page, signIn, call, alice, ids } = await sites();
  const gate = await page('/stats/secret.example.com');
  assert.equal(gate.status, 401);
  assert.ok(gate.text.includes('name="password"'));
  const wrong = await signIn('secret.example.com', { password: 'hunter2' });
  assert.equal(wrong.status, 401);
  assert.ok(wrong.text.includes('Wrong password.'));
  const keyInstead = await signIn('secret.example.com', { key: alice.key });
  assert.equal(keyInstead.status, 401, 'the password page takes the password');
  const ok = await signIn('secret.example.com', { password: 'hunter22' });
  assert.equal(ok.status, 303);
  const { pair } = cookieOf(ok.headers.get('set-cookie'));
  assert.ok(!pair.includes('hunter22'));
  assert.equal((await page('/stats/secret.example.com', pair)).status, 200);
  const changed = await call('PATCH', `/api/v1/websites/${ids.password}`, { key: alice.key, body: { password: 'correct horse' } });
  assert.equal(changed.status, 200);
  assert.equal((await page('/stats/secret.example.com', pair)).status, 401);
  const opened = await call('PATCH', `/api/v1/websites/${ids.password}`, { key: alice.key, body: { privacy: 0 } });
  assert.equal(opened.status, 200);
  assert.equal((await page('/stats/secret.example.com')).status, 200, 'privacy 0 opens the page');
  assert.equal((await signIn('secret.example.com', { password: 'x' })).status, 303, 'nothing to sign in to');
});

test('failed sign-ins are limited per IP; an https base URL makes the cookie Secure', async () => {
  const { signIn } = await sites();
  for (let i = 0; i < 10; i++) assert.equal((await signIn('secret.example.com', { password: `guess-${i}` })).status, 401);
  const blocked = await signIn('secret.example.com', { password: 'hunter22' });
  assert.equal(blocked.status, 429);
  assert.match(blocked.headers.get('content-type') ?? '', /^text\/html/);

  const secure = await sites({ baseUrl: 'https://stats.example' });
  const ok = await secure.signIn('secret.example.com', { password: 'hunter22' });
  assert.match(ok.headers.get('set-cookie') ?? '', /Secure/);
});

test('counts on the page have thousands separators (totals, tables, chart axis and tooltips); the stats API keeps numbers', async () => {
  const { page, call, counters, clock, alice, ids } = await sites();
  const meta = { owner: alice.id, at: clock.now() };
  for (let i = 0; i < 12_345; i++) counters.record(`website:${ids.public}`, { add: { pageviews: 1, visitors: i < 1_234 ? 1 : 0 }, labels: { page: '/', browser: i < 1_234 ? 'Firefox' : null } }, meta);
  await counters.flush();
  const r = await page('/stats/public.example.com');
  assert.equal(r.status, 200);
  for (const part of ['<b>12,345</b>pageviews', '<b>1,234</b>visitors', '<td class="n">12,345</td>', '<td class="n">1,234</td>', '>15,000</text>', ': 12,345 pageviews</title>', ': 1,234 visitors</title>']) {
    assert.ok(r.text.includes(part), part);
  }
  assert.ok(!/12345|1234[^,\d]|15000/.test(r.text), 'no count without its separator');
  const api = await call('GET', `/api/v1/stats/${ids.public}?name=page&from=2026-11-21&to=2026-11-21`, { key: alice.key });
  assert.deepEqual(api.body.data, [{ value: '/', count: 12345 }]);
});

test('the page credits DB-IP, whose bundled database (CC BY 4.0) gives the countries; not with GEOIP off', async () => {
  const credit = '<a href="https://db-ip.com">IP Geolocation by DB-IP</a>';
  const on = await (await sites()).page('/stats/public.example.com');
  assert.equal(on.status, 200);
  assert.ok(on.text.includes(credit));
  const off = await (await sites({ geoip: false })).page('/stats/public.example.com');
  assert.equal(off.status, 200);
  assert.ok(!off.text.includes('db-ip.com'));
});
