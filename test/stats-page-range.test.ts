import { test } from 'node:test';
import assert from 'node:assert/strict';
import { previousRange, intervalOf, statsRange } from '../src/analytics/stats-range.ts';
import { chartSeries, headlineOf, percentChange } from '../src/analytics/stats-series.ts';
import { PANELS, chosenTab, eventsPanel, flagOf, shownLabel } from '../src/analytics/stats-panels.ts';
import { csvHref, pageHref, pageQuery } from '../src/analytics/stats-links.ts';
import { realtimeText } from '../src/analytics/realtime-script.ts';
import { propertyLabels } from '../src/analytics/event-properties.ts';
import { emptyCounts, foldInto } from '../src/stats/counts.ts';
import type { DayCounts } from '../src/stats/counts.ts';

const NOW = Date.parse('2026-11-21T10:30:00Z');

test('statsRange: each preset in UTC days; from/to as a custom range; anything else the last 30 days with a notice', () => {
  const cases: [query: Record<string, string>, want: [period: string, from: string, to: string], now?: string][] = [
    [{}, ['30d', '2026-10-23', '2026-11-21']],
    [{ period: 'today' }, ['today', '2026-11-21', '2026-11-21']],
    [{ period: 'yesterday' }, ['yesterday', '2026-11-20', '2026-11-20']],
    [{ period: '7d' }, ['7d', '2026-11-15', '2026-11-21']],
    [{ period: '30d' }, ['30d', '2026-10-23', '2026-11-21']],
    [{ period: 'month' }, ['month', '2026-11-01', '2026-11-21']],
    [{ period: 'last-month' }, ['last-month', '2026-10-01', '2026-10-31']],
    [{ period: '12mo' }, ['12mo', '2025-12-01', '2026-11-21']],
    [{ period: 'today', from: '2026-01-01', to: '2026-01-02' }, ['today', '2026-11-21', '2026-11-21']],
    [{ period: 'custom', from: '2026-01-01', to: '2026-01-31' }, ['custom', '2026-01-01', '2026-01-31']],
    [{ from: '2026-01-01', to: '2026-01-31' }, ['custom', '2026-01-01', '2026-01-31']],
    [{ from: '2025-01-01', to: '2026-01-01' }, ['custom', '2025-01-01', '2026-01-01']],
    // Around a year's end and a short February, late in the UTC day (a later day elsewhere).
    [{ period: 'last-month' }, ['last-month', '2026-02-01', '2026-02-28'], '2026-03-01T23:59:59Z'],
    [{ period: '12mo' }, ['12mo', '2025-04-01', '2026-03-01'], '2026-03-01T23:59:59Z'],
    [{ period: 'month' }, ['month', '2027-01-01', '2027-01-01'], '2027-01-01T00:00:00Z'],
    [{ period: 'yesterday' }, ['yesterday', '2026-12-31', '2026-12-31'], '2027-01-01T00:00:00Z'],
  ];
  for (const [query, [period, from, to], now] of cases) {
    const r = statsRange(query, now ? Date.parse(now) : NOW);
    assert.deepEqual(r, { period, from, to }, `${JSON.stringify(query)} at ${now ?? 'NOW'}`);
  }
  const invalid: Record<string, string>[] = [
    { from: '2026-02-30', to: '2026-03-01' },
    { from: '2026-03-02', to: '2026-03-01' },
    { from: '2025-01-01', to: '2026-01-02' },
    { from: '2026-01-01' },
    { period: 'custom' },
    { period: 'custom', from: 'yesterday', to: '2026-01-01' },
  ];
  for (const q of invalid) {
    const r = statsRange(q, NOW);
    assert.deepEqual([r.period, r.from, r.to], ['30d', '2026-10-23', '2026-11-21'], JSON.stringify(q));
    assert.match(r.notice ?? '', /Invalid date range/, JSON.stringify(q));
  }
  const unknown = statsRange({ period: 'week' }, NOW);
  assert.deepEqual([unknown.period, unknown.from], ['30d', '2026-10-23']);
  assert.match(unknown.notice ?? '', /Unknown period/);
});

test('previousRange: the same days of the months before for ranges from a 1st, else as many days right before', () => {
  const cases: [from: string, to: string, want: [string, string]][] = [
    ['2026-11-21', '2026-11-21', ['2026-11-20', '2026-11-20']],
    ['2026-11-15', '2026-11-21', ['2026-11-08', '2026-11-14']],
    ['2026-10-23', '2026-11-21', ['2026-09-23', '2026-10-22']],
    ['2026-11-01', '2026-11-21', ['2026-10-01', '2026-10-21']],
    ['2026-10-01', '2026-10-31', ['2026-09-01', '2026-09-30']],
    ['2026-03-01', '2026-03-31', ['2026-02-01', '2026-02-28']],
    ['2024-03-01', '2024-03-30', ['2024-02-01', '2024-02-29']],
    ['2025-12-01', '2026-11-21', ['2024-12-01', '2025-11-21']],
    ['2026-01-01', '2026-01-01', ['2025-12-01', '2025-12-01']],
    ['2026-01-05', '2026-01-06', ['2026-01-03', '2026-01-04']],
  ];
  for (const [from, to, [pf, pt]] of cases) assert.deepEqual(previousRange({ from, to }), { from: pf, to: pt }, `${from}..${to}`);
});

test('intervalOf: one day by hour, up to 92 days by day, longer by month', () => {
  assert.equal(intervalOf({ from: '2026-11-21', to: '2026-11-21' }), 'hour');
  assert.equal(intervalOf({ from: '2026-11-20', to: '2026-11-21' }), 'day');
  assert.equal(intervalOf({ from: '2026-08-22', to: '2026-11-21' }), 'day', '92 days');
  assert.equal(intervalOf({ from: '2026-08-21', to: '2026-11-21' }), 'month', '93 days');
});

const day = (d: string, ...tallies: Parameters<typeof foldInto>[1][]): { day: string; counts: DayCounts } => {
  const counts = emptyCounts();
  for (const t of tallies) foldInto(counts, t);
  return { day: d, counts };
};
const views = (n: number, hour: string, newVisitor = true) => Array.from({ length: n }, (_, i) => ({ add: { pageviews: 1, visitors: newVisitor && i === 0 ? 1 : 0 }, labels: { pageviews_hour: hour, visitors_hour: newVisitor && i === 0 ? hour : null } }));

test('chartSeries: a day by hour (today up to this hour), a day whose hours are gone as its total, long ranges by month', () => {
  const days = [day('2026-11-20', ...views(3, '08'), ...views(2, '23')), day('2026-11-21', ...views(4, '00'), ...views(1, '10'))];
  const yesterday = chartSeries(days, { from: '2026-11-20', to: '2026-11-20' }, NOW);
  assert.equal(yesterday.interval, 'hour');
  assert.equal(yesterday.labels.length, 24);
  assert.deepEqual([yesterday.labels[0], yesterday.labels[23]], ['00:00', '23:00']);
  assert.deepEqual([yesterday.pageviews[8], yesterday.pageviews[23], yesterday.visitors[8], yesterday.visitors[23]], [3, 2, 1, 1]);
  assert.equal(yesterday.pageviews.reduce((a, b) => a + b, 0), 5);
  const today = chartSeries(days, { from: '2026-11-21', to: '2026-11-21' }, NOW);
  assert.deepEqual(today.labels, Array.from({ length: 11 }, (_, h) => `${String(h).padStart(2, '0')}:00`), 'up to 10:00, the hour of now');
  assert.deepEqual([today.pageviews[0], today.pageviews[10]], [4, 1]);
  const empty = chartSeries([], { from: '2026-11-19', to: '2026-11-19' }, NOW);
  assert.deepEqual([empty.interval, empty.labels.length, empty.hoursGone], ['hour', 24, undefined], 'a day without visits is 24 zero hours');
  const thinned = chartSeries([day('2026-01-10', { add: { pageviews: 7, visitors: 2 } })], { from: '2026-01-10', to: '2026-01-10' }, NOW);
  assert.deepEqual(thinned, { interval: 'day', labels: ['2026-01-10'], pageviews: [7], visitors: [2], hoursGone: true });

  const daily = chartSeries(days, { from: '2026-11-19', to: '2026-11-21' }, NOW);
  assert.deepEqual(daily, { interval: 'day', labels: ['2026-11-19', '2026-11-20', '2026-11-21'], pageviews: [0, 5, 5], visitors: [0, 2, 2] });
  const monthly = chartSeries([day('2025-12-31', ...views(2, '01')), day('2026-01-01', ...views(1, '01')), day('2026-01-31', ...views(3, '02')), ...days], { from: '2025-12-01', to: '2026-11-21' }, NOW);
  assert.equal(monthly.interval, 'month');
  assert.deepEqual(monthly.labels, ['Dec 2025', 'Jan 2026', 'Feb 2026', 'Mar 2026', 'Apr 2026', 'May 2026', 'Jun 2026', 'Jul 2026', 'Aug 2026', 'Sep 2026', 'Oct 2026', 'Nov 2026']);
  assert.deepEqual(monthly.pageviews, [2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10]);
  assert.deepEqual(monthly.visitors, [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]);
});

test('headlineOf and percentChange: visitors, pageviews, views per visit, and a change only where there was something before', () => {
  assert.deepEqual(headlineOf([day('2026-11-20', ...views(3, '08')), day('2026-11-21', ...views(4, '09'))]), { visitors: 2, pageviews: 7, viewsPerVisit: 3.5 });
  assert.deepEqual(headlineOf([day('2026-11-20', { add: { pageviews: 2, visitors: 3 } })]), { visitors: 3, pageviews: 2, viewsPerVisit: 0.67 });
  assert.deepEqual(headlineOf([]), { visitors: 0, pageviews: 0, viewsPerVisit: null });
  const cases: [now: number | null, before: number | null, want: number | null][] = [
    [150, 100, 50],
    [50, 100, -50],
    [100, 100, 0],
    [1, 3, -67],
    [5, 0, null],
    [0, 0, null],
    [null, 2, null],
    [2, null, null],
  ];
  for (const [now, before, want] of cases) assert.equal(percentChange(now, before), want, `${now} on ${before}`);
});

test('panels: tabs picked by their stats name (else the first), flags from the code, location labels by name', () => {
  const locations = PANELS.find((p) => p.param === 'locations')!;
  assert.equal(chosenTab(locations, 'city').metric, 'city');
  assert.equal(chosenTab(locations, 'browser').metric, 'country', 'a name of another panel is not a tab of this one');
  assert.equal(chosenTab(locations, undefined).metric, 'country');
  assert.deepEqual(PANELS.map((p) => p.tabs.map((t) => t.metric)), [['page', 'landing_page'], ['source', 'referrer'], ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'], ['country', 'region', 'city'], ['browser', 'os', 'device']]);
  assert.equal(flagOf('US'), '\u{1F1FA}\u{1F1F8}');
  assert.equal(flagOf('DE'), '\u{1F1E9}\u{1F1EA}');
  for (const bad of ['us', 'USA', '', 'U1']) assert.equal(flagOf(bad), '', bad);
  assert.deepEqual(shownLabel('country', 'US:United States'), { flag: '\u{1F1FA}\u{1F1F8}', text: 'United States' });
  assert.deepEqual(shownLabel('city', 'FR:Saint-Denis: Nord'), { flag: '\u{1F1EB}\u{1F1F7}', text: 'Saint-Denis: Nord' });
  assert.deepEqual(shownLabel('country', 'Unknown'), { flag: '', text: 'Unknown' });
  assert.deepEqual(shownLabel('page', 'US:United States'), { flag: '', text: 'US:United States' }, 'only locations');
});

test('eventsPanel: events, then one event\'s properties, then one property\'s values', () => {
  const tally = (name: string, properties: Record<string, string>) => ({ labels: { event: name, ...propertyLabels(name, properties) } });
  const days = [day('2026-11-21', tally('Signup', { plan: 'pro' }), tally('Signup', { plan: 'free', ref: 'x' }), tally('Signup', { plan: 'pro' }), tally('Click', {}))];
  assert.deepEqual(eventsPanel(days, undefined, undefined), { rows: [{ value: 'Signup', count: 3 }, { value: 'Click', count: 1 }], label: 'Event' });
  assert.deepEqual(eventsPanel(days, 'Signup', undefined), { event: 'Signup', rows: [{ value: 'plan', count: 3 }, { value: 'ref', count: 1 }], label: 'Property' });
  assert.deepEqual(eventsPanel(days, 'Signup', 'plan'), { event: 'Signup', property: 'plan', rows: [{ value: 'pro', count: 2 }, { value: 'free', count: 1 }], label: 'plan' });
  assert.deepEqual(eventsPanel(days, 'Nope', undefined).rows, []);
});

test('links keep the page\'s own parameters only; CSV links name the range; the realtime line has its separators', () => {
  const query = pageQuery({ period: '7d', devices: 'os', junk: '<x>', event: '', utm: 'utm_term' });
  assert.deepEqual(query, { period: '7d', utm: 'utm_term', devices: 'os' });
  assert.equal(pageHref('example.com', query, { devices: 'browser' }), '/stats/example.com?period=7d&utm=utm_term&devices=browser');
  assert.equal(pageHref('example.com', { event: 'a&b', property: 'p' }, { property: undefined }), '/stats/example.com?event=a%26b');
  assert.equal(csvHref('example.com', 'event_property', { from: '2026-11-01', to: '2026-11-21' }, { event: 'Sign up' }), '/stats/example.com/csv?name=event_property&from=2026-11-01&to=2026-11-21&event=Sign+up');
  assert.deepEqual([realtimeText(0), realtimeText(1), realtimeText(12_345)], ['0 visitors in the last 5 minutes', '1 visitor in the last 5 minutes', '12,345 visitors in the last 5 minutes']);
});
