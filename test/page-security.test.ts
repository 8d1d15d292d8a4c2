import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';
import type { Reply } from './helpers.ts';

const PIXEL_TYPES = ['gtmpixel', 'gapixel', 'adwordspixel', 'fbpixel', 'linkedinpixel', 'twitterpixel', 'adrollpixel', 'quorapixel', 'pinterest', 'bing', 'snapchat', 'reddit', 'tiktok'];

/** The directives of a Content-Security-Policy header. */
function directives(header: string | null): Map<string, string[]> {
  assert.ok(header, 'a Content-Security-Policy header');
  return new Map(header.split(';').map((d) => d.trim().split(/\s+/)).map(([name = '', ...sources]) => [name, sources]));
}

/** Whether a CSP source list allows loading `url` (origins, *. wildcards and schemes; no 'self' for other origins). */
function allows(sources: readonly string[] | undefined, url: string): boolean {
  const u = new URL(url, 'http://sho.rt');
  return (sources ?? []).some((s) => {
    if (s === "'self'") return u.origin === 'http://sho.rt';
    if (/^[a-z]+:$/.test(s)) return u.protocol === s;
    const m = /^(https?):\/\/(\*\.)?([^/]+)$/.exec(s);
    if (!m) return false;
    if (u.protocol !== `${m[1]}:`) return false;
    return m[2] ? u.host.endsWith(`.${m[3]}`) : u.host === m[3];
  });
}

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const unescape = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/** Asserts the common headers and that the CSP permits exactly what the page's markup needs. */
function assertSecurePage(r: Reply, referrer: string): Map<string, string[]> {
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(r.headers.get('x-frame-options'), 'DENY');
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(r.headers.get('referrer-policy'), referrer);
  const csp = directives(r.headers.get('content-security-policy'));
  assert.deepEqual(csp.get('default-src'), ["'none'"]);
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"]);
  assert.deepEqual(csp.get('base-uri'), ["'none'"]);
  assert.ok(csp.has('form-action'), 'form-action does not fall back to default-src');
  assert.ok(![...csp.values()].flat().some((s) => s === "'unsafe-inline'" || s === "'unsafe-eval'" || s === '*'), 'no unsafe-inline, unsafe-eval or *');
  const html = r.text;
  assert.doesNotMatch(html, /\sstyle="/, 'no style attributes: the CSP would block them');
  for (const [, css] of html.matchAll(/<style>([\s\S]*?)<\/style>/g)) assert.ok(csp.get('style-src')?.includes(hashOf(css!)), 'each inline stylesheet is allowed by its hash');
  for (const [, attrs, code] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
    const src = /src="([^"]+)"/.exec(attrs!)?.[1];
    if (src) assert.ok(allows(csp.get('script-src'), unescape(src)), `script ${src}`);
    else assert.ok(csp.get('script-src')?.includes(hashOf(code!)), 'each inline script is allowed by its hash');
  }
  for (const [, src] of html.matchAll(/<img [^>]*src="([^"]+)"/g)) assert.ok(allows(csp.get('img-src'), unescape(src!)), `image ${src}`);
  // The site's icon on every page, allowed by the CSP (Firefox checks icons against img-src).
  const icons = [...html.matchAll(/<link rel="icon" [^>]*href="([^"]+)"/g)].map((m) => unescape(m[1]!));
  assert.equal(icons.length, 1, 'one icon');
  assert.ok(icons[0]!.startsWith('data:image/svg+xml,') && allows(csp.get('img-src'), icons[0]!), 'the inline icon, allowed by img-src');
  for (const [, src] of html.matchAll(/<iframe [^>]*src="([^"]+)"/g)) assert.ok(allows(csp.get('frame-src'), unescape(src!)), `frame ${src}`);
  for (const [, action] of html.matchAll(/<form [^>]*action="([^"]+)"/g)) {
    const to = unescape(action!);
    assert.ok(to.startsWith('mailto:') ? csp.get('form-action')?.includes('mailto:') : allows(csp.get('form-action'), to), `form to ${to}`);
  }
  return csp;
}

async function world(overrides = {}) {
  const app = await testApp({ trustProxy: true, rateLimit: 0, analyticsRateLimit: 0, ...overrides });
  const ok = async (path: string, body: Record<string, unknown>) => {
    const r = await app.call('POST', path, { body });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };
  const page = (path: string, headers: Record<string, string> = {}) => app.call('GET', path, { key: null, headers });
  return { ...app, ok, page };
}

test('every page of the redirect side has a CSP fitting it, no framing, nosniff and a referrer policy', async (t) => {
  const { ok, page, call, store } = await world();
  const splash = await ok('/api/splash/add', { name: 'S', title: 'Wait', text: 'Hi', image: 'https://img.example.net/banner.png', countdown: 3 });
  const message = await ok('/api/overlay/add', { type: 'message', name: 'M', message: 'Buy', buttontext: 'Go', buttonlink: 'https://shop.example.com/', bgcolor: '#112233', position: 'top-right' });
  const contact = await ok('/api/overlay/add', { type: 'contact', name: 'C', fields: ['name', 'email'], email: 'sales@example.com' });
  const pixels = [];
  for (const type of PIXEL_TYPES) pixels.push((await ok('/api/pixel/add', { type, name: type, tag: `ID-${type}` })).id);
  await ok('/api/url/add', { url: 'https://example.com/f', custom: 'framed', type: 'frame' });
  await ok('/api/url/add', { url: 'https://example.com/s', custom: 'splashed', type: String(splash.id) });
  await ok('/api/url/add', { url: 'https://example.com/m', custom: 'overlaid', type: `overlay-${message.id}` });
  await ok('/api/url/add', { url: 'https://example.com/c', custom: 'contact', type: `overlay-${contact.id}` });
  await ok('/api/url/add', { url: 'https://example.com/p', custom: 'pixeled', pixels });
  await ok('/api/url/add', { url: 'https://example.com/fp', custom: 'framedpx', type: 'frame', pixels: pixels.slice(0, 4) });
  await ok('/api/url/add', { url: 'https://example.com/pw', custom: 'locked', password: 'pw' });
  const old = await ok('/api/url/add', { url: 'https://example.com/old', custom: 'gone', expiry: '2099-01-01 00:00:00' });
  await store.transaction((tx) => tx.update('links', old.id, { expiry: '2000-01-01 00:00:00' }));
  const campaign = await ok('/api/campaign/add', { name: 'Spring', slug: 'spring', public: true });
  const closed = await ok('/api/campaign/add', { name: 'Closed', slug: 'closed', public: false });
  assert.equal((await call('POST', `/api/campaign/${campaign.id}/assign/${old.id - 1}`)).status, 200);
  await ok('/api/bio/add', { name: 'Ada', alias: 'ada', description: 'Maths', avatar: 'https://img.example.net/ada.png', links: [{ title: 'Notes', url: 'https://example.com/notes' }] });

  const cases: { name: string; path: string; status: number; referrer?: string; headers?: Record<string, string>; check?: (csp: Map<string, string[]>, r: Reply) => void }[] = [
    { name: 'home', path: '/', status: 200 },
    { name: 'a browser on an unknown path', path: '/a/b', status: 404, headers: { accept: 'text/html' } },
    { name: 'unknown alias', path: '/nothing-here', status: 404 },
    { name: 'expired link', path: '/gone', status: 410 },
    { name: 'campaign page', path: `/u/admin/spring-${campaign.id}`, status: 200 },
    { name: 'private campaign page', path: `/u/admin/closed-${closed.id}`, status: 403 },
    { name: 'unknown QR', path: '/qr/none/scan', status: 404 },
    {
      name: 'bio page',
      path: '/u/ada',
      status: 200,
      headers: { accept: 'text/html' },
      check: (csp, r) => {
        assert.deepEqual(csp.get('img-src'), ['data:', 'https://img.example.net'], 'the icon and the avatar');
        assert.deepEqual(csp.get('form-action'), ["'none'"]);
        assert.equal(csp.get('script-src'), undefined, 'no script');
        assert.match(r.text, /<a class="btn" href="https:\/\/example\.com\/notes"/);
      },
    },
    {
      name: 'password form',
      path: '/locked',
      status: 200,
      referrer: 'no-referrer',
      check: (csp, r) => {
        assert.deepEqual(csp.get('form-action'), ["'self'"]);
        assert.equal(r.headers.get('cross-origin-opener-policy'), 'same-origin', 'no pixel page can script a protected link\'s window');
      },
    },
    {
      name: 'splash page',
      path: '/splashed',
      status: 200,
      check: (csp) => {
        assert.deepEqual(csp.get('img-src'), ['data:', 'https://img.example.net'], 'the icon and the splash image');
        assert.deepEqual(csp.get('form-action'), ["'none'"]);
        assert.deepEqual(csp.get('script-src')?.map((src) => src.startsWith("'sha256-")), [true], 'no script but the countdown, by its hash');
      },
    },
    { name: 'frame page', path: '/framed', status: 200, check: (csp) => assert.deepEqual(csp.get('frame-src'), ['https://example.com', 'https:']) },
    { name: 'message overlay', path: '/overlaid', status: 200, check: (_csp, r) => assert.match(r.text, /\.cta\{position:fixed;top:48px;right:16px;[^}]*background:#112233/) },
    { name: 'contact overlay', path: '/contact', status: 200, check: (csp) => assert.deepEqual(csp.get('form-action'), ['mailto:']) },
    {
      name: 'pixels page (every provider)',
      path: '/pixeled',
      status: 200,
      check: (csp, r) => {
        const inline = [...r.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
        for (const type of PIXEL_TYPES) assert.equal(inline.filter((code) => code.includes(`"ID-${type}"`)).length, 1, `one snippet of ${type}, its id in it`);
        assert.ok(csp.get('connect-src')?.includes('https://*.google-analytics.com') && csp.get('connect-src')?.includes('https://analytics.tiktok.com'));
        assert.ok(!csp.get('connect-src')?.includes("'self'"), 'pixel scripts cannot fetch this origin');
        assert.equal(r.headers.get('cross-origin-opener-policy'), null);
      },
    },
    { name: 'frame page with pixels', path: '/framedpx', status: 200, check: (csp) => assert.ok(csp.get('script-src')?.includes('https://*.googletagmanager.com') && csp.get('frame-src')?.includes('https://example.com')) },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await page(c.path, c.headers);
      assert.equal(r.status, c.status, r.text);
      const csp = assertSecurePage(r, c.referrer ?? 'strict-origin-when-cross-origin');
      c.check?.(csp, r);
    });
  }

  await t.test('too many attempts and a busy check answer pages with the same headers', async () => {
    const { call: post } = await world({ passwordAttemptLimit: 1 });
    await post('POST', '/api/url/add', { body: { url: 'https://example.com/x', custom: 'locked', password: 'pw' } });
    const guess = () => post('POST', '/locked', { key: null, raw: 'password=no', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertSecurePage(await guess(), 'no-referrer');
    const blocked = await guess();
    assert.equal(blocked.status, 429);
    assertSecurePage(blocked, 'no-referrer');
  });
});

test('dashboard pages, signed out and in: the icon, a CSP fitting them, no framing, nosniff, no referrer', async () => {
  const { app, makeUser } = await world();
  await makeUser('dash');
  const browser = new DashClient(app);
  const asReply = (r: { status: number; text: string; res: Response }): Reply => ({ status: r.status, text: r.text, headers: r.res.headers, body: null });
  const login = await browser.get('/app/login');
  assert.equal(login.status, 200);
  assertSecurePage(asReply(login), 'no-referrer');
  assert.equal((await browser.post('/app/login', { login: 'user_dash', password: 'secret-pw' })).status, 303);
  const home = await browser.get('/app');
  assert.deepEqual([home.status, home.res.headers.get('location')], [302, '/app/links'], 'the dashboard opens on its links');
  for (const path of ['/app/links', '/app/bios']) {
    const r = await browser.get(path);
    assert.equal(r.status, 200, path);
    assert.match(r.text, /Sign out/i, `${path}: signed in`);
    const csp = assertSecurePage(asReply(r), 'no-referrer');
    assert.deepEqual(csp.get('form-action'), ["'self'"], path);
    assert.equal(r.res.headers.get('cache-control'), 'no-store', path);
  }
});

test('the stats page and its gates: a CSP without inline-anything, no framing, no referrer, an isolated window', async () => {
  const { call, makeUser, page } = await world();
  const alice = await makeUser('alice');
  for (const body of [{ domain: 'public.example.com' }, { domain: 'private.example.com', privacy: 1 }]) {
    assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body })).status, 201);
  }
  for (const [path, status] of [['/stats/public.example.com', 200], ['/stats/private.example.com', 401], ['/stats/unknown.example.com', 404]] as const) {
    const r = await page(path);
    assert.equal(r.status, status);
    const csp = assertSecurePage(r, 'no-referrer');
    assert.deepEqual(csp.get('form-action'), [status === 404 ? "'none'" : "'self'"], 'forms post to the page itself; a page without a form posts nowhere');
    assert.equal(r.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(r.headers.get('cross-origin-embedder-policy'), 'require-corp', 'not even a protected link page of the origin shares its window group');
  }
});

test('the one-time sign-in pages: no referrer, an isolated window, forms only to the page itself', async () => {
  const { call, makeUser, page } = await world();
  const alice = await makeUser('alice');
  const token = new URL((await call('GET', `/api/user/login/${alice.id}`)).body.url).searchParams.get('token')!;
  const post = (fields: string) => call('POST', '/login', { key: null, raw: fields, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  for (const [name, reply, status, formAction] of [
    ['the link', await page(`/login?token=${token}`), 200, "'self'"],
    ['the new key', await post(`token=${token}`), 200, "'none'"],
    ['a used link', await post(`token=${token}`), 404, "'none'"],
  ] as const) {
    assert.equal(reply.status, status, name);
    const csp = assertSecurePage(reply, 'no-referrer');
    assert.deepEqual(csp.get('form-action'), [formAction], name);
    assert.equal(reply.headers.get('cross-origin-embedder-policy'), 'require-corp', name);
    assert.equal(reply.headers.get('cache-control'), 'no-store', name);
  }
});

test('sign-in cookies are HttpOnly, SameSite=Strict, path-scoped, and Secure on an https BASE_URL', async () => {
  const { call, makeUser } = await world({ baseUrl: 'https://sho.rt' });
  assert.equal((await call('POST', '/api/url/add', { body: { url: 'https://example.com/x', custom: 'locked', password: 'pw' } })).status, 200);
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'secret.example.com', privacy: 2, password: 'pw' } })).status, 201);
  const form = { key: null, raw: 'password=pw', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  const link = (await call('POST', '/locked', form)).headers.get('set-cookie') ?? '';
  assert.match(link, /^lp_\d+=[^;]+; Max-Age=86400; Path=\/locked; HttpOnly; Secure; SameSite=Strict$/);
  const stats = (await call('POST', '/stats/secret.example.com', form)).headers.get('set-cookie') ?? '';
  assert.match(stats, /^pa_stats_\d+=[^;]+; Max-Age=86400; Path=\/stats\/secret\.example\.com; HttpOnly; Secure; SameSite=Strict$/);
});

test('a sign-in cookie opens a page only to a page load, not to a script fetching or framing it', async () => {
  const { call, makeUser, page } = await world();
  const made = await call('POST', '/api/url/add', { body: { url: 'https://example.com/target', custom: 'locked', password: 'pw', type: 'splash' } });
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'private.example.com', privacy: 1 } })).status, 201);
  const post = (path: string, raw: string) => call('POST', path, { key: null, raw, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const lp = (await post('/locked', 'password=pw')).headers.get('set-cookie')!.split(';')[0]!;
  const pa = (await post('/stats/private.example.com', `key=${alice.key}`)).headers.get('set-cookie')!.split(';')[0]!;

  for (const dest of ['empty', 'iframe', 'object', 'script']) {
    const link = await page('/locked', { cookie: lp, 'sec-fetch-dest': dest });
    assert.equal(link.status, 200);
    assert.match(link.text, /This link is protected/, dest);
    assert.ok(!link.text.includes('example.com/target'), `${dest}: no destination`);
    const stats = await page('/stats/private.example.com', { cookie: pa, 'sec-fetch-dest': dest });
    assert.equal(stats.status, 401, dest);
    assert.ok(!stats.text.includes('class="figure"'), `${dest}: no statistics`);
  }
  const { text } = await call('GET', `/api/url/${made.body.id}`);
  assert.equal(JSON.parse(text).data.clicks, 0, 'none of these counted a click');

  const link = await page('/locked', { cookie: lp, 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' });
  assert.equal(link.status, 200);
  assert.match(link.text, /https:\/\/example\.com\/target/, 'a page load with the cookie shows the splash page');
  assert.equal(link.headers.get('cross-origin-opener-policy'), 'same-origin');
  assert.equal((await page('/stats/private.example.com', { cookie: pa, 'sec-fetch-dest': 'document' })).status, 200);
  assert.equal((await page('/stats/private.example.com', { cookie: pa })).status, 200, 'browsers without Sec-Fetch headers still sign in');
});

test('a visit from another site, whose browser held the SameSite=Strict cookie back, reloads once to send it', async () => {
  const { call, makeUser, page } = await world();
  assert.equal((await call('POST', '/api/url/add', { body: { url: 'https://example.com/x', custom: 'locked', password: 'pw' } })).status, 200);
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'private.example.com', privacy: 1 } })).status, 201);
  const reload = /<meta http-equiv="refresh" content="0">/;
  for (const path of ['/locked', '/stats/private.example.com']) {
    assert.match((await page(path, { 'sec-fetch-site': 'cross-site' })).text, reload, `${path}: from another site`);
    assert.doesNotMatch((await page(path, { 'sec-fetch-site': 'same-origin' })).text, reload, `${path}: the reload itself does not reload again`);
    assert.doesNotMatch((await page(path, { 'sec-fetch-site': 'none' })).text, reload, `${path}: typed or bookmarked`);
    assert.doesNotMatch((await page(path)).text, reload, `${path}: no Sec-Fetch headers`);
  }
});

test('password forms posted from another site are refused and not counted; from the page itself they work', async () => {
  const { call, makeUser } = await world({ passwordAttemptLimit: 1 });
  assert.equal((await call('POST', '/api/url/add', { body: { url: 'https://example.com/x', custom: 'locked', password: 'pw' } })).status, 200);
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'secret.example.com', privacy: 2, password: 'pw' } })).status, 201);
  const post = (path: string, password: string, headers: Record<string, string>) =>
    call('POST', path, { key: null, raw: `password=${password}`, headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'sho.rt', ...headers } });
  for (const path of ['/locked', '/stats/secret.example.com']) {
    const foreign: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, { origin: 'null' }];
    for (const headers of foreign) {
      const r = await post(path, 'pw', headers);
      assert.equal(r.status, 403, `${path} ${JSON.stringify(headers)}`);
      assert.match(r.text, /can only be sent from its own page/);
      assert.equal(r.headers.get('set-cookie'), null);
    }
    assert.equal((await post(path, 'wrong', { 'sec-fetch-site': 'cross-site' })).status, 403);
    const own = await post(path, 'pw', { 'sec-fetch-site': 'same-origin', origin: 'http://sho.rt' });
    // A link opens through a page of its own (see openingPage), a stats page by a redirect to itself.
    const signedIn = path === '/locked' ? 200 : 303;
    assert.equal(own.status, signedIn, `${path}: refused posts did not use up the limit of 1`);
    assert.equal((await post(path, 'pw', { origin: 'http://sho.rt' })).status, signedIn, `${path}: Origin alone, same host`);
  }
});

test('no API route accepts a page cookie instead of a key', async () => {
  const { call, makeUser } = await world();
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/x', custom: 'locked', password: 'pw' } })).status, 200);
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'private.example.com', privacy: 1 } })).status, 201);
  const form = (path: string, raw: string) => call('POST', path, { key: null, raw, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const cookie = [(await form('/locked', 'password=pw')).headers.get('set-cookie'), (await form('/stats/private.example.com', `key=${alice.key}`)).headers.get('set-cookie')]
    .map((c) => c!.split(';')[0])
    .join('; ');
  for (const path of ['/api/account', '/api/urls', '/api/url/1', '/api/v1/websites', '/api/v1/stats/1?name=pageviews']) {
    const r = await call('GET', path, { key: null, headers: { cookie } });
    assert.equal(r.status, 401, path);
    assert.ok(!r.text.includes('example.com'), `${path}: nothing private`);
  }
});

test('the stats page: one hashed script, reads only from itself; stored labels with markup show as text; downloads are never run', async () => {
  const { call, makeUser, page, counters, app } = await world();
  const alice = await makeUser('alice');
  assert.equal((await call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'public.example.com' } })).status, 201);
  const evil = '<script>alert(1)</script>';
  const sent = await call('POST', '/api/event', {
    key: null,
    raw: JSON.stringify({ page: `https://public.example.com/${encodeURIComponent(evil)}?utm_source=${encodeURIComponent(evil)}&utm_campaign=%22%3E%3Cimg%20src%3Dx%3E`, referrer: `https://x.example.net/${evil}` }),
    headers: { 'x-forwarded-for': '192.0.2.9' },
  });
  assert.equal(sent.status, 202);
  assert.equal((await call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: 'https://public.example.com/', event: { name: evil, properties: { [evil]: evil } } }), headers: { 'x-forwarded-for': '192.0.2.9' } })).status, 202);
  // A URL's path reaches the counters percent-encoded; labels that came another way (an import) may hold markup as it is.
  const site = (await call('GET', '/api/v1/websites', { key: alice.key })).body.data[0].id;
  counters.record(`website:${site}`, { add: { pageviews: 1 }, labels: { page: '/<script>alert(2)</script>', city: 'US:<script>alert(3)</script>' } }, { owner: alice.id });
  await counters.flush();
  const views = ['', '?locations=city', '?utm=utm_campaign', `?event=${encodeURIComponent(evil)}`, `?event=${encodeURIComponent(evil)}&property=${encodeURIComponent(evil)}`, `?period=${encodeURIComponent(evil)}`];
  for (const query of views) {
    const r = await page(`/stats/public.example.com${query}`);
    assert.equal(r.status, 200, query);
    const csp = assertSecurePage(r, 'no-referrer');
    assert.equal(csp.get('script-src')?.length, 1, `${query}: one script, by its hash`);
    assert.deepEqual(csp.get('connect-src'), ["'self'"], `${query}: the realtime line is read from the page's own origin, nothing else`);
    assert.deepEqual(csp.get('img-src'), ['data:']);
    assert.equal([...r.text.matchAll(/<script/g)].length, 1, `${query}: the stored markup is no script`);
    assert.ok(!r.text.includes('<img src=x>') && !r.text.includes('"><img'), `${query}: nor an image`);
  }
  const home = (await page('/stats/public.example.com')).text;
  assert.ok(home.includes('<td>&#60;script&#62;alert(1)&#60;/script&#62;</td>'), 'the UTM value, as text');
  assert.ok(home.includes('>&#60;script&#62;alert(1)&#60;/script&#62;</a></td>'), 'the event name, as text');
  assert.ok(home.includes('<td>/&#60;script&#62;alert(2)&#60;/script&#62;</td>'), 'the page path, as text');
  assert.ok((await page('/stats/public.example.com?locations=city')).text.includes('<span>&#60;script&#62;alert(3)&#60;/script&#62;</span>'), 'a city, as text');
  const campaign = (await page('/stats/public.example.com?utm=utm_campaign')).text;
  assert.ok(campaign.includes('<td>&#34;&#62;&#60;img src=x&#62;</td>'), 'the campaign, as text');
  for (const path of ['/stats/public.example.com/csv?name=utm_source&from=2026-11-21&to=2026-11-21', '/stats/public.example.com/export?from=2026-11-21&to=2026-11-21', '/stats/public.example.com/realtime']) {
    const r = await app.request(path);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(r.headers.get('x-frame-options'), 'DENY', path);
    assert.match(r.headers.get('content-security-policy') ?? '', /^default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'$/, path);
    assert.equal(r.headers.get('cache-control'), 'no-store', path);
  }
  const csv = await (await app.request('/stats/public.example.com/csv?name=utm_source&from=2026-11-21&to=2026-11-21')).text();
  assert.equal(csv, `value,count\r\n${evil},1\r\n`, 'a CSV keeps the text as counted (it is a download, not a page)');
});
