import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as v from 'valibot';
import { escapeHtml, lineChart, yTicks } from '../src/analytics/chart.ts';
import { continentLabel } from '../src/analytics/continents.ts';
import { booleanField, choiceField } from '../src/analytics/form-fields.ts';
import { laravelPage } from '../src/analytics/list-page.ts';
import { metricRows, topLabels, topRows } from '../src/analytics/metrics.ts';
import { PageAccess } from '../src/analytics/page-access.ts';
import { customEventTally, pageviewTally, resolutionLabel } from '../src/analytics/visit-tally.ts';
import type { Website } from '../src/analytics/websites.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { mergeCounts, mergeCountsInTurns } from '../src/stats/counts.ts';
import type { DayCounts } from '../src/stats/counts.ts';
import { Turns } from '../src/turns.ts';
import { prng } from './seeded-prng.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const rules = { domain: 'example.com', exclude_params: 'fbclid' };
const headers = { userAgent: CHROME, acceptLanguage: 'fr-CA,fr;q=0.9', place: { country: 'CA', region: 'Quebec', city: 'Montreal' } };

test('pageviewTally: every pageview counts the page and hour; the visit breakdowns only on a first visit', async (t) => {
  const event = { page: 'https://example.com/p?fbclid=1&utm_campaign=fall&k=v&utm_source=ads&UTM_MEDIUM=cpc&utm_term=+red%20shoes+&utm_content=&utm_source=second', referrer: 'https://www.reddit.com/r/x', screen_resolution: '1280x800' };
  const cases = [
    {
      name: 'a new visitor',
      seen: { newToday: true, newThisHour: true },
      want: {
        add: { pageviews: 1, visitors: 1 },
        labels: { page: '/p?k=v', pageviews_hour: '14', visitors_hour: '14', landing_page: '/p?k=v', referrer: 'reddit.com', source: 'Reddit', browser: 'Chrome', os: 'Windows', device: 'Desktop', country: 'CA:Canada', continent: 'NA:North America', region: 'CA:Quebec', city: 'CA:Montreal', language: 'fr', resolution: '1280x800', campaign: 'fall', utm_source: 'ads', utm_medium: 'cpc', utm_campaign: 'fall', utm_term: 'red shoes', utm_content: null },
      },
    },
    { name: 'back in a new hour', seen: { newToday: false, newThisHour: true }, want: { add: { pageviews: 1, visitors: 0 }, labels: { page: '/p?k=v', pageviews_hour: '14', visitors_hour: '14' } } },
    { name: 'again in the same hour', seen: { newToday: false, newThisHour: false }, want: { add: { pageviews: 1, visitors: 0 }, labels: { page: '/p?k=v', pageviews_hour: '14', visitors_hour: null } } },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(pageviewTally(event, rules, headers, '14', c.seen), c.want));
  await t.test('nothing known about the visitor', () => {
    const tally = pageviewTally({ page: 'https://example.com' }, rules, { userAgent: undefined, acceptLanguage: undefined, place: { country: null, region: null, city: null } }, '00', { newToday: true, newThisHour: true });
    assert.deepEqual(tally.labels, { page: '/', pageviews_hour: '00', visitors_hour: '00', landing_page: '/', referrer: 'Direct, email and other', source: 'Direct / None', browser: 'Unknown', os: 'Unknown', device: 'Unknown', country: 'Unknown', continent: 'Unknown', region: null, city: null, language: 'Unknown', resolution: 'Unknown', campaign: null, utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null });
  });
  await t.test('long values are clipped', () => {
    const tally = pageviewTally({ page: `https://example.com/${'x'.repeat(2000)}` }, rules, headers, '01', { newToday: false, newThisHour: false });
    assert.equal(tally.labels?.page?.length, 512);
  });
  assert.deepEqual(customEventTally({ name: 'signup', value: 3, unit: 'eur' }), { labels: { event: 'signup' } });
});

test('resolutionLabel and continentLabel', () => {
  const res: [string | undefined | null, string][] = [['1920x1080', '1920x1080'], [' 390 X 844 ', '390x844'], ['0800x600', '800x600'], ['big', 'Unknown'], ['1x1', 'Unknown'], [undefined, 'Unknown'], [null, 'Unknown']];
  for (const [input, want] of res) assert.equal(resolutionLabel(input), want, String(input));
  const cont: [string | undefined, string][] = [['de', 'EU:Europe'], ['JP', 'AS:Asia'], ['BR', 'SA:South America'], ['NZ', 'OC:Oceania'], ['EG', 'AF:Africa'], ['AQ', 'AN:Antarctica'], ['US', 'NA:North America'], ['XX', 'Unknown'], [undefined, 'Unknown']];
  for (const [input, want] of cont) assert.equal(continentLabel(input), want, String(input));
});

test('metricRows: per day for pageviews and visitors, summed labels otherwise, none for city', () => {
  const days: { day: string; counts: DayCounts }[] = [
    { day: '2026-11-20', counts: { pageviews: 3, visitors: 0, page: { '/': 2, '/a': 1 } } },
    { day: '2026-11-21', counts: { pageviews: 1, visitors: 1, page: { '/': 1 } } },
  ];
  assert.deepEqual(metricRows(days, 'pageviews'), [{ value: '2026-11-20', count: 3 }, { value: '2026-11-21', count: 1 }]);
  assert.deepEqual(metricRows(days, 'visitors'), [{ value: '2026-11-21', count: 1 }]);
  assert.deepEqual(topRows(metricRows(days, 'page'), 1), [{ value: '/', count: 3 }]);
  assert.deepEqual(metricRows(days, 'city'), []);
  assert.deepEqual(metricRows(days, 'browser'), []);
});

test('laravelPage: meta and links for first, middle, last and past pages', () => {
  const items = Array.from({ length: 25 }, (_, i) => i + 1);
  const path = 'http://h/api/v1/x';
  const mid = laravelPage(items, 2, 10, path, { search: 'a b' });
  assert.deepEqual(mid.data, [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  assert.deepEqual(mid.links, { first: `${path}?search=a+b&page=1`, last: `${path}?search=a+b&page=3`, prev: `${path}?search=a+b&page=1`, next: `${path}?search=a+b&page=3` });
  assert.deepEqual(mid.meta, { current_page: 2, from: 11, last_page: 3, path, per_page: 10, to: 20, total: 25 });
  const last = laravelPage(items, 3, 10, path, {});
  assert.deepEqual([last.meta.from, last.meta.to, last.links.next], [21, 25, null]);
  const empty = laravelPage([], 1, 50, path, {});
  assert.deepEqual([empty.meta.last_page, empty.meta.from, empty.meta.to, empty.links.last], [1, null, null, `${path}?page=1`]);
});

test('form fields: integers and booleans from strings, numbers and booleans', () => {
  const privacy = choiceField('privacy', [0, 1, 2]);
  const cases: [unknown, number | null][] = [['0', 0], ['2', 2], [' 1 ', 1], [1, 1], [true, 1], ['true', 1], ['false', 0], ['3', null], ['1.0', null], ['', null], [null, null], [[1], null]];
  for (const [input, want] of cases) {
    const r = v.safeParse(privacy, input);
    assert.equal(r.success ? r.output : null, want, JSON.stringify(input));
  }
  const favorite = booleanField('favorite');
  assert.deepEqual(['1', '0', 'TRUE', false, 1].map((x) => v.parse(favorite, x)), [true, false, true, false, true]);
  assert.equal(v.safeParse(favorite, 'yes').success, false);
});

test('escapeHtml and the chart escape every label', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  const svg = lineChart(['<d1>', 'd2'], [{ name: 'views', color: '#000', values: [0, 7] }], 'T <x>');
  assert.ok(svg.startsWith('<svg') && svg.endsWith('</svg>'));
  assert.ok(!svg.includes('<d1>') && !svg.includes('<x>'));
  assert.ok(svg.includes('&#60;d1&#62;: 0 views'));
  assert.equal((svg.match(/<circle/g) ?? []).length, 2);
});

test('yTicks: round steps (1, 2 or 5 × 10^n), at most 5 intervals, the top at or above the largest value', () => {
  const cases: [number, number[]][] = [
    [0, [0, 1, 2, 3, 4]],
    [3, [0, 1, 2, 3, 4]],
    [37, [0, 10, 20, 30, 40]],
    [50, [0, 20, 40, 60]],
    [41, [0, 20, 40, 60]],
    [7, [0, 2, 4, 6, 8]],
    [1234, [0, 500, 1000, 1500]],
  ];
  for (const [max, ticks] of cases) assert.deepEqual(yTicks(max), ticks, String(max));
  const svg = lineChart(['a', 'b'], [{ name: 'v', color: '#000', values: [13, 50] }], 't');
  assert.deepEqual([...svg.matchAll(/text-anchor="end">(\d+)</g)].map((m) => Number(m[1])), [0, 20, 40, 60], 'the chart labels its grid with them');
});

test('PageAccess: cookies are bound to website, grant, expiry, key hash and password hash', async () => {
  const access = new PageAccess(new Uint8Array(32).fill(7));
  const other = new PageAccess(new Uint8Array(32).fill(8));
  const site = { id: 3, userId: 1, privacy: 2, password: 'scrypt$a' } as unknown as Website;
  const owner = { id: 1, keyHash: 'aa' } as UserRecord;
  const users = (u: UserRecord | undefined) => async () => u;
  const now = Date.parse('2026-11-21T10:00:00Z');
  const ownerCookie = access.issue('owner', site, now, owner);
  assert.equal(await access.check(ownerCookie, site, now, users(owner)), 'owner');
  assert.equal(await other.check(ownerCookie, site, now, users(owner)), null, 'another process secret');
  assert.equal(await access.check(ownerCookie, { ...site, id: 4 } as Website, now, users(owner)), null);
  assert.equal(await access.check(ownerCookie, site, now, users({ ...owner, keyHash: 'bb' })), null);
  assert.equal(await access.check(ownerCookie, site, now + 86_400_000, users(owner)), null);
  assert.equal(await access.check(ownerCookie.replace('owner.', 'password.'), site, now, users(owner)), null);
  const pw = access.issue('password', site, now);
  assert.equal(await access.check(pw, site, now, users(undefined)), 'password');
  assert.equal(await access.check(pw, { ...site, password: 'scrypt$b' } as Website, now, users(undefined)), null);
  assert.equal(await access.check(pw, { ...site, privacy: 1 } as Website, now, users(undefined)), null);
  for (const junk of [undefined, '', 'owner', 'owner.1.2.x', `${pw}x`]) assert.equal(await access.check(junk, site, now, users(owner)), null);
});

test('topRows keeps the n largest in order (count descending, ties by value) whether it sorts all or passes once', () => {
  const random = prng(7);
  for (const size of [0, 5, 40, 1000]) {
    const rows = Array.from({ length: size }, (_, i) => ({ value: `v${random.int(0, size)}-${i % 3}`, count: random.int(1, 20) }));
    const sorted = [...rows].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    for (const n of [1, 3, 10, size]) assert.deepEqual(topRows(rows, n), sorted.slice(0, n), `${n} of ${size}`);
    // The same from a label map (distinct values: the map keeps the last count of a value).
    const labels: Record<string, number> = Object.create(null);
    for (const r of rows) labels[r.value] = r.count;
    const fromMap = Object.entries(labels).map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    for (const n of [0, 1, 3, 10, size]) assert.deepEqual(topLabels(labels, n), fromMap.slice(0, n), `labels: ${n} of ${size}`);
  }
});

test('mergeCountsInTurns sums as mergeCounts does and gives the event loop turns between days', async () => {
  const days: DayCounts[] = Array.from({ length: 12 }, (_, i) => ({ pageviews: i, page: Object.assign(Object.create(null), { '/': 1, [`/p${i % 4}`]: i, ['__proto__']: 2 }) }) as DayCounts);
  const next = Turns.prototype.next;
  let turns = 0;
  Turns.prototype.next = function (this: Turns) {
    turns++;
    return next.call(this);
  };
  try {
    assert.deepEqual(await mergeCountsInTurns(days, new Turns(0)), mergeCounts(days));
  } finally {
    Turns.prototype.next = next;
  }
  assert.equal(turns, 12, 'a turn before each day');
});
