/**
 * Links' owners on PostgreSQL (migration 017): a statement trigger locks each owner of a links
 * insert once instead of a foreign key checking every row, a row trigger checks an owner that
 * changes, and a users' delete takes their links with it. What the foreign key guaranteed still
 * holds: a link of a user who is not there is refused (23503) and nothing of its statement stored;
 * a user deleted while their links are being written waits for that COMMIT and then takes them along;
 * a link written while its owner's delete is under way waits for that COMMIT and is then refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { planTables } from '../src/store/postgres/tables.ts';
import { insertRecords } from '../src/store/postgres/writes.ts';
import { freshSchema, untilLockWaiters } from './backend.ts';
import { withClient } from './pg-client.ts';

const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-link-owners: PostgreSQL link-owner tests skipped (TEST_DATABASE_URL is not set)');

const COLLECTIONS = storeSchema(RESOURCES);
const PLAN = planTables(COLLECTIONS).get('links')!;
const link = (userId: number, n: number) => ({ userId, alias: `own${userId}x${n}`, url: `https://example.com/${userId}/${n}`, type: 'direct', status: 'public', pixels: [], channels: [] });
const fkError = (err: unknown) => (err as { code?: string }).code === '23503' || /foreign key/.test(String(err));

test('links of a user: stored once the user is there, refused for a missing one; an owner that changes is checked; a delete during their insert waits for its COMMIT and takes them along', { skip: !URL && 'TEST_DATABASE_URL is not set' }, async () => {
  const schema = freshSchema();
  const store = await PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 2, listen: false });
  try {
    const [ada, bob] = await store.transaction(async (tx) => [await tx.insert('users', { username: 'ada', email: 'ada@example.com', keyHash: 'h1' }), await tx.insert('users', { username: 'bob', email: 'bob@example.com', keyHash: 'h2' })]);
    const owners = () =>
      withClient(async (c) => {
        const links = (await c.query<{ user_id: string; n: string }>(`SELECT user_id, count(*) AS n FROM "${schema}".links GROUP BY 1 ORDER BY 1`)).rows.map((r) => [Number(r.user_id), Number(r.n)]);
        const clicks = (await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".link_clicks`)).rows[0]!.n;
        return { links, clicks: Number(clicks) };
      });

    // 1,000 links of one owner and two of another in one statement.
    const made = await store.transaction((tx) => tx.insertMany('links', [...Array.from({ length: 1000 }, (_, i) => link(ada!.id, i)), link(bob!.id, 1), link(bob!.id, 2)]));
    assert.equal(made.filter((m) => !(m instanceof Error)).length, 1002);
    assert.deepEqual(await owners(), { links: [[ada!.id, 1000], [bob!.id, 2]], clicks: 1002 });

    // A link of a user who is not there fails its statement, with the others of it: nothing is stored.
    await assert.rejects(store.transaction((tx) => tx.insertMany('links', [link(ada!.id, 5000), link(999_999, 1)])), fkError);
    await assert.rejects(store.transaction((tx) => tx.insert('links', link(999_999, 2))), fkError);
    assert.deepEqual(await owners(), { links: [[ada!.id, 1000], [bob!.id, 2]], clicks: 1002 });

    // An owner that changes is checked: to a missing user refused, to bob stored.
    const moved = (made[0] as { id: number }).id;
    await assert.rejects(store.transaction((tx) => tx.update('links', moved, { userId: 999_999 })), fkError);
    assert.equal((await store.get('links', moved))!.userId, ada!.id);
    await store.transaction((tx) => tx.update('links', moved, { userId: bob!.id }));
    assert.deepEqual((await owners()).links, [[ada!.id, 999], [bob!.id, 3]]);

    // Bob's next link is written in a transaction still open when his delete comes: the delete waits for it.
    await withClient(async (writing) => {
      await writing.query(`SET search_path TO "${schema}"`);
      const db = ((text: string, values?: unknown[]) => writing.query(text, values)) as never;
      await writing.query('BEGIN');
      assert.equal((await insertRecords(db, PLAN, [link(bob!.id, 3)]))!.filter(Boolean).length, 1);
      let deleted = false;
      const deleting = store.transaction((tx) => tx.remove('users', bob!.id)).then((gone) => ((deleted = true), gone));
      // The delete is seen waiting for a lock before the insert commits.
      await untilLockWaiters(schema);
      assert.equal(deleted, false, 'the delete waits for the transaction writing his link');
      await writing.query('COMMIT');
      assert.equal(await deleting, true);
    });
    assert.deepEqual(await owners(), { links: [[ada!.id, 999]], clicks: 999 }, "the user's links went with him, the one written while he was being deleted too, and their click rows");
    // Written after he is gone: refused.
    await assert.rejects(store.transaction((tx) => tx.insert('links', link(bob!.id, 4))), fkError);

    // The other way round: a link of a user whose delete is not committed yet waits for it, then is refused.
    const carol = await store.transaction((tx) => tx.insert('users', { username: 'carol', email: 'carol@example.com', keyHash: 'h3' }));
    await withClient(async (deleting) => {
      await deleting.query('BEGIN');
      await deleting.query(`DELETE FROM "${schema}".users WHERE id = $1`, [carol.id]);
      let settled = false;
      const writing = store.transaction((tx) => tx.insertMany('links', [link(carol.id, 1), link(ada!.id, 5001)])).finally(() => (settled = true));
      writing.catch(() => {});
      await untilLockWaiters(schema);
      assert.equal(settled, false, 'the insert waits for the transaction deleting its owner');
      await deleting.query('COMMIT');
      await assert.rejects(writing, fkError);
    });
    assert.deepEqual(await owners(), { links: [[ada!.id, 999]], clicks: 999 }, 'nothing of the refused statement is stored');
  } finally {
    await store.close();
    await withClient((c) => c.query(`DROP SCHEMA "${schema}" CASCADE`));
  }
});
