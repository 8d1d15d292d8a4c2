import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allOf, eventually, ownedBy, testApp } from './helpers.ts';

const UA = {
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

/** Two visitors: V1 a German desktop, V2 an American iPhone on IPv6. */
const V1 = { 'x-forwarded-for': '192.0.2.1', 'user-agent': UA.chromeWindows, 'cf-ipcountry': 'DE', 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' };
const V2 = { 'x-forwarded-for': '2001:db9::5', 'user-agent': UA.safariIphone, 'cf-ipcountry': 'us', 'accept-language': 'en-US' };

async function tracked() {
  const app = await testApp({ trustProxy: true, analyticsRateLimit: 10000 });
  const alice = await app.makeUser('alice');
  const site = await app.call('POST', '/api/v1/websites', {
    key: alice.key,
    body: { domain: 'example.com', exclude_params: 'fbclid\nsessionid', exclude_ips: '203.0.113.0/24\n2001:db8::/32\n198.51.100.7' },
  });
  assert.equal(site.status, 201, site.text);
  const send = (body: Record<string, unknown>, headers: Record<string, string>) => app.call('POST', '/api/event', { key: null, raw: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers } });
  const stats = async (query: string, key = alice.key) => {
    const r = await app.call('GET', `/api/v1/stats/${site.body.data.id}?${query}`, { key });
    return r;
  };
  const rows = async (name: string, range = 'from=2026-11-21&to=2026-11-22') => {
    const r = await stats(`name=${name}&${range}`);
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((row: { value: string; count: number }) => [row.value, row.count]);
  };
  return { ...app, alice, id: site.body.data.id as number, send, stats, rows };
}

async function scripted() {
  const t = await tracked();
  const { send, clock } = t;
  const accepted = async (body: Record<string, unknown>, headers: Record<string, string>) => {
    const r = await send(body, headers);
    assert.deepEqual([r.status, r.text], [202, ''], JSON.stringify(body));
    // The empty body said as such (Node would otherwise answer chunked).
    assert.equal(r.headers.get('content-length'), '0');
  };
  // Day 1.
  await accepted({ page: 'https://www.example.com/?utm_campaign=launch&fbclid=abc', referrer: 'https://news.ycombinator.com/item?id=1', screen_resolution: '1920x1080' }, V1);
  clock.set('2026-11-21T10:05:00Z');
  await accepted({ page: 'https://example.com/pricing?sessionid=zz', referrer: 'https://example.com/', screen_resolution: '1920x1080' }, V1);
  clock.set('2026-11-21T11:30:00Z');
  await accepted({ page: 'https://example.com/pricing', referrer: '', screen_resolution: '390x844' }, V2);
  await accepted({ page: 'https://example.com/', referrer: '' }, { ...V1, 'user-agent': UA.googlebot, 'x-forwarded-for': '192.0.2.50' });
  await accepted({ page: 'https://example.com/' }, { ...V1, 'x-forwarded-for': '198.51.100.7' });
  await accepted({ page: 'https://example.com/' }, { ...V1, 'x-forwarded-for': '203.0.113.99' });
  await accepted({ page: 'https://example.com/' }, { ...V2, 'x-forwarded-for': '2001:db8::1234' });
  await accepted({ page: 'https://example.com/pricing', event: { name: 'signup', value: 1, unit: 'click' } }, V1);
  const unknown = await send({ page: 'https://unknown.example.net/' }, V1);
  assert.deepEqual([unknown.status, unknown.body], [404, { error: 1, message: 'Website not found.' }]);
  // Day 2: the same two people are new visitors again.
  clock.set('2026-11-22T09:15:00Z');
  await accepted({ page: 'https://example.com/', referrer: 'https://www.google.com/search?q=x', screen_resolution: '1920x1080' }, V1);
  clock.set('2026-11-22T09:45:00Z');
  await accepted({ page: 'https://example.com/docs', screen_resolution: '390x844' }, V2);
  clock.set('2026-11-22T10:10:00Z');
  await accepted({ page: 'https://example.com/docs', referrer: 'https://example.com/docs' }, V2);
  return t;
}

test('a scripted sequence produces exactly these statistics', async (t) => {
  const { rows } = await scripted();
  const expected: Record<string, [string, number][]> = {
    pageviews: [['2026-11-21', 3], ['2026-11-22', 3]],
    visitors: [['2026-11-21', 2], ['2026-11-22', 2]],
    // utm_campaign (as every utm_*) and fbclid (an exclude_params name) leave the path: one page "/".
    page: [['/', 2], ['/docs', 2], ['/pricing', 2]],
    landing_page: [['/', 2], ['/docs', 1], ['/pricing', 1]],
    referrer: [['Direct, email and other', 2], ['google.com', 1], ['news.ycombinator.com', 1]],
    browser: [['Chrome', 2], ['Safari', 2]],
    os: [['Windows', 2], ['iOS', 2]],
    device: [['Desktop', 2], ['Mobile', 2]],
    country: [['DE:Germany', 2], ['US:United States', 2]],
    continent: [['EU:Europe', 2], ['NA:North America', 2]],
    language: [['de', 2], ['en', 2]],
    resolution: [['1920x1080', 2], ['390x844', 2]],
    campaign: [['launch', 1]],
    event: [['signup', 1]],
    pageviews_hour: [['10', 3], ['09', 2], ['11', 1]],
    visitors_hour: [['09', 2], ['10', 2], ['11', 1]],
    // Referrers by named source; visits without a referrer or utm_source are Direct / None.
    source: [['Direct / None', 2], ['Google', 1], ['Hacker News', 1]],
    utm_campaign: [['launch', 1]],
    utm_source: [],
    utm_medium: [],
    utm_term: [],
    utm_content: [],
    // No City database here: no regions nor cities (the header's country is not looked up).
    region: [],
    city: [],
  };
  for (const [name, want] of Object.entries(expected)) {
    await t.test(name, async () => assert.deepEqual(await rows(name), want));
  }
  await t.test('a range of one day', async () => {
    assert.deepEqual(await rows('pageviews', 'from=2026-11-22&to=2026-11-22'), [['2026-11-22', 3]]);
    assert.deepEqual(await rows('page', 'from=2026-11-22&to=2026-11-22'), [['/docs', 2], ['/', 1]]);
    assert.deepEqual(await rows('visitors', 'from=2026-11-23&to=2026-12-31'), []);
  });
});

test('stats API: search, sort by value, paging and its links', async () => {
  const { stats, id } = await scripted();
  const search = await stats('name=page&from=2026-11-21&to=2026-11-22&search=PRIC&search_by=value');
  assert.deepEqual(search.body.data, [{ value: '/pricing', count: 2 }]);
  const byValue = await stats('name=page&from=2026-11-21&to=2026-11-22&sort_by=value&sort=asc');
  assert.deepEqual(byValue.body.data.map((r: { value: string }) => r.value), ['/', '/docs', '/pricing']);
  const paged = await stats('name=page&from=2026-11-21&to=2026-11-22&sort_by=value&sort=desc&per_page=10&page=1');
  // The real product's flat Laravel paginator (issue 16, item 13).
  const { data: _data, links: _links, ...flat } = paged.body;
  const first = `http://sho.rt/api/v1/stats/${id}?name=page&from=2026-11-21&to=2026-11-22&sort_by=value&sort=desc&per_page=10&page=1`;
  assert.deepEqual(flat, { current_page: 1, first_page_url: first, from: 1, last_page: 1, last_page_url: first, next_page_url: null, path: `http://sho.rt/api/v1/stats/${id}`, per_page: 10, prev_page_url: null, to: 3, total: 3, status: 200 });
  assert.equal(paged.body.status, 200);
});

test('stats API: bad metric, dates and page are 422 (unknown sort_by, sort, search_by, per_page are the defaults); another user gets 404', async () => {
  const { stats, makeUser } = await scripted();
  const cases: [string, Record<string, string[]>][] = [
    ['', { name: ['The name field is required.'], from: ['The from field is required.'], to: ['The to field is required.'] }],
    ['name=bounces&from=2026-11-21&to=2026-11-22', { name: ['The selected name is invalid. Valid names: browser, campaign, city, continent, country, device, event, event_property, landing_page, language, os, page, pageviews, pageviews_hour, referrer, region, resolution, source, utm_campaign, utm_content, utm_medium, utm_source, utm_term, visitors, visitors_hour.'] }],
    ['name=PAGE&from=2026-11-21&to=2026-11-22', { name: ['The selected name is invalid. Valid names: browser, campaign, city, continent, country, device, event, event_property, landing_page, language, os, page, pageviews, pageviews_hour, referrer, region, resolution, source, utm_campaign, utm_content, utm_medium, utm_source, utm_term, visitors, visitors_hour.'] }],
    ['name=page&from=21-11-2026&to=2026-11-22', { from: ['The from does not match the format Y-m-d.'] }],
    ['name=page&from=2026-02-30&to=2026-11-22', { from: ['The from is not a valid date.'] }],
    ['name=page&from=2026-11-22&to=2026-11-21', { to: ['The to must be a date after or equal to from.'] }],
    ['name=page&from=2026-11-21&to=2026-11-22&page=0', { page: ['The page must be at least 1.'] }],
  ];
  for (const [query, message] of cases) {
    const r = await stats(query);
    assert.deepEqual([r.status, r.body], [422, { message, status: 422 }], query);
  }
  const bob = await makeUser('bob');
  const theirs = await stats('name=page&from=2026-11-21&to=2026-11-22', bob.key);
  assert.deepEqual([theirs.status, theirs.body], [404, { message: 'Resource not found.', status: 404 }]);
});

test('exclude_params "&" strips every parameter; bots are counted when exclude_bots is 0', async () => {
  const { call, send } = await tracked();
  const site = await call('POST', '/api/v1/websites', { body: { domain: 'shop.example.org', exclude_params: '&', exclude_bots: 0 } });
  await send({ page: 'https://shop.example.org/cart?item=1&utm_campaign=winter#top' }, { ...V1, 'user-agent': UA.googlebot });
  const pages = await call('GET', `/api/v1/stats/${site.body.data.id}?name=page&from=2026-11-21&to=2026-11-21`);
  assert.deepEqual(pages.body.data, [{ value: '/cart', count: 1 }]);
  const campaign = await call('GET', `/api/v1/stats/${site.body.data.id}?name=campaign&from=2026-11-21&to=2026-11-21`);
  assert.deepEqual(campaign.body.data, [{ value: 'winter', count: 1 }], 'the campaign is read before the parameters are stripped');
});

test('a site tried out locally: localhost, 127.0.0.1 and <name>.localhost are websites whose pages count; utm_* parameters leave the page path, others stay', async () => {
  const { call, send } = await tracked();
  const sites: Record<string, number> = {};
  for (const [given, stored] of [['http://LocalHost/', 'localhost'], ['127.0.0.1', '127.0.0.1'], ['blog.localhost', 'blog.localhost']] as const) {
    const r = await call('POST', '/api/v1/websites', { body: { domain: given } });
    assert.deepEqual([r.status, r.body.data?.domain], [201, stored], r.text);
    sites[stored] = r.body.data.id;
  }
  const pages = {
    localhost: 'http://localhost:5173/shop?utm_source=newsletter&utm_medium=email&UTM_Content=x&q=shoes&utm_campaign=fall',
    '127.0.0.1': 'http://127.0.0.1:8080/?utm_term=a&ref=nav',
    'blog.localhost': 'http://blog.localhost/post?page=2&utmost=1',
  };
  for (const page of Object.values(pages)) assert.equal((await send({ page }, V1)).status, 202, page);
  const rows = async (site: string, name: string) => (await call('GET', `/api/v1/stats/${sites[site]}?name=${name}&from=2026-11-21&to=2026-11-21`)).body.data;
  assert.deepEqual(await rows('localhost', 'page'), [{ value: '/shop?q=shoes', count: 1 }]);
  assert.deepEqual(await rows('localhost', 'campaign'), [{ value: 'fall', count: 1 }], 'the campaign is still read from utm_campaign');
  assert.deepEqual(await rows('127.0.0.1', 'page'), [{ value: '/?ref=nav', count: 1 }]);
  assert.deepEqual(await rows('blog.localhost', 'pageviews'), [{ value: '2026-11-21', count: 1 }]);
  assert.deepEqual(await rows('blog.localhost', 'page'), [{ value: '/post?page=2&utmost=1', count: 1 }], 'only utm_ names go');
  // Other addresses stay refused, and are not stored.
  for (const domain of ['127.0.0.2', '192.168.1.10', 'localhost:3000', '::1']) {
    const r = await call('POST', '/api/v1/websites', { body: { domain } });
    assert.deepEqual([r.status, r.body.message?.domain], [422, ['The domain must be a valid domain name.']], domain);
  }
  const list = await call('GET', '/api/v1/websites?per_page=100');
  assert.deepEqual(list.body.data.map((w: { domain: string }) => w.domain).sort(), ['127.0.0.1', 'blog.localhost', 'localhost']);
});

test('bad event bodies are refused without counting', async () => {
  const { call, rows } = await tracked();
  const cases: [string, number][] = [
    ['not json', 400],
    ['[1]', 400],
    [JSON.stringify({ referrer: 'https://x.com' }), 400],
    [JSON.stringify({ page: 'no url' }), 400],
    [JSON.stringify({ page: 'https://example.com/', event: { name: '' } }), 400],
    [JSON.stringify({ page: `https://example.com/${'x'.repeat(9000)}` }), 413],
    [JSON.stringify({ page: 'ftp://example.com/' }), 404],
  ];
  for (const [raw, status] of cases) {
    const res = await call('POST', '/api/event', { key: null, raw, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, status, raw.slice(0, 60));
    assert.equal(res.body.error, 1);
  }
  assert.deepEqual(await rows('pageviews'), []);
});

test('the event endpoint is rate limited per client IP, answers CORS, and serves the script', async () => {
  const app = await testApp({ trustProxy: true, eventRateLimit: 3 });
  const post = (ip: string) => app.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: 'https://nowhere.example/' }), headers: { 'x-forwarded-for': ip } });
  for (let i = 0; i < 3; i++) assert.equal((await post('192.0.2.9')).status, 404);
  const limited = await post('192.0.2.9');
  assert.deepEqual([limited.status, limited.body], [429, { error: 1, message: 'Too Many API Requests.' }]);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.equal(limited.headers.get('access-control-allow-origin'), '*');
  assert.equal((await post('192.0.2.10')).status, 404, 'another IP is not limited');
  app.clock.advance(60_000);
  assert.equal((await post('192.0.2.9')).status, 404, 'a new window lets the IP in again');

  const preflight = await app.call('OPTIONS', '/api/event', { key: null });
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  const script = await app.call('GET', '/js/script.js', { key: null });
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /^application\/javascript/);
  for (const part of ['/api/event', 'sendBeacon', 'keepalive', 'pushState', 'popstate', 'window.pa', 'data-dnt', 'doNotTrack']) assert.ok(script.text.includes(part), part);
  assert.doesNotThrow(() => new Function(script.text), 'the script parses');
});

test('deleting a website deletes its statistics, written and buffered', async () => {
  const { call, send, store, id, clock, alice, counters } = await tracked();
  await send({ page: 'https://example.com/a' }, V1);
  const subject = `website:${id}`;
  assert.ok(await eventually(async () => (await allOf(store, 'stats')).filter((r) => r.subject === subject).length === 1), 'the batched write happened');
  clock.set('2026-11-22T10:00:00Z');
  await send({ page: 'https://example.com/b' }, V1);
  const r = await call('DELETE', `/api/v1/websites/${id}`, { key: alice.key });
  assert.equal(r.status, 200);
  assert.deepEqual((await allOf(store, 'stats')).filter((s) => s.subject === subject), []);
  await counters.flush();
  assert.deepEqual((await allOf(store, 'stats')).filter((s) => s.subject === subject), [], 'the buffer did not bring them back');
});

test("deleting a user deletes the user's websites and their statistics", async () => {
  const { call, send, store, alice, counters } = await tracked();
  await send({ page: 'https://example.com/a' }, V1);
  assert.ok(await eventually(async () => (await ownedBy(store, 'stats', alice.id)).length === 1), 'the batched write happened');
  await send({ page: 'https://example.com/b' }, V2);
  const r = await call('DELETE', `/api/user/${alice.id}/delete`);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([(await ownedBy(store, 'websites', alice.id)), (await ownedBy(store, 'stats', alice.id))], [[], []]);
  await counters.flush();
  assert.equal((await store.count('stats')), 0, 'the buffered day was not written back');
});
