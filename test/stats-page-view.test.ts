import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from './helpers.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const DAY = 86_400_000;

/** A public website with visits sent as the tracking script sends them. */
async function site() {
  const app = await testApp({ trustProxy: true, analyticsRateLimit: 0, rateLimit: 0 });
  const alice = await app.makeUser('alice');
  const made = await app.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'shop.example.com' } });
  assert.equal(made.status, 201, made.text);
  const id = made.body.data.id as number;
  const visit = async (ip: string, page: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const r = await app.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://shop.example.com${page}`, ...extra }), headers: { 'x-forwarded-for': ip, 'user-agent': FIREFOX, ...headers } });
    assert.equal(r.status, 202, r.text);
  };
  const page = (query = '') => app.call('GET', `/stats/shop.example.com${query}`, { key: null });
  // Counts of another day, as the counters keep them (the events route counts today only).
  const record = (at: string, pageviews: number, visitors: number, labels: Record<string, string> = {}) =>
    app.counters.record(`website:${id}`, { add: { pageviews, visitors }, labels }, { owner: alice.id, at: Date.parse(at) });
  return { ...app, alice, id, visit, page, record };
}

/** The text of the page between two markers (a section), for looking inside one panel. */
function section(html: string, heading: string): string {
  const at = html.indexOf(`>${heading}</h2>`);
  assert.ok(at >= 0, `a panel headed ${heading}`);
  return html.slice(at, html.indexOf('</section>', at));
}

test('presets change the range, as links that need no script, and the custom form keeps the tabs', async () => {
  const { page, record, counters } = await site();
  record('2026-11-21T09:00:00Z', 5, 2);
  record('2026-11-10T09:00:00Z', 7, 3);
  record('2026-10-15T09:00:00Z', 11, 4);
  await counters.flush();
  const figures = (html: string) => [...html.matchAll(/<span class="name">([^<]+)<\/span><b>([^<]+)<\/b>/g)].map((m) => `${m[1]}=${m[2]}`);
  const cases: [query: string, current: string, from: string, to: string, pageviews: string][] = [
    ['', 'Last 30 days', '2026-10-23', '2026-11-21', '12'],
    ['?period=today', 'Today', '2026-11-21', '2026-11-21', '5'],
    ['?period=yesterday', 'Yesterday', '2026-11-20', '2026-11-20', '0'],
    ['?period=7d', 'Last 7 days', '2026-11-15', '2026-11-21', '5'],
    ['?period=month', 'This month', '2026-11-01', '2026-11-21', '12'],
    ['?period=last-month', 'Last month', '2026-10-01', '2026-10-31', '11'],
    ['?period=12mo', 'Last 12 months', '2025-12-01', '2026-11-21', '23'],
    ['?period=custom&from=2026-11-10&to=2026-11-10', '', '2026-11-10', '2026-11-10', '7'],
  ];
  for (const [query, current, from, to, pageviews] of cases) {
    const r = await page(query);
    assert.equal(r.status, 200, query);
    assert.ok(r.text.includes(`name="from" value="${from}"`) && r.text.includes(`name="to" value="${to}"`), `${query}: the form shows ${from} to ${to}`);
    const marked = [...r.text.matchAll(/<a href="[^"]*" aria-current="page">([^<]+)<\/a>/g)].map((m) => m[1]);
    assert.deepEqual(marked, current ? [current] : [], `${query}: the preset marked`);
    assert.ok(figures(r.text).includes(`Pageviews=${pageviews}`), `${query}: ${figures(r.text).join(', ')}`);
  }
  const home = await page('?locations=city&period=7d');
  for (const [period, name] of [['today', 'Today'], ['12mo', 'Last 12 months']]) {
    assert.ok(home.text.includes(`<a href="/stats/shop.example.com?locations=city&#38;period=${period}">${name}</a>`), `${name}: a plain link, keeping the tab`);
  }
  assert.ok(home.text.includes('<form method="get" action="/stats/shop.example.com"><input type="hidden" name="period" value="custom"><input type="hidden" name="locations" value="city">'), 'the custom range form keeps the tab');
  assert.match(home.text, /Days are UTC days/);
  const bad = await page('?period=fortnight');
  assert.equal(bad.status, 200);
  assert.match(bad.text, /Unknown period: showing the last 30 days/);
});

test('one day gets an hourly chart with its table; long ranges a monthly one; a day whose hours are gone says so', async () => {
  const { page, visit, record, counters, clock, config } = await site();
  await visit('192.0.2.1', '/');
  await visit('192.0.2.1', '/a');
  clock.advance(-3 * 3_600_000);
  await visit('192.0.2.2', '/');
  clock.advance(3 * 3_600_000);
  record('2025-01-10T09:00:00Z', 9, 4);
  await counters.flush();
  const today = await page('?period=today');
  assert.match(today.text, /Pageviews and visitors of shop\.example\.com per hour/);
  assert.ok(today.text.includes('<title>07:00: 1 pageviews</title>') && today.text.includes('<title>10:00: 2 pageviews</title>'), 'a point per hour, with its count');
  assert.ok(!today.text.includes('11:00'), 'hours to come are not drawn as zeros');
  const table = /<details><summary>The chart as a table<\/summary><table><thead><tr><th>Hour \(UTC\)<\/th><th class="n">Pageviews<\/th><th class="n">Visitors<\/th><\/tr><\/thead><tbody>(.*?)<\/tbody>/.exec(today.text);
  assert.ok(table, 'a table of the chart');
  const rows = [...table[1]!.matchAll(/<tr><td>([^<]+)<\/td><td class="n">(\d+)<\/td><td class="n">(\d+)<\/td><\/tr>/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  assert.equal(rows.length, 11);
  assert.deepEqual([rows[7], rows[10]], ['07:00 1 1', '10:00 2 1']);
  assert.match(today.text, /<svg [^>]*role="img" aria-label="Pageviews and visitors of shop\.example\.com per hour"[^>]*><title>[^<]+<\/title><desc>3 pageviews and 2 visitors from 00:00 to 10:00; at most 2 pageviews in one hour\.<\/desc>/);

  const year = await page('?period=12mo');
  assert.match(year.text, /per month/);
  assert.ok(year.text.includes('<th>Month</th>') && year.text.includes('<td>Dec 2025</td>') && year.text.includes('<td>Nov 2026</td>'));
  const month = await page('?period=month');
  assert.ok(month.text.includes('<th>Day</th>') && month.text.includes('<td>2026-11-01</td>'));

  const old = await page('?from=2025-01-10&to=2025-01-10');
  assert.ok(old.text.includes(`This day has no hourly detail (hourly detail is kept for the last ${config.statsHourlyDays} days)`), 'the hours of a day past STATS_HOURLY_DAYS are gone, and the page says so');
  assert.ok(old.text.includes('<tr><td>2025-01-10</td><td class="n">9</td><td class="n">4</td></tr>'), 'the day\'s totals instead');
});

test('headline figures carry their change on the previous period, and nothing is made up where there was none', async () => {
  const { page, record, counters } = await site();
  record('2026-11-21T09:00:00Z', 30, 10);
  record('2026-11-20T09:00:00Z', 10, 8);
  record('2026-11-14T09:00:00Z', 20, 4);
  await counters.flush();
  const week = await page('?period=7d');
  assert.ok(week.text.includes('Changes are on the previous period, 2026-11-08 to 2026-11-14.'));
  const figure = (html: string, name: string) => new RegExp(`<span class="name">${name}</span><b>([^<]+)</b><span class="change ([a-z]+)">(.*?)</span></div>`).exec(html)?.slice(1);
  assert.deepEqual(figure(week.text, 'Visitors'), ['18', 'up', '<span aria-hidden="true">↑</span> 350%<span class="sr"> more than the previous period</span>']);
  assert.deepEqual(figure(week.text, 'Pageviews')?.slice(0, 2), ['40', 'up']);
  assert.match(figure(week.text, 'Pageviews')![2]!, /↑<\/span> 100%/);
  assert.deepEqual(figure(week.text, 'Views per visit')?.slice(0, 2), ['2.22', 'down']);
  assert.match(figure(week.text, 'Views per visit')![2]!, /↓<\/span> 56%<span class="sr"> less than/, '2.22 after 5: 56% less');
  const today = await page('?period=today');
  assert.deepEqual(figure(today.text, 'Visitors')?.slice(0, 2), ['10', 'up'], '10 after 8 yesterday');
  const first = await page('?period=last-month');
  assert.deepEqual(figure(first.text, 'Visitors'), ['0', 'none', '–<span class="sr"> no previous figure to compare with</span>']);
  assert.ok(first.text.includes('<span class="name">Views per visit</span><b>–</b>'), 'no views per visit without visits');
  assert.ok(!/bounce/i.test(week.text), 'no bounce rate: bounces are not counted (see the docs)');
});

test('panels: every tab by its parameter, flags for locations, event properties one level down, a CSV link each', async () => {
  const { page, visit, counters } = await site();
  const de = { 'cf-ipcountry': 'DE' };
  await visit('192.0.2.1', '/pricing?utm_source=news&utm_medium=email&utm_campaign=fall&utm_term=shoes&utm_content=top', { referrer: 'https://www.google.com/search' }, de);
  await visit('192.0.2.2', '/', { referrer: 'https://blog.example.net/post' }, { 'cf-ipcountry': 'US' });
  await visit('192.0.2.2', '/pricing', { event: { name: 'Signup', properties: { plan: 'pro' } } });
  await visit('192.0.2.3', '/', { event: { name: 'Signup', properties: { plan: 'free' } } }, de);
  await counters.flush();
  const base = await page();
  const cases: [param: string, heading: string, expect: string[]][] = [
    // Custom events are events, not pageviews.
    ['', 'Pages', ['<td>/</td><td class="n">1</td>', '<td>/pricing</td><td class="n">1</td>']],
    ['?pages=landing_page', 'Landing pages', ['<th>Landing page</th><th class="n">Visitors</th>', '<td>/pricing</td><td class="n">1</td>']],
    ['', 'Sources', ['<td>Google</td>', '<td>blog.example.net</td>']],
    ['?sources=referrer', 'Referrers', ['<td>google.com</td>', '<td>blog.example.net</td>']],
    ['', 'UTM sources', ['<td>news</td><td class="n">1</td>']],
    ['?utm=utm_medium', 'UTM mediums', ['<td>email</td>']],
    ['?utm=utm_campaign', 'UTM campaigns', ['<td>fall</td>']],
    ['?utm=utm_term', 'UTM terms', ['<td>shoes</td>']],
    ['?utm=utm_content', 'UTM contents', ['<td>top</td>']],
    ['', 'Countries', ['<td><span aria-hidden="true">\u{1F1E9}\u{1F1EA}</span> <span>Germany</span></td><td class="n">1</td>', '<span>United States</span>']],
    ['?locations=region', 'Regions', ['<td colspan="2">No data</td>']],
    ['?locations=city', 'Cities', ['<td colspan="2">No data</td>']],
    ['', 'Browsers', ['<td>Firefox</td><td class="n">2</td>']],
    ['?devices=os', 'Operating systems', ['<td>Linux</td>']],
    ['?devices=device', 'Devices', ['<td>Desktop</td>']],
    ['', 'Events', ['<a href="/stats/shop.example.com?event=Signup">Signup</a></td><td class="n">2</td>']],
    ['?event=Signup', 'Properties of Signup', ['<a href="/stats/shop.example.com?event=Signup&#38;property=plan">plan</a></td><td class="n">2</td>', '<a href="/stats/shop.example.com">All events</a> › Signup']],
    ['?event=Signup&property=plan', 'plan of Signup', ['<td>free</td><td class="n">1</td>', '<td>pro</td><td class="n">1</td>', '› <a href="/stats/shop.example.com?event=Signup">Signup</a> › plan']],
  ];
  for (const [query, heading, expect] of cases) {
    const r = query === '' ? base : await page(query);
    const panel = section(r.text, heading);
    for (const part of expect) assert.ok(panel.includes(part), `${heading}: ${part}\n${panel}`);
  }
  const csv = [...base.text.matchAll(/<a href="([^"]+)">CSV<span class="sr"> of ([^<]+)<\/span><\/a>/g)].map((m) => `${m[2]} ${m[1]}`);
  const range = 'from=2026-10-23&#38;to=2026-11-21';
  assert.deepEqual(csv, [
    `Pages /stats/shop.example.com/csv?name=page&#38;${range}`,
    `Sources /stats/shop.example.com/csv?name=source&#38;${range}`,
    `UTM sources /stats/shop.example.com/csv?name=utm_source&#38;${range}`,
    `Countries /stats/shop.example.com/csv?name=country&#38;${range}`,
    `Browsers /stats/shop.example.com/csv?name=browser&#38;${range}`,
    `Events /stats/shop.example.com/csv?name=event&#38;${range}`,
  ]);
  assert.ok((await page('?event=Signup&property=plan')).text.includes(`<a href="/stats/shop.example.com/csv?name=event_property&#38;${range}&#38;event=Signup&#38;property=plan">CSV`));
  assert.ok(base.text.includes(`<a href="/stats/shop.example.com/export?${range}">Export all (zip)</a>`));
  // The tab links keep the rest of the page's state.
  assert.ok((await page('?period=7d&devices=os')).text.includes('<a href="/stats/shop.example.com?period=7d&#38;devices=os&#38;locations=city">Cities</a>'));
});

test('the realtime visitors are in the page as loaded, and its route answers the same number', async () => {
  const { page, visit, app, clock } = await site();
  await visit('192.0.2.1', '/');
  await visit('192.0.2.2', '/a');
  await visit('192.0.2.2', '/b');
  const r = await page();
  assert.ok(r.text.includes('<p class="live" id="realtime" data-src="/stats/shop.example.com/realtime" aria-live="polite"><span class="dot" aria-hidden="true"></span><span data-text>2 visitors in the last 5 minutes</span></p>'));
  const live = await app.request('/stats/shop.example.com/realtime');
  assert.equal(live.status, 200);
  assert.deepEqual(await live.json(), { visitors: 2, text: '2 visitors in the last 5 minutes' });
  assert.equal(live.headers.get('cache-control'), 'no-store');
  clock.advance(10 * 60_000);
  assert.match((await page()).text, /<span data-text>0 visitors in the last 5 minutes<\/span>/);
  assert.deepEqual(await (await app.request('/stats/shop.example.com/realtime')).json(), { visitors: 0, text: '0 visitors in the last 5 minutes' });
  clock.advance(-DAY);
});
