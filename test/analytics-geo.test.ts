import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundledCountryReader } from '../src/geo/bundled-country.ts';
import { Geolocator } from '../src/geo/geolocator.ts';
import { readerOf } from '../src/geo/mmdb.ts';
import type { AppParts } from '../src/app.ts';
import { fixedClock } from '../src/clock.ts';
import type { Config } from '../src/config.ts';
import { seededRandom } from '../src/random.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { allOf, openTestStore, testApp } from './helpers.ts';
import { buildMmdb, cityRecord } from './mmdb-writer.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** A City database of two networks, made here: London (IPv4) and Berlin (IPv6). */
export const CITY = readerOf(
  buildMmdb({
    networks: [
      ['81.2.69.0/24', cityRecord('GB', 'England', 'London')],
      ['2a02:db8::/32', cityRecord('DE', 'Berlin', 'Berlin')],
    ],
  }),
);

/** A tracked example.com, events from any address (TRUST_PROXY), rows of one day. */
async function tracked(config: Partial<Config> = {}, parts: Partial<AppParts> = {}) {
  const app = await testApp({ trustProxy: true, eventRateLimit: 0, ...config }, parts);
  const site = await app.call('POST', '/api/v1/websites', { body: { domain: 'example.com' } });
  assert.equal(site.status, 201, site.text);
  const id = site.body.data.id as number;
  const send = async (ip: string, page: string, extra: { referrer?: string; headers?: Record<string, string> } = {}) => {
    const r = await app.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page, referrer: extra.referrer }), headers: { 'user-agent': CHROME, 'x-forwarded-for': ip, ...extra.headers } });
    assert.deepEqual([r.status, r.text], [202, ''], `${ip} ${page}`);
  };
  const rows = async (name: string) => {
    const r = await app.call('GET', `/api/v1/stats/${id}?name=${name}&from=2026-11-21&to=2026-11-21`);
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((row: { value: string; count: number }) => [row.value, row.count]);
  };
  /** The website's day as stored, after the buffered counts were written. */
  const stored = async () => {
    await app.counters.flush();
    return (await allOf(app.store, 'stats')).find((r) => r.subject === `website:${id}`)?.counts as Record<string, Record<string, number>> | undefined;
  };
  return { ...app, id, send, rows, stored };
}

test('a visitor without a country header gets the country of the IP address (bundled database); the header wins when it names a country', async () => {
  const { send, rows, stored } = await tracked();
  await send('8.8.8.8', 'https://example.com/');
  await send('2a00:1450:4001::1', 'https://example.com/', { headers: { 'cf-ipcountry': 'fr' } });
  // Cloudflare's XX (unknown) names no country: the database answers.
  await send('81.2.69.142', 'https://example.com/', { headers: { 'cf-ipcountry': 'XX' } });
  await send('192.0.2.1', 'https://example.com/');
  const countries = [['FR:France', 1], ['GB:United Kingdom', 1], ['US:United States', 1], ['Unknown', 1]];
  assert.deepEqual(await rows('country'), countries);
  assert.deepEqual(await rows('continent'), [['EU:Europe', 2], ['NA:North America', 1], ['Unknown', 1]]);
  assert.deepEqual(Object.entries((await stored())?.country ?? {}).sort(), countries.sort());
});

test('GEOIP=off: the country header only', async () => {
  const { send, rows } = await tracked({ geoip: false });
  await send('8.8.8.8', 'https://example.com/');
  await send('8.8.4.4', 'https://example.com/', { headers: { 'cf-ipcountry': 'DE' } });
  assert.deepEqual(await rows('country'), [['DE:Germany', 1], ['Unknown', 1]]);
});

test('a City database gives region and city; a header that names another country keeps its country, without region or city', async () => {
  const geo = new Geolocator({ country: bundledCountryReader(), city: { current: CITY } });
  const { send, rows, stored } = await tracked({}, { geo });
  await send('81.2.69.10', 'https://example.com/');
  await send('2a02:db8::7', 'https://example.com/', { headers: { 'cf-ipcountry': 'DE' } });
  await send('81.2.69.11', 'https://example.com/', { headers: { 'cf-ipcountry': 'FR' } });
  await send('8.8.8.8', 'https://example.com/');
  assert.deepEqual(await rows('country'), [['DE:Germany', 1], ['FR:France', 1], ['GB:United Kingdom', 1], ['US:United States', 1]]);
  assert.deepEqual(await rows('region'), [['DE:Berlin', 1], ['GB:England', 1]]);
  assert.deepEqual(await rows('city'), [['DE:Berlin', 1], ['GB:London', 1]]);
  const day = await stored();
  assert.deepEqual([{ ...day?.region }, { ...day?.city }], [{ 'GB:England': 1, 'DE:Berlin': 1 }, { 'GB:London': 1, 'DE:Berlin': 1 }]);
});

test('UTM tags of the landing page and referrers grouped by named source; the raw referrer host is kept', async () => {
  const { send, rows, stored } = await tracked();
  const visits: [string, string, string?][] = [
    ['https://example.com/?utm_source=newsletter&utm_medium=email&utm_campaign=fall&utm_term=red+shoes&utm_content=banner', ''],
    ['https://example.com/?utm_source=fb', ''],
    ['https://example.com/pricing', 'https://l.facebook.com/l.php?u=x'],
    ['https://example.com/?utm_source=ads', 'https://www.google.de/'],
    ['https://example.com/', 'https://blog.example.net/post'],
    ['https://example.com/', 'https://example.com/other'],
    ['https://example.com/', 'android-app://com.google.android.gm/'],
  ];
  for (const [i, [page, referrer]] of visits.entries()) await send(`192.0.2.${i + 1}`, page, { referrer });
  // A second pageview of the first visitor, from another campaign: breakdowns count once per visitor and day.
  await send('192.0.2.1', 'https://example.com/?utm_source=other', { referrer: 'https://www.bing.com/' });
  const want: Record<string, [string, number][]> = {
    source: [['Facebook', 2], ['Direct / None', 1], ['Gmail', 1], ['Google', 1], ['blog.example.net', 1], ['newsletter', 1]],
    referrer: [['Direct, email and other', 4], ['blog.example.net', 1], ['google.de', 1], ['l.facebook.com', 1]],
    utm_source: [['ads', 1], ['fb', 1], ['newsletter', 1]],
    utm_medium: [['email', 1]],
    utm_campaign: [['fall', 1]],
    campaign: [['fall', 1]],
    utm_term: [['red shoes', 1]],
    utm_content: [['banner', 1]],
    page: [['/', 7], ['/pricing', 1]],
  };
  for (const [name, rowsWanted] of Object.entries(want)) assert.deepEqual(await rows(name), rowsWanted, name);
  const day = await stored();
  assert.deepEqual({ ...day?.utm_source }, { newsletter: 1, fb: 1, ads: 1 });
  assert.equal(day?.source?.Facebook, 2);
});

test('UTM and source labels are bounded per day like every label: past maxLabels they count as (other)', async () => {
  const store = await openTestStore();
  const counters = new DailyCounters(store, { clock: fixedClock('2026-11-21T10:00:00Z'), random: seededRandom(1), maxLabels: 2 });
  const { send, rows } = await tracked({}, { store, counters });
  for (const [i, tag] of ['a', 'b', 'c', 'd'].entries()) await send(`192.0.2.${i + 1}`, `https://example.com/?utm_source=${tag}&utm_term=${tag}`);
  assert.deepEqual(await rows('utm_source'), [['(other)', 2], ['a', 1], ['b', 1]]);
  assert.deepEqual(await rows('utm_term'), [['(other)', 2], ['a', 1], ['b', 1]]);
  assert.deepEqual(await rows('source'), [['(other)', 2], ['a', 1], ['b', 1]]);
});
