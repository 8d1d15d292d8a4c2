import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { fixedClock } from '../src/clock.ts';
import { seededRandom } from '../src/random.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { freshSchema } from './backend.ts';
import { testApp } from './helpers.ts';

/**
 * What tracked events cost PostgreSQL (issue 29): no statement per event (the receiving website is
 * kept by the lookup cache, dropped on any write to websites), and a flush costs the same few
 * statements whether it carries 40 events or 400. Counted at the driver, so a statement added per
 * event or per visitor fails here. The counts themselves stay exact (checked through the stats API).
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-event-statements: PostgreSQL statement counts skipped (TEST_DATABASE_URL is not set)');

/** Every statement text any pg client of this process sends while `counting` is on. */
const sent: string[] = [];
let counting = false;
const query = pg.Client.prototype.query;
// The driver's overloads: the first argument is the text or a config holding it.
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0] as string | { text?: string };
    sent.push(typeof first === 'string' ? first : (first?.text ?? ''));
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;
after(() => {
  pg.Client.prototype.query = query;
});

/** The statements `work` sends. */
async function statementsOf(work: () => Promise<void>): Promise<string[]> {
  sent.length = 0;
  counting = true;
  try {
    await work();
  } finally {
    counting = false;
  }
  return [...sent];
}

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

async function tracked() {
  const clock = fixedClock('2026-11-21T10:00:00Z');
  // No listening connection (its pings would be counted); the flush runs when the test says.
  const store = await PostgresStore.open({ url: URL!, schema: freshSchema(), collections: storeSchema(RESOURCES), poolSize: 3, listen: false });
  const counters = new DailyCounters(store, { clock, random: seededRandom(1), flushMs: 3_600_000 });
  const t = await testApp({ trustProxy: true, eventRateLimit: 0 }, { store, clock, counters });
  const alice = await t.makeUser('alice');
  const site = await t.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'example.com', exclude_ips: '203.0.113.0/24' } });
  assert.equal(site.status, 201, site.text);
  const send = (n: number, ip = `198.51.100.${n % 40}`) =>
    t.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: `https://example.com/p/${n % 7}`, referrer: 'https://www.google.com/' }), headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': ip } });
  const pageviews = async () => {
    const r = await t.call('GET', `/api/v1/stats/${site.body.data.id}?name=pageviews&from=2026-11-21&to=2026-11-21`, { key: alice.key });
    assert.equal(r.status, 200, r.text);
    return r.body.data as { value: string; count: number }[];
  };
  const close = async () => {
    await counters.close();
    await store.close();
  };
  return { ...t, alice, site: site.body.data as { id: number }, send, pageviews, close };
}

/** Sends events 1..n (visitors from 40 addresses, 7 pages), each answered 202. */
async function sendAll(t: Awaited<ReturnType<typeof tracked>>, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const r = await t.send(i);
    assert.equal(r.status, 202, r.text);
  }
}

// Kept-count folds run a second after writes to counted tables (kept-counts.ts): not the events'.
const ofEvents = (texts: readonly string[]) => texts.filter((s) => !/kept_counts/.test(s));

if (URL) {
  test('events send no statement each: the receiving website is looked up once, then kept', async () => {
    const t = await tracked();
    try {
      const during = ofEvents(await statementsOf(() => sendAll(t, 0, 120)));
      assert.ok(during.length <= 1, `120 events sent ${during.length} statements:\n${during.join('\n')}`);
      assert.ok(during.every((s) => /websites/.test(s)), during.join('\n'));
      // A write to websites drops the kept answer: the new exclusion holds for the very next event.
      const excluded = await t.call('PUT', `/api/v1/websites/${t.site.id}`, { key: t.alice.key, body: { exclude_ips: '198.51.100.0/24' } });
      assert.equal(excluded.status, 200, excluded.text);
      assert.equal((await t.send(1)).status, 202);
      await t.counters.flush();
      assert.deepEqual(await t.pageviews(), [{ value: '2026-11-21', count: 120 }], 'the event from an address excluded a moment before is not counted');
      const gone = await t.call('DELETE', `/api/v1/websites/${t.site.id}`, { key: t.alice.key });
      assert.equal(gone.status, 200, gone.text);
      const after = await t.send(2, '192.0.2.1');
      assert.deepEqual([after.status, after.body], [404, { error: 1, message: 'Website not found.' }], 'a deleted website is not answered from memory');
    } finally {
      await t.close();
    }
  });

  test('a flush costs the same statements for 40 events as for 240, and counts every one', async () => {
    const t = await tracked();
    try {
      await sendAll(t, 0, 40);
      await t.audit.flush();
      const small = ofEvents(await statementsOf(() => t.counters.flush()));
      assert.deepEqual(await t.pageviews(), [{ value: '2026-11-21', count: 40 }]);
      await sendAll(t, 40, 240);
      await t.audit.flush();
      const large = ofEvents(await statementsOf(() => t.counters.flush()));
      assert.deepEqual(await t.pageviews(), [{ value: '2026-11-21', count: 280 }]);
      // Two transactions (the realtime minutes; the counts with their batch id, sightings, events and
      // notification), each BEGIN … COMMIT: about a dozen statements, none per event or visitor.
      assert.ok(large.length <= 16, `a flush of 240 events sent ${large.length} statements:\n${large.join('\n')}`);
      assert.ok(large.length <= small.length + 1, `240 events: ${large.length} statements; 40 events: ${small.length}`);
    } finally {
      await t.close();
    }
  });
}
