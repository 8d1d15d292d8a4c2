import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '../src/clock.ts';
import { checkAllExport, importAll } from '../src/cli/import-all.ts';
import { storeCounts, writeAllExport } from '../src/cli/export-all.ts';
import { seededRandom } from '../src/random.ts';
import { RESOURCES, exportedCollections } from '../src/resources/table.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { MAX_PROPERTY_DIMENSIONS } from '../src/store/property-dimensions.ts';
import { fingerprint } from './backend.ts';
import { openTestStore, testApp } from './helpers.ts';

const VISITOR = { 'x-forwarded-for': '192.0.2.1', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' };

/** An app with one website of alice's, counters capped at `maxLabels` labels a dimension and day. */
async function site(maxLabels = 1000) {
  const store = await openTestStore();
  const clock = fixedClock('2026-11-21T10:00:00Z');
  const counters = new DailyCounters(store, { clock, random: seededRandom(2), maxLabels });
  const app = await testApp({ trustProxy: true }, { store, clock, counters });
  const alice = await app.makeUser('alice');
  const created = await app.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'example.com' } });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as number;
  const send = (body: unknown, headers: Record<string, string> = VISITOR) => app.call('POST', '/api/event', { key: null, raw: JSON.stringify(body), headers: { 'content-type': 'text/plain', ...headers } });
  const track = async (event: Record<string, unknown>, headers?: Record<string, string>) => {
    const r = await send({ page: 'https://example.com/pricing', event }, headers);
    assert.deepEqual([r.status, r.text], [202, ''], JSON.stringify(event));
  };
  const stats = (query: string, key = alice.key) => app.call('GET', `/api/v1/stats/${id}?from=2026-11-21&to=2026-11-21&${query}`, { key });
  const rows = async (query: string) => {
    const r = await stats(`name=event_property&${query}`);
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((row: { value: string; count: number }) => [row.value, row.count]);
  };
  return { ...app, store, counters, alice, id, send, track, stats, rows };
}

test('custom event properties are counted per event and property; the name/value/unit form still counts', async () => {
  const { track, rows, stats, counters } = await site();
  await track({ name: 'Signup', properties: { plan: 'pro', seats: 3, trial: true } });
  await track({ name: 'Signup', properties: { plan: 'pro', seats: 3 } }, { ...VISITOR, 'x-forwarded-for': '192.0.2.2' });
  await counters.flush();
  await track({ name: 'Signup', properties: { plan: 'free' } });
  await track({ name: 'Download', properties: { plan: 'team' } });
  await track({ name: 'Purchase', value: 9.5, unit: 'eur' });

  assert.deepEqual(await rows('event=Signup&property=plan'), [['pro', 2], ['free', 1]]);
  assert.deepEqual(await rows('event=Signup&property=seats'), [['3', 2]], 'numbers are counted as text');
  assert.deepEqual(await rows('event=Signup&property=trial'), [['true', 1]]);
  assert.deepEqual(await rows('event=Download&property=plan'), [['team', 1]], 'the same property of another event is its own');
  assert.deepEqual(await rows('event=Signup'), [['plan', 3], ['seats', 2], ['trial', 1]], 'without a property: the event\'s property names');
  assert.deepEqual(await rows('event=Signup&property=color'), []);
  assert.deepEqual(await rows('event=Nobody'), []);
  assert.deepEqual(await rows('event=Signup&property=plan&search=PR'), [['pro', 2]]);
  const events = await stats('name=event');
  assert.deepEqual(events.body.data, [{ value: 'Signup', count: 3 }, { value: 'Download', count: 1 }, { value: 'Purchase', count: 1 }]);

  const missing = await stats('name=event_property&property=plan');
  assert.deepEqual([missing.status, missing.body], [422, { message: { event: ['The event field is required when name is event_property.'] }, status: 422 }]);
  const long = await stats(`name=event_property&event=Signup&property=${'p'.repeat(101)}`);
  assert.deepEqual([long.status, long.body.message], [422, { property: ['The property must not be greater than 100 characters.'] }]);
});

test('refused properties answer 400 and count nothing', async () => {
  const { send, store, counters, rows } = await site();
  const many = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i]));
  const cases: [unknown, RegExp][] = [
    [['plan', 'pro'], /properties must be an object/],
    ['plan=pro', /properties must be an object/],
    [many, /at most 30 properties/],
    [{ '': 'x' }, /property name cannot be empty/],
    [{ ['k'.repeat(101)]: 'x' }, /property name must be at most 100/],
    [{ plan: 'v'.repeat(501) }, /property value must be at most 500/],
    [{ plan: null }, /must be a string, a number or a boolean/],
    [{ plan: { tier: 'pro' } }, /must be a string, a number or a boolean/],
    [{ plan: ['pro'] }, /must be a string, a number or a boolean/],
  ];
  await counters.flush();
  const before = await fingerprint(store, ['stats']);
  for (const [properties, message] of cases) {
    const r = await send({ page: 'https://example.com/', event: { name: 'Signup', properties } });
    assert.equal(r.status, 400, JSON.stringify(properties).slice(0, 80));
    assert.equal(r.body.error, 1);
    assert.match(r.body.message, message);
  }
  for (const name of ['__proto__', 'constructor', 'prototype']) {
    const r = await send(JSON.parse(`{"page":"https://example.com/","event":{"name":"Signup","properties":{"plan":"pro","${name}":"x"}}}`));
    assert.deepEqual([r.status, r.body], [400, { error: 1, message: `Invalid event.properties: "${name}" cannot be a property name.` }]);
  }
  assert.equal(counters.buffered, 0, 'nothing waits to be written');
  await counters.flush();
  assert.equal(await fingerprint(store, ['stats']), before, 'nothing was stored');
  assert.deepEqual(await rows('event=Signup'), []);
});

test('each (event, property) keeps maxLabels values a day, across flushes, the rest under (other)', async () => {
  const { track, rows, counters } = await site(3);
  for (const plan of ['a', 'b', 'c', 'd', 'e']) {
    await track({ name: 'Signup', properties: { plan, color: plan === 'a' ? 'red' : 'blue' } });
    // Each value in a flush of its own: the cap is the store's, not one buffer's.
    await counters.flush();
  }
  await track({ name: 'Signup', properties: { plan: 'a' } });
  assert.deepEqual(await rows('event=Signup&property=plan'), [['(other)', 2], ['a', 2], ['b', 1], ['c', 1]]);
  assert.deepEqual(await rows('event=Signup&property=color'), [['blue', 4], ['red', 1]], 'another property of the same event has its own cap');
});

test(`a day keeps ${MAX_PROPERTY_DIMENSIONS} (event, property) pairs apart; later pairs count under (other), (other)`, async () => {
  const { track, rows, counters, store, id } = await site();
  // 4 events of 30 properties: 120 pairs, the first 100 (in the order they came) kept apart.
  for (let e = 0; e < 4; e++) {
    await track({ name: `E${e}`, properties: Object.fromEntries(Array.from({ length: 30 }, (_, p) => [`p${p}`, `v${e}`])) });
    await counters.flush();
  }
  await track({ name: 'E0', properties: { p0: 'again', late: 'x' } });
  await counters.flush();
  const [day] = await store.countedDays(`website:${id}`);
  const pairs = Object.keys(day!.counts).filter((k) => k.startsWith('event_property:'));
  assert.equal(pairs.length, MAX_PROPERTY_DIMENSIONS + 1, 'the pairs kept, and the one of the others');
  assert.deepEqual(await rows('event=E0&property=p0'), [['again', 1], ['v0', 1]], 'a pair the day holds still counts under its own name');
  assert.deepEqual(await rows('event=E3&property=p9'), [['v3', 1]], 'the 100th pair');
  assert.deepEqual(await rows('event=E3&property=p10'), []);
  assert.deepEqual(await rows('event=(other)&property=(other)'), [['v3', 20], ['x', 1]]);
});

test('event properties travel with export --all and import --all', async () => {
  const { track, counters, store, rows, id, alice } = await site();
  await track({ name: 'Signup', properties: { plan: 'pro' } });
  await counters.flush();
  let text = '';
  await store.readSnapshot(async (view) => writeAllExport(view, await storeCounts(view, exportedCollections(RESOURCES)), (piece) => void (text += piece), Date.now()));
  const target = await openTestStore();
  await importAll(target, checkAllExport(JSON.parse(text), RESOURCES, 'export.json'));
  const moved = await testApp({}, { store: target });
  const r = await moved.call('GET', `/api/v1/stats/${id}?name=event_property&event=Signup&property=plan&from=2026-11-21&to=2026-11-21`, { key: alice.key });
  assert.deepEqual([r.status, r.body.data], [200, [{ value: 'pro', count: 1 }]]);
  assert.deepEqual(await rows('event=Signup&property=plan'), [['pro', 1]]);
});
