import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { runMigrate } from '../src/cli/migrate.ts';
import { loadMigrations, migrateWith } from '../src/store/postgres/migrate.ts';
import { FOLD_AFTER_MS, foldKeptCounts } from '../src/store/postgres/kept-counts.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { STATS } from '../src/store/postgres/tables.ts';
import { freshSchema } from './backend.ts';
import { withClient } from './pg-client.ts';

/**
 * Kept counts on PostgreSQL (migration 006, src/store/postgres/kept-counts.ts): list totals of a
 * whole table or of one owner are sums of rows the database's triggers add in each writing
 * transaction. Every test checks the store's answer against `count(*)` of the rows themselves.
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-kept-counts: PostgreSQL kept-count tests skipped (TEST_DATABASE_URL is not set)');

const COLLECTIONS = storeSchema(RESOURCES);
const user = (n: number | string) => ({ username: `user${n}`, email: `user${n}@example.com`, keyHash: `hash${n}` });
const link = (userId: number, n: number | string) => ({ userId, alias: `a${n}`, url: `https://example.com/${n}` });

async function open(schema = freshSchema()): Promise<PostgresStore> {
  return PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 4, listen: false });
}

/** A fold run on a connection of the test's own, as another process's would. */
async function foldElsewhere(schema: string, tables: string[]): Promise<void> {
  await withClient(async (c) => {
    await c.query(`SET search_path TO "${schema}"`);
    await foldKeptCounts((text, values) => c.query(text, values) as never, tables);
  });
}

/** count(*) of the rows themselves: of a table, or of one owner's. */
async function rowsIn(schema: string, table: string, owner?: number): Promise<number> {
  return withClient(async (c) => {
    const where = owner === undefined ? '' : ' WHERE user_id = $1';
    const { rows } = await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}"."${table}"${where}`, owner === undefined ? [] : [owner]);
    return Number(rows[0]!.n);
  });
}

/** The kept_counts rows of a table: [owner, n] in owner order. */
async function keptRows(schema: string, table: string): Promise<[number, number][]> {
  return withClient(async (c) => {
    const { rows } = await c.query<{ owner: string; n: string }>(`SELECT owner, n FROM "${schema}".kept_counts WHERE tbl = $1 ORDER BY owner, n`, [table]);
    return rows.map((r) => [Number(r.owner), Number(r.n)] as [number, number]);
  });
}

/** What the store answers for the table and each owner, next to count(*) of the rows. */
async function bothWays(store: PostgresStore, schema: string, table: string, owners: number[]) {
  const answered = [await store.count(table), ...(await Promise.all(owners.map((o) => store.count(table, { owner: o }))))];
  const counted = [await rowsIn(schema, table), ...(await Promise.all(owners.map((o) => rowsIn(schema, table, o))))];
  return { answered, counted };
}

if (URL) describe('PostgreSQL kept counts', () => {
  test('every collection but the statistics has its counts kept', async () => {
    const store = await open();
    try {
      const plans = (store as unknown as { plans: Map<string, { counted: boolean }> }).plans;
      const uncounted = [...plans].filter(([name, p]) => name !== STATS && !p.counted).map(([name]) => name);
      assert.deepEqual(uncounted, [], 'a table added by a later migration needs the triggers of 006');
      assert.equal(plans.get(STATS)?.counted, false);
    } finally {
      await store.close();
    }
  });

  test('inserts, removals, moves between owners, removeWhere and a user removed with all it owns: the totals match count(*)', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    try {
      const [a, b, c] = await store.transaction(async (tx) => [await tx.insert('users', user(1)), await tx.insert('users', user(2)), await tx.insert('users', user(3))]);
      const ids = { a: a!.id, b: b!.id, c: c!.id };
      const owners = [ids.a, ids.b, ids.c];
      // Several statements in one transaction, several transactions, one of them rolled back.
      await store.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.insert('links', link(ids.a, `a${i}`));
        for (let i = 0; i < 3; i++) await tx.insert('links', link(ids.b, `b${i}`));
      });
      await Promise.all([0, 1, 2, 3].map((i) => store.transaction((tx) => tx.insert('links', link(ids.c, `c${i}`)))));
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insert('links', link(ids.a, 'rolled-back'));
          throw new Error('no');
        }),
        /no/,
      );
      assert.deepEqual(await bothWays(store, schema, 'links', owners), { answered: [12, 5, 3, 4], counted: [12, 5, 3, 4] });
      // The page's total is the kept count; a filtered one still counts rows.
      const page = await store.find('links', { owner: ids.a, limit: 2 });
      assert.deepEqual([page.total, page.items.length], [5, 2]);
      const filtered = await store.find('links', { owner: ids.a, limit: 2, conditions: [{ field: 'alias', equals: 'aa1' }] });
      assert.deepEqual([filtered.total, filtered.items.length], [1, 1]);
      // The totals are read from kept_counts, not counted: a row added by hand shows in them.
      await withClient((cl) => cl.query(`INSERT INTO "${schema}".kept_counts (tbl, owner, n) VALUES ('links', $1, 100)`, [ids.b]));
      assert.deepEqual([await store.count('links', { owner: ids.b }), (await store.find('links', { owner: ids.b, limit: 1 })).total, await store.count('links')], [103, 103, 112]);
      // Taken back by a row of -100, not by deleting that row: a fold a second after the writes above may have summed it with the others already.
      await withClient((cl) => cl.query(`INSERT INTO "${schema}".kept_counts (tbl, owner, n) VALUES ('links', $1, -100)`, [ids.b]));

      const firstOfA = (await store.find<{ id: number }>('links', { owner: ids.a, limit: 1 })).items[0]!;
      await store.transaction(async (tx) => {
        await tx.remove('links', firstOfA.id);
        // A move: b's first link goes to c.
        const ofB = await tx.find<{ id: number }>('links', { owner: ids.b, limit: 1 });
        await tx.update('links', ofB.items[0]!.id, { userId: ids.c });
        // Inside the transaction the kept counts already tell its own writes.
        assert.equal(await tx.count('links', { owner: ids.a }), 4);
        assert.equal(await tx.count('links', { owner: ids.c }), 5);
      });
      assert.deepEqual(await bothWays(store, schema, 'links', owners), { answered: [11, 4, 2, 5], counted: [11, 4, 2, 5] });
      assert.equal(await store.transaction((tx) => tx.removeWhere('links', { owner: ids.c })), 5);
      assert.deepEqual(await bothWays(store, schema, 'links', owners), { answered: [6, 4, 2, 0], counted: [6, 4, 2, 0] });

      // A user removed: the database removes what it owns (ON DELETE CASCADE), whose triggers count it.
      await store.transaction((tx) => tx.remove('users', ids.a));
      assert.deepEqual(await bothWays(store, schema, 'links', owners), { answered: [2, 0, 2, 0], counted: [2, 0, 2, 0] });
      assert.deepEqual(await bothWays(store, schema, 'users', []), { answered: [2], counted: [2] });

      // Folded: one row per owner that has records, none for the owners that have none left.
      await foldElsewhere(schema, ['links', 'users']);
      assert.deepEqual(await keptRows(schema, 'links'), [[ids.b, 2]]);
      assert.deepEqual(await keptRows(schema, 'users'), [[0, 2]]);
      assert.deepEqual(await bothWays(store, schema, 'links', owners), { answered: [2, 0, 2, 0], counted: [2, 0, 2, 0] });
    } finally {
      await store.close();
    }
  });

  test('readers never see a fold half done, with folds from another process under way', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const reader = await open(schema);
    try {
      const owner = (await store.transaction((tx) => tx.insert('users', user(1)))).id;
      let stop = false;
      const seen: number[] = [];
      // Only inserts: each answer must be at least the one before, whatever folds run meanwhile.
      const reading = (async () => {
        while (!stop) seen.push(await reader.count('links', { owner }));
      })();
      for (let round = 0; round < 6; round++) {
        await Promise.all(Array.from({ length: 40 }, (_, i) => store.transaction((tx) => tx.insert('links', link(owner, `${round}-${i}`)))));
        // Folds by another process at the same moment: one of the two finds the lock taken.
        await Promise.all([foldElsewhere(schema, ['links']), new Promise((r) => setTimeout(r, 150))]);
      }
      stop = true;
      await reading;
      assert.ok(seen.length > 10, `only ${seen.length} reads`);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `read ${i} went back from ${seen[i - 1]} to ${seen[i]}`);
      assert.equal(await reader.count('links', { owner }), 240);
      assert.equal(await rowsIn(schema, 'links', owner), 240);
    } finally {
      await reader.close();
      await store.close();
    }
  });

  test("the store folds what it wrote about a second later, by itself", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    try {
      // Past the fold every store schedules at open, so that what folds below is the writes' own.
      await new Promise((r) => setTimeout(r, 1300));
      const started = Date.now();
      const owner = (await store.transaction((tx) => tx.insert('users', user(1)))).id;
      await Promise.all(Array.from({ length: 30 }, (_, i) => store.transaction((tx) => tx.insert('links', link(owner, i)))));
      const rows = (await keptRows(schema, 'links')).length;
      // Scattered right after the writes, unless they took as long as the fold waits (a busy machine): it may have run then.
      const took = Date.now() - started;
      assert.ok(rows > 1 || took >= FOLD_AFTER_MS, `${rows} rows ${took} ms after the writes began`);
      const until = Date.now() + 5000;
      while ((await keptRows(schema, 'links')).length > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(await keptRows(schema, 'links'), [[owner, 30]]);
      assert.deepEqual(await keptRows(schema, 'users'), [[0, 1]]);
    } finally {
      await store.close();
    }
  });

  test("each link has its kept clicks row (link_clicks) exactly while it exists: made with it, with the clicks its id already has, gone with it however it goes", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const clickRows = () => withClient(async (c) => (await c.query<{ link_id: string; clicks: string }>(`SELECT link_id, clicks FROM "${schema}".link_clicks ORDER BY link_id`)).rows.map((r) => [Number(r.link_id), Number(r.clicks)]));
    try {
      const [a, b] = await store.transaction(async (tx) => [(await tx.insert('users', user(1))).id, (await tx.insert('users', user(2))).id] as const);
      // Links 1-6, odd ids a's and even ids b's.
      await store.transaction(async (tx) => {
        for (let i = 0; i < 6; i++) await tx.insert('links', link(i % 2 === 0 ? a : b, i));
      });
      assert.deepEqual(await clickRows(), [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0]]);
      // A link put back under an id whose statistics are still there starts with their clicks.
      await store.addCounts([{ subject: 'link:40', day: '2024-01-01', owner: a, counts: { clicks: 5 } }, { subject: 'link:40', day: '2024-01-02', owner: a, counts: { clicks: 2 } }], 100);
      await store.transaction((tx) => tx.put('links', { id: 40, ...link(a, 40) }));
      assert.deepEqual((await clickRows()).at(-1), [40, 7]);
      await store.transaction((tx) => tx.remove('links', 1));
      await store.transaction((tx) => tx.removeWhere('links', { owner: a, ids: [3, 5] }));
      assert.deepEqual(await clickRows(), [[2, 0], [4, 0], [6, 0], [40, 7]]);
      // A user's links go by the users' foreign key's cascade: their rows with them.
      await store.transaction((tx) => tx.remove('users', b));
      assert.deepEqual(await clickRows(), [[40, 7]]);
      await store.replaceAll({ users: [{ id: 1, ...user(1) }], links: [{ id: 9, ...link(1, 9) }] });
      assert.deepEqual(await clickRows(), [[9, 0]]);
    } finally {
      await store.close();
    }
  });

  test('the kept clicks follow the statistics through flushes of many days: counts added, added to, removed, moved to another day', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    try {
      const owner = (await store.transaction((tx) => tx.insert('users', user(1)))).id;
      await store.transaction(async (tx) => {
        for (let i = 0; i < 300; i++) await tx.insert('links', link(owner, i));
      });
      // What link_clicks holds against what the statistics sum to, per link, where the two differ.
      const drift = () =>
        withClient(async (c) => {
          const { rows } = await c.query<{ link_id: string; kept: string; counted: string }>(
            `SELECT lc.link_id, lc.clicks AS kept, coalesce(s.n, 0) AS counted FROM "${schema}".link_clicks lc
             LEFT JOIN (SELECT substr(d.subject, 6)::bigint AS link_id, sum(c.n) AS n FROM "${schema}".stat_days d JOIN "${schema}".stat_counts c ON c.day_id = d.id
                        WHERE c.metric = 'clicks' AND c.is_total GROUP BY 1) s ON s.link_id = lc.link_id
             WHERE lc.clicks <> coalesce(s.n, 0) ORDER BY lc.link_id`,
          );
          return rows.map((r) => `${r.link_id}: ${r.kept} kept, ${r.counted} counted`);
        });
      const total = () => withClient(async (c) => Number((await c.query<{ n: string }>(`SELECT sum(clicks) AS n FROM "${schema}".link_clicks`)).rows[0]!.n));
      const flush = (n: number) => store.addCounts(
        Array.from({ length: 600 }, (_, i) => ({ subject: `link:${(i % 300) + 1}`, day: i < 300 ? '2024-02-01' : '2024-02-02', owner, counts: { clicks: n, visits: 1, country: { FR: n, [`c${i % 7}`]: 1 } } })),
        1000,
      );
      await flush(2); // every count row new: the insert trigger
      assert.deepEqual([await drift(), await total()], [[], 1200]);
      await flush(3); // every count row there: the update trigger
      assert.deepEqual([await drift(), await total()], [[], 3000]);
      await withClient(async (c) => {
        // Counts removed on their own, as an import rewriting a day does: the delete trigger.
        await c.query(`DELETE FROM "${schema}".stat_counts WHERE metric = 'clicks' AND day_id IN (SELECT id FROM "${schema}".stat_days WHERE subject IN ('link:1', 'link:2') AND day = '2024-02-01')`);
        // A count row moved to a day of another link: taken off the first, added to the second.
        await c.query(`INSERT INTO "${schema}".stat_days (subject, day, user_id) VALUES ('link:4', '2024-01-31', $1)`, [owner]);
        await c.query(
          `UPDATE "${schema}".stat_counts SET day_id = (SELECT id FROM "${schema}".stat_days WHERE subject = 'link:4' AND day = '2024-01-31')
           WHERE metric = 'clicks' AND day_id = (SELECT id FROM "${schema}".stat_days WHERE subject = 'link:3' AND day = '2024-02-02')`,
        );
      });
      assert.deepEqual(await drift(), []);
      assert.equal(await total(), 3000 - 2 * 5);
      const kept = await withClient(async (c) => (await c.query<{ link_id: string; clicks: string }>(`SELECT link_id, clicks FROM "${schema}".link_clicks WHERE link_id IN (1, 3, 4) ORDER BY link_id`)).rows.map((r) => [Number(r.link_id), Number(r.clicks)]));
      assert.deepEqual(kept, [[1, 5], [3, 5], [4, 15]]);
    } finally {
      await store.close();
    }
  });

  test('counts doubled (as a data-only restore leaves them): migrate --recount rebuilds them from the rows', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    try {
      const owner = (await store.transaction((tx) => tx.insert('users', user(1)))).id;
      await store.transaction(async (tx) => {
        for (let i = 0; i < 4; i++) await tx.insert('links', link(owner, i));
      });
      // pg_restore --data-only copies kept_counts and its COPY of the rows fires the triggers again.
      await withClient((c) => c.query(`INSERT INTO "${schema}".kept_counts SELECT * FROM "${schema}".kept_counts`));
      assert.deepEqual(await bothWays(store, schema, 'links', [owner]), { answered: [8, 8], counted: [4, 4] });
      // The links' kept clicks totals (migration 014) as a dump may bring them: rebuilt from the statistics too.
      await store.addCounts([{ subject: 'link:2', day: '2024-01-01', owner, counts: { clicks: 3 } }], 100);
      await withClient((c) => c.query(`UPDATE "${schema}".link_clicks SET clicks = 99 WHERE link_id <> 2`));
      const clickTotals = () => withClient(async (c) => (await c.query<{ link_id: string; clicks: string }>(`SELECT link_id, clicks FROM "${schema}".link_clicks ORDER BY link_id`)).rows.map((r) => [Number(r.link_id), Number(r.clicks)]));
      const out: string[] = [];
      const errors: string[] = [];
      const code = await runMigrate(['--database-url', URL!, '--database-schema', schema, '--recount'], (l) => out.push(l), (l) => errors.push(l));
      assert.deepEqual([code, errors], [0, []]);
      // Every table but the statistics' has its counts kept (the first test of this file).
      const tables = [...(store as unknown as { plans: Map<string, unknown> }).plans.keys()].filter((name) => name !== STATS).length;
      assert.match(out.join('\n'), new RegExp(`^The database schema is at version \\d+: nothing to do\\.\\nRecounted ${tables} tables; corrected: links 8 → 4, users 2 → 1$`));
      assert.deepEqual(await bothWays(store, schema, 'links', [owner]), { answered: [4, 4], counted: [4, 4] });
      assert.deepEqual(await keptRows(schema, 'links'), [[owner, 4]]);
      assert.deepEqual(await clickTotals(), [[1, 0], [2, 3], [3, 0], [4, 0]]);
      // Again: nothing left to correct.
      out.length = 0;
      assert.equal(await runMigrate(['--database-url', URL!, '--database-schema', schema, '--recount'], (l) => out.push(l), (l) => errors.push(l)), 0);
      assert.equal(out[1], `Recounted ${tables} tables: every kept count matched the rows.`);
    } finally {
      await store.close();
    }
  });

  test('a schema of version 5 with records in it: migration 006 counts them, and a replaceAll starts the counts again', async () => {
    const schema = freshSchema();
    const migrations = await loadMigrations();
    await withClient(async (c) => {
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(`SET search_path TO "${schema}"`);
      await migrateWith(c, schema, migrations.slice(0, 5));
      await c.query(`INSERT INTO users (data, username) VALUES ('{}', 'u1'), ('{}', 'u2')`);
      await c.query(`INSERT INTO links (user_id, data) SELECT 1 + (g % 2), '{}' FROM generate_series(1, 7) g`);
      await c.query(`INSERT INTO qrs (user_id, data) VALUES (NULL, '{}')`);
    });
    const store = await open(schema);
    try {
      assert.deepEqual(await bothWays(store, schema, 'links', [1, 2]), { answered: [7, 3, 4], counted: [7, 3, 4] });
      assert.deepEqual(await bothWays(store, schema, 'qrs', []), { answered: [1], counted: [1] });
      // Ownerless records count in the table's total, and no owner id 0 exists to ask for.
      assert.equal(await store.count('qrs', { owner: 0 }), 0);

      await store.replaceAll({ users: [{ id: 5, ...user(5) }], links: [{ id: 9, ...link(5, 'x') }, { id: 10, ...link(5, 'y') }] });
      assert.deepEqual(await bothWays(store, schema, 'links', [1, 2, 5]), { answered: [2, 0, 0, 2], counted: [2, 0, 0, 2] });
      assert.deepEqual(await bothWays(store, schema, 'qrs', []), { answered: [0], counted: [0] });
    } finally {
      await store.close();
    }
  });
});
