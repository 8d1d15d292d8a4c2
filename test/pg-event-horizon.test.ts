/**
 * Events' places on PostgreSQL without a lock (src/store/postgres/event-horizon.ts): transactions
 * placing events do not wait for one another, and readers (eventsAfter, one owner's too, routing)
 * stop at the first place still missing, so an event that commits late is never passed over; a place
 * that will never come (a rolled-back transaction, a removed user's events) stops them only until the
 * transactions running when it was seen have ended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { systemClock } from '../src/clock.ts';
import { newEvent } from '../src/events/event-types.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { placeEventsIn } from '../src/store/postgres/pg-outbox.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { planTables } from '../src/store/postgres/tables.ts';
import { EVENTS_COLLECTION } from '../src/store/store.ts';
import type { EventRecord, PlacedEvent } from '../src/store/store.ts';
import { freshSchema } from './backend.ts';
import { withClient } from './pg-client.ts';

const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-event-horizon: PostgreSQL event-place tests skipped (TEST_DATABASE_URL is not set)');

const COLLECTIONS = storeSchema(RESOURCES);
const PLAN = planTables(COLLECTIONS).get(EVENTS_COLLECTION)!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const event = (userId: number, n: string) => newEvent(userId, 'test.event', { n }, systemClock);
const names = (placed: readonly PlacedEvent[]) => placed.map((p) => String(p.event.data.n));

/** `fn` with a connection of the test's own in `schema`, as a Db for placeEventsIn. */
function inSession<R>(schema: string, fn: (client: pg.Client, db: never) => Promise<R>): Promise<R> {
  return withClient(async (client) => {
    await client.query(`SET search_path TO "${schema}"`);
    return fn(client, ((text: string, values?: unknown[]) => client.query(text, values)) as never);
  });
}

/**
 * Reads until `want` events are there, at most 30 s: a place that never comes is passed once every
 * transaction running on the server when it was seen has ended, and other tests' may run for seconds.
 */
async function readUntil(read: () => Promise<PlacedEvent[]>, want: number): Promise<PlacedEvent[]> {
  let placed = await read();
  for (const until = Date.now() + 30_000; placed.length < want && Date.now() < until; placed = await read()) await sleep(20);
  return placed;
}

test('a transaction placing events does not wait for one still open; readers stop at its place until it commits, then get both in place order', { skip: !URL && 'TEST_DATABASE_URL is not set' }, async () => {
  const schema = freshSchema();
  const store = await PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 4, listen: false });
  try {
    const [ada, bob] = await store.transaction(async (tx) => [await tx.insert('users', { username: 'ada', email: 'ada@example.com', keyHash: 'h1' }), await tx.insert('users', { username: 'bob', email: 'bob@example.com', keyHash: 'h2' })]);
    await store.transaction((tx) => tx.appendEvents([event(ada!.id, 'first')]));
    const start = await store.outbox.endCursor();
    assert.deepEqual(names(await store.outbox.eventsAfter(null, 10)), ['first']);

    await inSession(schema, async (open, db) => {
      await open.query('BEGIN');
      assert.equal(await placeEventsIn(db, PLAN, [event(ada!.id, 'late')]), 1);
      // Placed after the open one, committed before it, without waiting for it.
      const later = store.transaction((tx) => tx.appendEvents([event(ada!.id, 'early'), event(bob!.id, 'bob')]));
      const outcome = await Promise.race([later.then(() => 'committed'), new Promise((r) => setTimeout(r, 10_000).unref()).then(() => 'waited')]);
      assert.equal(outcome, 'committed', 'the second transaction waited for the first one to commit');
      const committed = await inSession(schema, async (c) => (await c.query<{ n: string }>("SELECT data -> 'data' ->> 'n' AS n FROM events ORDER BY pos")).rows.map((r) => r.n));
      assert.deepEqual(committed, ['first', 'early', 'bob'], 'the later places are committed and visible');

      // Nothing past the open transaction's place reaches a reader: not everyone's, not one owner's, not routing.
      assert.deepEqual(names(await store.outbox.eventsAfter(start, 10)), []);
      assert.deepEqual(names(await store.outbox.eventsAfter(start, 10, bob!.id)), []);
      const routed: string[] = [];
      const route = () => store.outbox.route(10, async (_tx, events: readonly EventRecord[]) => void routed.push(...events.map((e) => String(e.data.n))));
      assert.equal(await route(), 1);
      assert.deepEqual(routed, ['first']);

      await open.query('COMMIT');
      assert.deepEqual(names(await readUntil(() => store.outbox.eventsAfter(start, 10), 3)), ['late', 'early', 'bob']);
      assert.deepEqual(names(await readUntil(() => store.outbox.eventsAfter(start, 10, bob!.id), 1)), ['bob']);
      assert.equal(await route(), 3);
      assert.deepEqual(routed, ['first', 'late', 'early', 'bob']);
    });
    const all = await store.outbox.eventsAfter(null, 10);
    assert.equal(await store.outbox.endCursor(), all.at(-1)!.cursor);
  } finally {
    await store.close();
    await withClient((c) => c.query(`DROP SCHEMA "${schema}" CASCADE`));
  }
});

test("a place that never comes (a rolled-back transaction's, a removed user's events) stops readers only until what ran when it was seen has ended", { skip: !URL && 'TEST_DATABASE_URL is not set' }, async () => {
  const schema = freshSchema();
  const store = await PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 4, listen: false });
  try {
    const [ada, bob] = await store.transaction(async (tx) => [await tx.insert('users', { username: 'ada', email: 'ada@example.com', keyHash: 'h1' }), await tx.insert('users', { username: 'bob', email: 'bob@example.com', keyHash: 'h2' })]);
    await inSession(schema, async (open, db) => {
      await open.query('BEGIN');
      assert.equal(await placeEventsIn(db, PLAN, [event(ada!.id, 'undone 1'), event(ada!.id, 'undone 2')]), 2);
      await store.transaction((tx) => tx.appendEvents([event(ada!.id, 'after the rollback')]));
      assert.deepEqual(names(await store.outbox.eventsAfter(null, 10)), [], 'held at the open place');
      await open.query('ROLLBACK');
      assert.deepEqual(names(await readUntil(() => store.outbox.eventsAfter(null, 10), 1)), ['after the rollback']);
    });
    // Bob's events go with him before any read got past them; Ada's placed around them still come, in order.
    const cursor = (await store.outbox.eventsAfter(null, 10)).at(-1)!.cursor;
    await store.transaction((tx) => tx.appendEvents([event(bob!.id, 'bob 1'), event(bob!.id, 'bob 2')]));
    await store.transaction((tx) => tx.appendEvents([event(ada!.id, 'ada 1')]));
    await store.transaction((tx) => tx.remove('users', bob!.id));
    await store.transaction((tx) => tx.appendEvents([event(ada!.id, 'ada 2')]));
    assert.deepEqual(names(await readUntil(() => store.outbox.eventsAfter(cursor, 10), 2)), ['ada 1', 'ada 2']);
    assert.deepEqual(names(await store.outbox.eventsAfter(null, 10)), ['after the rollback', 'ada 1', 'ada 2']);
  } finally {
    await store.close();
    await withClient((c) => c.query(`DROP SCHEMA "${schema}" CASCADE`));
  }
});

test('two stores placing events side by side, some places rolled back: a reader following the cursor gets every committed event once, in place order', { skip: !URL && 'TEST_DATABASE_URL is not set' }, async () => {
  const schema = freshSchema();
  const open = () => PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 4, listen: false });
  const a = await open();
  const b = await open();
  try {
    const ada = (await a.transaction((tx) => tx.insert('users', { username: 'ada', email: 'ada@example.com', keyHash: 'h1' }))).id;
    let writing = true;
    const writers = (async () => {
      await inSession(schema, async (raw, db) => {
        for (let round = 0; round < 25; round++) {
          const undone = (async () => {
            await raw.query('BEGIN');
            await placeEventsIn(db, PLAN, [event(ada, `undone ${round}`)]);
            await sleep(round % 5);
            await raw.query('ROLLBACK');
          })();
          await Promise.all([undone, ...[a, b].flatMap((s, i) => Array.from({ length: 4 }, (_, k) => s.transaction((tx) => tx.appendEvents(Array.from({ length: 1 + (k % 3) }, (_, j) => event(ada, `${round}.${i}.${k}.${j}`))))))]);
        }
      });
      writing = false;
    })();
    const seen: PlacedEvent[] = [];
    let cursor: string | null = null;
    for (;;) {
      const still = writing;
      const page = await a.outbox.eventsAfter(cursor, 50);
      seen.push(...page);
      if (page.length > 0) cursor = page.at(-1)!.cursor;
      else if (!still) break;
      else await sleep(2);
    }
    await writers;
    const committed = await inSession(schema, async (c) => (await c.query<{ id: string }>('SELECT k_event_id AS id FROM events ORDER BY pos')).rows.map((r) => r.id));
    seen.push(...(await readUntil(() => a.outbox.eventsAfter(cursor, 1000), committed.length - seen.length)));
    assert.equal(committed.length, 25 * 2 * (1 + 2 + 3 + 1));
    assert.deepEqual(seen.map((p) => p.event.eventId), committed, 'every committed event once, in place order');
    assert.ok(seen.every((p) => !String(p.event.data.n).startsWith('undone')));
  } finally {
    await b.close();
    await a.close();
    await withClient((c) => c.query(`DROP SCHEMA "${schema}" CASCADE`));
  }
});
