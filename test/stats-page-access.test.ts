import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, snapshotOf } from './helpers.ts';
import { readZip } from './zip-reader.ts';

const form = (fields: Record<string, string>) => ({ raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.77' } });
const RANGE = 'from=2026-11-01&to=2026-11-21';

/** Three websites (public, owner only, password), each with two visits on /secret-page-of-<privacy>. */
async function sites() {
  const app = await testApp({ trustProxy: true, analyticsRateLimit: 0, rateLimit: 0 });
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
  for (const [domain, n] of [['public.example.com', 0], ['private.example.com', 1], ['secret.example.com', 2]] as const) {
    for (const ip of ['192.0.2.1', '192.0.2.2']) {
      const r = await app.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://${domain}/secret-page-of-${n}` }), headers: { 'x-forwarded-for': ip } });
      assert.equal(r.status, 202);
    }
  }
  await app.counters.flush();
  /** A GET as a browser sends it: `dest` is Sec-Fetch-Dest (document: a page load or a download; empty: a script's fetch). */
  const get = (path: string, cookie?: string, headers: Record<string, string> = {}) => app.app.request(path, { headers: { ...(cookie ? { cookie } : {}), ...headers } });
  const signIn = async (domain: string, fields: Record<string, string>) => {
    const r = await app.call('POST', `/stats/${domain}`, { key: null, ...form(fields) });
    assert.equal(r.status, 303, r.text);
    return r.headers.get('set-cookie')!.split(';')[0]!;
  };
  return { ...app, alice, bob, ids, get, signIn };
}

test('a public page\'s visitor downloads what the page shows: each panel\'s CSV, the zip, the realtime line', async () => {
  const { get } = await sites();
  const csv = await get(`/stats/public.example.com/csv?name=page&${RANGE}`);
  assert.equal(csv.status, 200);
  assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(csv.headers.get('content-disposition'), 'attachment; filename="public.example.com-page-2026-11-01-2026-11-21.csv"');
  assert.equal(csv.headers.get('x-content-type-options'), 'nosniff');
  assert.match(csv.headers.get('content-security-policy') ?? '', /^default-src 'none'/);
  assert.equal(await csv.text(), 'value,count\r\n/secret-page-of-0,2\r\n');
  const zip = await get(`/stats/public.example.com/export?${RANGE}`);
  assert.equal(zip.status, 200);
  assert.equal(zip.headers.get('content-type'), 'application/zip');
  const files = readZip(new Uint8Array(await zip.arrayBuffer()));
  assert.deepEqual([...files.keys()].sort(), [
    'browser.csv', 'city.csv', 'country.csv', 'device.csv', 'event.csv', 'event_property.csv', 'landing_page.csv', 'os.csv', 'page.csv', 'pageviews.csv', 'pageviews_hour.csv',
    'referrer.csv', 'region.csv', 'source.csv', 'utm_campaign.csv', 'utm_content.csv', 'utm_medium.csv', 'utm_source.csv', 'utm_term.csv', 'visitors.csv', 'visitors_hour.csv',
  ], 'what the page shows: no languages, resolutions, continents');
  assert.equal(files.get('page.csv'), 'value,count\r\n/secret-page-of-0,2\r\n');
  assert.equal(files.get('visitors.csv'), 'value,count\r\n2026-11-21,2\r\n');
  const live = await get('/stats/public.example.com/realtime', undefined, { 'sec-fetch-dest': 'empty' });
  assert.deepEqual([live.status, await live.json()], [200, { visitors: 2, text: '2 visitors in the last 5 minutes' }]);
});

test('a private page: panels, CSV, zip and realtime refused without the cookie; the cookie opens them to a page load or download only', async () => {
  const { get, signIn, alice, store } = await sites();
  const before = await snapshotOf(store, 'stats');
  const paths = ['/stats/private.example.com', `/stats/private.example.com/csv?name=page&${RANGE}`, `/stats/private.example.com/export?${RANGE}`, '/stats/private.example.com/realtime'];
  for (const path of paths) {
    const r = await get(path);
    assert.equal(r.status, 401, path);
    const body = await r.text();
    assert.ok(!body.includes('secret-page-of-1') && !/"visitors"/.test(body), `${path}: nothing of the statistics`);
    assert.equal(r.headers.get('content-disposition'), null, `${path}: no download`);
  }
  const pair = await signIn('private.example.com', { key: alice.key });
  for (const path of paths) {
    for (const dest of [undefined, 'document']) {
      const r = await get(path, pair, dest ? { 'sec-fetch-dest': dest } : {});
      assert.equal(r.status, 200, `${path} as ${dest ?? 'an old browser'}`);
    }
  }
  assert.match(await (await get(`/stats/private.example.com/csv?name=page&${RANGE}`, pair)).text(), /secret-page-of-1,2/);
  // A script of another page of the origin (a user's pixel) fetches or frames with the visitor's cookie.
  for (const path of paths.slice(0, 3)) {
    for (const dest of ['empty', 'iframe', 'script']) {
      const r = await get(path, pair, { 'sec-fetch-dest': dest });
      assert.equal(r.status, 401, `${path} as ${dest}`);
      assert.ok(!(await r.text()).includes('secret-page-of-1'));
    }
  }
  // The realtime line is read by the page's own script: the cookie and the page's token, both.
  const page = await (await get('/stats/private.example.com', pair)).text();
  const token = /data-token="([\w-]{43})"/.exec(page)?.[1];
  assert.ok(token, 'the page carries its script\'s token');
  assert.ok(!page.includes(pair.split('=')[1]!), 'not the cookie itself');
  const fetchLive = (cookie: string | undefined, headers: Record<string, string>) => get('/stats/private.example.com/realtime', cookie, { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'same-origin', ...headers });
  assert.equal((await fetchLive(pair, { 'x-stats-token': token })).status, 200);
  assert.deepEqual(await (await fetchLive(pair, { 'x-stats-token': token })).json(), { visitors: 2, text: '2 visitors in the last 5 minutes' });
  assert.equal((await fetchLive(pair, {})).status, 401, 'no token: a script that is not the page');
  assert.equal((await fetchLive(pair, { 'x-stats-token': token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) })).status, 401, 'a wrong token');
  assert.equal((await fetchLive(undefined, { 'x-stats-token': token })).status, 401, 'a token without the cookie');
  const refused = await fetchLive(pair, {});
  assert.deepEqual(await refused.json(), { error: 'These statistics are not public: sign in on the statistics page.' });
  assert.equal(await snapshotOf(store, 'stats'), before, 'nothing counted by any of it');
});

test('a password page: its cookie opens the downloads; changing the password closes them', async () => {
  const { get, signIn, call, alice, ids } = await sites();
  const csv = `/stats/secret.example.com/csv?name=page&${RANGE}`;
  assert.equal((await get(csv)).status, 401);
  const pair = await signIn('secret.example.com', { password: 'hunter22' });
  const ok = await get(csv, pair);
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /secret-page-of-2,2/);
  assert.equal((await get(`/stats/private.example.com/csv?name=page&${RANGE}`, pair.replace(`pa_stats_${ids.password}`, `pa_stats_${ids.private}`))).status, 401, 'one website\'s cookie opens no other');
  assert.equal((await call('PATCH', `/api/v1/websites/${ids.password}`, { key: alice.key, body: { password: 'correct horse' } })).status, 200);
  assert.equal((await get(csv, pair)).status, 401);
  assert.equal((await get('/stats/secret.example.com/realtime', pair)).status, 401);
});

test('downloads refuse what the page never links to, and a www spelling redirects with its query', async () => {
  const { get } = await sites();
  const cases: [query: string, text: RegExp][] = [
    [`name=language&${RANGE}`, /name must be one of page, landing_page/],
    [`name=visitors&${RANGE}`, /name must be one of/],
    [`${RANGE}`, /name must be one of/],
    [`name=event_property&${RANGE}`, /event_property needs its event/],
    ['name=page&from=2026-11-21&to=2026-11-01', /from not after to/],
    ['name=page&from=2025-01-01&to=2026-11-21', /at most 366 days/],
    ['name=page&from=2026-02-30&to=2026-03-01', /must be dates/],
    ['name=page', /must be dates/],
  ];
  for (const [query, text] of cases) {
    const r = await get(`/stats/public.example.com/csv?${query}`);
    assert.equal(r.status, 400, query);
    assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await r.text(), text, query);
  }
  assert.equal((await get('/stats/public.example.com/export?from=2026-11-21')).status, 400);
  const moved = await get(`/stats/www.public.example.com/csv?name=page&${RANGE}`);
  assert.deepEqual([moved.status, moved.headers.get('location')], [301, `/stats/public.example.com/csv?name=page&${RANGE}`]);
  for (const path of ['/stats/nobody.example.com/csv?name=page', '/stats/nobody.example.com/export', '/stats/nobody.example.com/realtime']) assert.equal((await get(path)).status, 404, path);
  const property = await get(`/stats/public.example.com/csv?name=event_property&event=Signup&property=plan&${RANGE}`);
  assert.deepEqual([property.status, await property.text()], [200, 'value,count\r\n']);
});

test('STATS_PAGE_RATE_LIMIT: page views and downloads count per client IP, past it 429 with Retry-After; the realtime line and other clients go on', async () => {
  const app = await testApp({ trustProxy: true, analyticsRateLimit: 0, rateLimit: 0, statsPageRateLimit: 3 });
  const alice = await app.makeUser('alice');
  const made = await app.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'busy.example.com' } });
  assert.equal(made.status, 201, made.text);
  const from = (ip: string, path: string, headers: Record<string, string> = {}) => app.app.request(path, { headers: { 'x-forwarded-for': ip, ...headers } });
  for (const path of ['/stats/busy.example.com', `/stats/busy.example.com/csv?name=page&${RANGE}`, `/stats/busy.example.com/export?${RANGE}`]) {
    assert.equal((await from('192.0.2.10', path)).status, 200, path);
  }
  for (const path of ['/stats/busy.example.com', `/stats/busy.example.com/export?${RANGE}`]) {
    const refused = await from('192.0.2.10', path);
    assert.equal(refused.status, 429, path);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(await refused.text(), /too often/);
  }
  assert.equal((await from('192.0.2.10', '/stats/busy.example.com/realtime', { 'sec-fetch-dest': 'empty' })).status, 200, 'the page\'s own poll is not counted');
  assert.equal((await from('192.0.2.11', '/stats/busy.example.com')).status, 200, 'another client has its own count');
});
