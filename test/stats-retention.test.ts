import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '../src/clock.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { FAKE_ADMIN_KEY, startFakeServer } from '../src/fake/index.ts';
import { silentLogger } from '../src/log.ts';
import { startServer } from '../src/server.ts';
import { PRUNE_BATCH, StatsRetention, retentionCutoffs } from '../src/stats/retention.ts';
import type { CountsDelta, Store } from '../src/store/store.ts';
import { backendEnv, whileLockedElsewhere } from './backend.ts';
import { allOf, eventually, openTestStore } from './helpers.ts';

const NOW = '2026-11-21T10:00:00Z';

/** A website day with hourly detail, and a link day without. */
const websiteDay = (day: string, subject = 'website:1'): CountsDelta => ({ subject, day, counts: { pageviews: 3, visitors: 2, page: { '/': 3 }, pageviews_hour: { '09': 1, '10': 2 }, visitors_hour: { '09': 1, '10': 1 } } });
const linkDay = (day: string): CountsDelta => ({ subject: 'link:1', day, counts: { clicks: 2, country: { France: 2 } } });

/** The stored days as `subject day: metric names`, to compare what is left. */
async function storedDays(store: Store): Promise<string[]> {
  const days = await allOf<{ id: number; subject: string; day: string; counts: Record<string, unknown> }>(store, 'stats');
  return days.map((d) => `${d.subject} ${d.day}: ${Object.keys(d.counts).sort().join(',')}`).sort();
}

test('the cut-offs: STATS_RETENTION_DAYS keeps today and that many days before it; STATS_HOURLY_DAYS the same for the hourly detail; 0 keeps all', () => {
  const now = Date.parse(NOW);
  assert.deepEqual(retentionCutoffs(now, { statsRetentionDays: 30, statsHourlyDays: 7 }), { before: '2026-10-22', hourlyBefore: '2026-11-14' });
  assert.deepEqual(retentionCutoffs(now, { statsRetentionDays: 0, statsHourlyDays: 90 }), { before: undefined, hourlyBefore: '2026-08-23' });
  assert.deepEqual(retentionCutoffs(now, { statsRetentionDays: 1, statsHourlyDays: 0 }), { before: '2026-11-20', hourlyBefore: undefined });
});

test('settings: STATS_RETENTION_DAYS is 0 (for ever) by default, STATS_HOURLY_DAYS 90; words and negative numbers are refused', () => {
  const config = loadConfig({});
  assert.deepEqual([config.statsRetentionDays, config.statsHourlyDays], [0, 90]);
  assert.deepEqual([loadConfig({ STATS_RETENTION_DAYS: '400', STATS_HOURLY_DAYS: '30' }).statsRetentionDays, loadConfig({ STATS_HOURLY_DAYS: '0' }).statsHourlyDays], [400, 0]);
  assert.equal(loadConfig({}, ['--stats-retention-days', '30']).statsRetentionDays, 30);
  const refused: [Record<string, string>, string][] = [
    [{ STATS_RETENTION_DAYS: '-5' }, 'Invalid STATS_RETENTION_DAYS: "-5" is not a non-negative integer'],
    [{ STATS_RETENTION_DAYS: 'forever' }, 'Invalid STATS_RETENTION_DAYS: "forever" is not a non-negative integer'],
    [{ STATS_HOURLY_DAYS: '1.5' }, 'Invalid STATS_HOURLY_DAYS: "1.5" is not a non-negative integer'],
  ];
  for (const [env, message] of refused) assert.throws(() => loadConfig(env), (err: Error) => err instanceof ConfigError && err.message === message, JSON.stringify(env));
});

test('a run removes the days past STATS_RETENTION_DAYS and the hourly detail past STATS_HOURLY_DAYS, in batches, every subject alike; a second run finds nothing', async () => {
  const store = await openTestStore();
  await store.addCounts([websiteDay('2026-09-01'), linkDay('2026-09-01'), websiteDay('2026-10-21'), websiteDay('2026-10-22'), websiteDay('2026-11-13'), linkDay('2026-11-13'), websiteDay('2026-11-14'), websiteDay('2026-11-21')], Infinity);
  // More than one batch of old days: 250 websites' days of 2026-09-02.
  await store.addCounts(Array.from({ length: PRUNE_BATCH + 50 }, (_, i) => websiteDay('2026-09-02', `website:${100 + i}`)), Infinity);
  // And more than one batch of days to thin: 250 websites' days of 2026-11-01.
  await store.addCounts(Array.from({ length: PRUNE_BATCH + 50 }, (_, i) => websiteDay('2026-11-01', `website:${100 + i}`)), Infinity);
  const retention = new StatsRetention(store, fixedClock(NOW), { statsRetentionDays: 30, statsHourlyDays: 7 }, silentLogger);
  const pruned = await retention.run();
  assert.equal(pruned.days, 2 + 1 + PRUNE_BATCH + 50, 'the days before 2026-10-22');
  const left = await storedDays(store);
  const daily = 'page,pageviews,visitors';
  const hourly = 'page,pageviews,pageviews_hour,visitors,visitors_hour';
  assert.deepEqual(left.filter((d) => !/^website:(1\d\d|2\d\d|3[0-4]\d) /.test(d)), [
    'link:1 2026-11-13: clicks,country',
    `website:1 2026-10-22: ${daily}`,
    `website:1 2026-11-13: ${daily}`,
    `website:1 2026-11-14: ${hourly}`,
    `website:1 2026-11-21: ${hourly}`,
  ]);
  assert.deepEqual(new Set(left.filter((d) => /^website:(1\d\d|2\d\d|3[0-4]\d) /.test(d)).map((d) => d.replace(/^\S+ /, ''))), new Set([`2026-11-01: ${daily}`]), 'every website of 2026-11-01 thinned, none of 2026-09-02 left');
  const counts = (await store.countedDays('website:1', '2026-11-13', '2026-11-13'))[0]!.counts;
  assert.deepEqual({ ...counts, page: { ...(counts.page as object) } }, { pageviews: 3, visitors: 2, page: { '/': 3 } }, 'the daily totals and breakdowns stay');
  assert.deepEqual(await retention.run(), { days: 0, thinned: 0 });
  assert.deepEqual(await storedDays(store), left);
});

test('with STATS_RETENTION_DAYS at its default (0) every day stays; only the hourly detail goes after STATS_HOURLY_DAYS', async () => {
  const store = await openTestStore();
  await store.addCounts([websiteDay('2020-01-01'), websiteDay('2026-08-22'), websiteDay('2026-08-23')], Infinity);
  assert.deepEqual(await new StatsRetention(store, fixedClock(NOW), { statsRetentionDays: 0, statsHourlyDays: 0 }, silentLogger).run(), { days: 0, thinned: 0 }, 'both 0: everything stays');
  assert.equal((await storedDays(store)).filter((d) => d.includes('pageviews_hour')).length, 3);
  const pruned = await new StatsRetention(store, fixedClock(NOW), loadConfig({}), silentLogger).run();
  assert.equal(pruned.days, 0);
  assert.deepEqual(await storedDays(store), [
    'website:1 2020-01-01: page,pageviews,visitors',
    'website:1 2026-08-22: page,pageviews,visitors',
    'website:1 2026-08-23: page,pageviews,pageviews_hour,visitors,visitors_hour',
  ]);
});

test('a day written again after it was thinned (an import) is thinned again', async () => {
  const store = await openTestStore();
  await store.addCounts([websiteDay('2026-01-05')], Infinity);
  const retention = new StatsRetention(store, fixedClock(NOW), { statsRetentionDays: 0, statsHourlyDays: 90 }, silentLogger);
  await retention.run();
  const [thinned] = await allOf<{ id: number; subject: string; day: string; counts: Record<string, unknown> }>(store, 'stats');
  await store.transaction((tx) => tx.put('stats', { ...thinned!, counts: { ...thinned!.counts, pageviews_hour: { '11': 4 } } }));
  assert.deepEqual(await storedDays(store), ['website:1 2026-01-05: page,pageviews,pageviews_hour,visitors']);
  assert.deepEqual(await retention.run(), { days: 0, thinned: 1 });
  assert.deepEqual(await storedDays(store), ['website:1 2026-01-05: page,pageviews,visitors']);
});

test('one process prunes at a time: while another holds the turn, a run leaves the work to it', async () => {
  const store = await openTestStore();
  await store.addCounts([websiteDay('2026-01-05')], Infinity);
  const retention = new StatsRetention(store, fixedClock(NOW), { statsRetentionDays: 30, statsHourlyDays: 7 }, silentLogger);
  const meanwhile = await whileLockedElsewhere(store, 'stats-retention:', () => retention.run());
  if (store.backend === 'postgres') {
    assert.deepEqual(meanwhile, { days: 0, thinned: 0 });
    assert.deepEqual(await storedDays(store), ['website:1 2026-01-05: page,pageviews,pageviews_hour,visitors,visitors_hour']);
    assert.deepEqual(await retention.run(), { days: 1, thinned: 0 }, 'once the turn is free');
  } else assert.deepEqual(meanwhile, { days: 1, thinned: 0 }, 'the file store is one process');
  assert.deepEqual(await storedDays(store), []);
});

test('a server runs retention soon after it starts', async () => {
  const clock = fixedClock(NOW);
  const config = loadConfig({ DATA_DIR: ':memory:', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', STATS_RETENTION_DAYS: '30', ...backendEnv() });
  const fixtures = { users: [{ id: 1, email: 'owner@example.com', admin: true, apikey: FAKE_ADMIN_KEY }], stats: [{ id: 1, subject: 'link:1', day: '2026-01-01', userId: 1, counts: { clicks: 1 } }, { id: 2, subject: 'link:1', day: '2026-11-20', userId: 1, counts: { clicks: 2 } }] };
  const server = await startServer(config, { log: silentLogger, clock, fixtures, print: () => {} });
  try {
    assert.ok(await eventually(async () => (await storedDays(server.store)).length === 1), 'the day of January went');
    assert.deepEqual(await storedDays(server.store), ['link:1 2026-11-20: clicks']);
  } finally {
    await server.close();
  }
});

test("the fake backend's clock drives retention: moving it on removes what the settings no longer keep", async () => {
  const fake = await startFakeServer({ now: '2026-03-01T12:00:00Z', config: { statsRetentionDays: 30, statsHourlyDays: 2 } });
  try {
    const auth = { authorization: `Bearer ${FAKE_ADMIN_KEY}` };
    const site = await fake.app.request('/api/v1/websites', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'shop.example' }) });
    const id = (await site.json()).data.id as number;
    assert.equal((await fake.app.request('/api/event', { method: 'POST', body: JSON.stringify({ page: 'https://shop.example/' }), headers: { 'user-agent': 'Mozilla/5.0 Firefox/120.0' } })).status, 202);
    const rows = async (name: string) => (await (await fake.app.request(`/api/v1/stats/${id}?name=${name}&from=2026-03-01&to=2026-03-01`, { headers: auth })).json()).data;
    assert.deepEqual(await rows('pageviews_hour'), [{ value: '12', count: 1 }]);
    fake.clock.advance(3 * 86_400_000);
    assert.deepEqual(await rows('pageviews_hour'), [], 'past STATS_HOURLY_DAYS: the hourly detail went');
    assert.deepEqual(await rows('pageviews'), [{ value: '2026-03-01', count: 1 }], 'the daily total stayed');
    const moved = await fake.app.request('/__admin/clock', { method: 'POST', headers: auth, body: JSON.stringify({ advance: 30 * 86_400_000 }) });
    assert.equal(moved.status, 200);
    assert.deepEqual(await rows('pageviews'), [], 'past STATS_RETENTION_DAYS: the day went');
    assert.deepEqual(fake.store.all('stats'), []);
  } finally {
    await fake.close();
  }
});
