/**
 * Events' owners on PostgreSQL (migration 016): the statement placing events locks each owner once
 * instead of a foreign key checking every row, and a users' delete takes their events with it. What
 * the foreign key guaranteed still holds: a user deleted while their events are being placed waits
 * for that COMMIT and then takes them along; events of a user already gone are not stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { placeEventsIn } from '../src/store/postgres/pg-outbox.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { planTables } from '../src/store/postgres/tables.ts';
import { EVENTS_COLLECTION } from '../src/store/store.ts';
import type { NewEvent } from '../src/store/store.ts';
import { freshSchema } from './backend.ts';
import { withClient } from './pg-client.ts';

const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-event-owners: PostgreSQL event-owner tests skipped (TEST_DATABASE_URL is not set)');

const COLLECTIONS = storeSchema(RESOURCES);
const PLAN = planTables(COLLECTIONS).get(EVENTS_COLLECTION)!;
const event = (userId: number, n: number): NewEvent => ({ userId, eventId: `evt_owner_${userId}_${n}`, type: 'link.created', created: '2026-11-27T06:00:00.000Z', data: { id: n } });

test('events of a user: stored once the user is there, not for a missing one; a delete during their placing waits for its COMMIT and takes them along', { skip: !URL && 'TEST_DATABASE_URL is not set' }, async () => {
  const schema = freshSchema();
  const store = await PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 2, listen: false });
  try {
    const [ada, bob] = await store.transaction(async (tx) => [await tx.insert('users', { username: 'ada', email: 'ada@example.com', keyHash: 'h1' }), await tx.insert('users', { username: 'bob', email: 'bob@example.com', keyHash: 'h2' })]);
    const owners = () => withClient(async (c) => (await c.query<{ user_id: string; n: string }>(`SELECT user_id, count(*) AS n FROM "${schema}".events GROUP BY 1 ORDER BY 1`)).rows.map((r) => [Number(r.user_id), Number(r.n)]));
    await withClient(async (placing) => {
      await placing.query(`SET search_path TO "${schema}"`);
      const db = ((text: string, values?: unknown[]) => placing.query(text, values)) as never;
      // 1,000 events of one owner and two of another in one statement; none of a user that is not there.
      assert.equal(await placeEventsIn(db, PLAN, [...Array.from({ length: 1000 }, (_, i) => event(ada!.id, i)), event(bob!.id, 1), event(999_999, 1), event(bob!.id, 2)]), 1002);
      assert.deepEqual(await owners(), [[ada!.id, 1000], [bob!.id, 2]]);

      // Bob's next events are placed in a transaction still open when his delete comes: the delete waits for it.
      await placing.query('BEGIN');
      assert.equal(await placeEventsIn(db, PLAN, [event(bob!.id, 3)]), 1);
      let deleted = false;
      const deleting = store.transaction((tx) => tx.remove('users', bob!.id)).then((gone) => ((deleted = true), gone));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(deleted, false, 'the delete waits for the transaction placing his events');
      await placing.query('COMMIT');
      assert.equal(await deleting, true);
      assert.deepEqual(await owners(), [[ada!.id, 1000]], "the user's events went with him, the ones placed while he was being deleted too");
      // Placed after he is gone: not stored.
      assert.equal(await placeEventsIn(db, PLAN, [event(bob!.id, 4), event(ada!.id, 1001)]), 1);
      assert.deepEqual(await owners(), [[ada!.id, 1001]]);
    });
  } finally {
    await store.close();
    await withClient((c) => c.query(`DROP SCHEMA "${schema}" CASCADE`));
  }
});
