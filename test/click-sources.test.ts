import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundledCountryReader } from '../src/geo/bundled-country.ts';
import { Geolocator } from '../src/geo/geolocator.ts';
import { readerOf } from '../src/geo/mmdb.ts';
import { allOf, testApp } from './helpers.ts';
import { buildMmdb, cityRecord } from './mmdb-writer.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const CITY = readerOf(buildMmdb({ networks: [['81.2.69.0/24', cityRecord('GB', 'England', 'London')]] }));

/** An app whose visitors are located by the bundled countries and a City database of London, with a link `/promo` geotargeted to the US. */
async function linked() {
  const app = await testApp({ trustProxy: true }, { geo: new Geolocator({ country: bundledCountryReader(), city: { current: CITY } }) });
  const alice = await app.makeUser('alice');
  const link = await app.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/', custom: 'promo', geotarget: [{ location: 'US', link: 'https://us.example.com/' }] } });
  assert.equal(link.status, 200, link.text);
  const open = async (path: string, ip: string, headers: Record<string, string> = {}) => {
    const r = await app.call('GET', path, { key: null, headers: { 'user-agent': CHROME, 'x-forwarded-for': ip, ...headers } });
    assert.equal(r.status, 302, `${path} ${r.text}`);
    return r.headers.get('location');
  };
  const linkStats = (query: string, key = alice.key) => app.call('GET', `/api/url/${link.body.id}/stats${query}`, { key });
  return { ...app, alice, id: link.body.id as number, open, linkStats };
}

test("link clicks: country from the IP address (targeting too), region and city, sources, and the short URL's own UTM tags", async () => {
  const app = await linked();
  const { open, call, alice, id, linkStats, counters, store } = app;
  assert.equal(await open('/promo', '8.8.8.8'), 'https://us.example.com/', 'geotargeted by the address, no header');
  assert.equal(await open('/promo', '8.8.4.4', { 'cf-ipcountry': 'DE' }), 'https://example.com/', 'the header wins');
  assert.equal(await open('/promo?utm_source=newsletter&utm_medium=email&utm_campaign=launch', '81.2.69.10', { referer: 'https://www.reddit.com/r/x' }), 'https://example.com/');
  assert.equal(await open('/promo?utm_source=fb&utm_content=story', '81.2.69.11'), 'https://example.com/');
  assert.equal(await open('/promo', '192.0.2.1', { referer: 'https://t.co/abc' }), 'https://example.com/');

  const single = await call('GET', `/api/url/${id}`, { key: alice.key });
  assert.equal(single.status, 200);
  const data = single.body.data;
  // The real product's fields, as before (social referrers in socialCount only).
  assert.deepEqual([data.clicks, data.uniqueClicks], [5, 5]);
  assert.deepEqual(data.topCountries, { 'United Kingdom': 2, Germany: 1, 'United States': 1, Unknown: 1 });
  assert.deepEqual(data.topReferrers, { 'Direct, email and other': 3, 'reddit.com': 1 });
  assert.deepEqual(data.socialCount, { facebook: 0, twitter: 1, instagram: 0, linkedin: 0 });
  // Ours: every click by named source (a utm_source names the source of a click without a referrer), regions, cities, UTM tags.
  assert.deepEqual(data.topSources, { 'Direct / None': 2, Facebook: 1, Reddit: 1, 'X/Twitter': 1 });
  assert.deepEqual(data.topRegions, { 'GB:England': 2 });
  assert.deepEqual(data.topCities, { 'GB:London': 2 });
  assert.deepEqual(data.utm, { source: { fb: 1, newsletter: 1 }, medium: { email: 1 }, campaign: { launch: 1 }, term: {}, content: { story: 1 } });
  // The vendor wrapper's twin answers the same.
  assert.deepEqual((await call('POST', '/api/url/stats', { key: alice.key, body: { urlid: id } })).body, single.body);

  const rows = async (query: string) => {
    const r = await linkStats(query);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.error, 0);
    return r.body.data.map((row: { value: string; count: number }) => [row.value, row.count]);
  };
  assert.deepEqual(await rows('?name=source'), [['Direct / None', 2], ['Facebook', 1], ['Reddit', 1], ['X/Twitter', 1]]);
  assert.deepEqual(await rows('?name=utm_source'), [['fb', 1], ['newsletter', 1]]);
  assert.deepEqual(await rows('?name=region'), [['GB:England', 2]]);
  assert.deepEqual(await rows('?name=city&from=2026-11-21&to=2026-11-21'), [['GB:London', 2]]);
  assert.deepEqual(await rows('?name=clicks'), [['2026-11-21', 5]]);
  assert.deepEqual(await rows('?name=unique_clicks&from=2026-11-22'), []);
  // The same rows as CSV, by the query or by Accept; a format of neither kind is refused.
  const csv = await linkStats('?name=source&format=csv');
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  assert.equal(csv.text, 'value,count\r\nDirect / None,2\r\nFacebook,1\r\nReddit,1\r\nX/Twitter,1\r\n');
  assert.equal((await app.call('GET', `/api/url/${id}/stats?name=utm_source`, { key: alice.key, headers: { accept: 'text/csv' } })).text, 'value,count\r\nfb,1\r\nnewsletter,1\r\n');
  const badFormat = await linkStats('?name=source&format=xml');
  assert.deepEqual([badFormat.status, badFormat.body], [400, { error: 1, message: 'Invalid format: it must be json or csv.' }]);

  await counters.flush();
  const day = (await allOf(store, 'stats')).find((r) => r.subject === `link:${id}`)?.counts as Record<string, Record<string, number>>;
  assert.deepEqual([{ ...day.source }, { ...day.utm_campaign }, { ...day.city }], [{ 'Direct / None': 2, Facebook: 1, Reddit: 1, 'X/Twitter': 1 }, { launch: 1 }, { 'GB:London': 2 }]);
});

test('GET /api/url/:id/stats refuses a missing or unknown name and bad days (400), and answers 404 for a link of another user', async () => {
  const { linkStats, makeUser } = await linked();
  const cases: [string, number, string][] = [
    ['', 400, 'Missing required parameter: name'],
    ['?name=bounces', 400, 'Invalid name: it must be one of browser, city, clicks, country, device, language, os, referrer, region, source, unique_clicks, utm_campaign, utm_content, utm_medium, utm_source, utm_term.'],
    ['?name=SOURCE', 400, 'Invalid name'],
    ['?name=source&from=21-11-2026', 400, 'Invalid from: it must be a date as YYYY-MM-DD.'],
    ['?name=source&to=2026-02-30', 400, 'Invalid to: it must be a date as YYYY-MM-DD.'],
    ['?name=source&from=2026-11-22&to=2026-11-21', 400, 'Invalid to: it must be the same day as from or later.'],
  ];
  for (const [query, status, message] of cases) {
    const r = await linkStats(query);
    assert.equal(r.status, status, query);
    assert.equal(r.body.error, 1, query);
    assert.ok(r.body.message.startsWith(message), `${query}: ${r.body.message}`);
  }
  const bob = await makeUser('bob');
  const theirs = await linkStats('?name=source', bob.key);
  assert.deepEqual([theirs.status, theirs.body], [404, { error: 1, message: 'Link does not exist.' }]);
});

test('QR scans: country from the IP address and the UTM tags of the scan URL', async () => {
  const { call, alice } = await linked();
  const qr = await call('POST', '/api/qr/add', { key: alice.key, body: { type: 'link', data: 'https://example.com/menu' } });
  assert.equal(qr.status, 200, qr.text);
  const alias = qr.body.link.split('/').pop();
  const scan = await call('GET', `/qr/${alias}/scan?utm_source=poster&utm_medium=print`, { key: null, headers: { 'user-agent': CHROME, 'x-forwarded-for': '8.8.8.8' } });
  assert.equal(scan.status, 302);
  const data = (await call('GET', `/api/qr/${qr.body.id}`, { key: alice.key })).body.data;
  // QR statistics keep the reference's string counts.
  assert.deepEqual([data.topCountries, data.topSources, data.utm.source, data.utm.medium], [{ 'United States': '1' }, { poster: '1' }, { poster: '1' }, { print: '1' }]);
});
