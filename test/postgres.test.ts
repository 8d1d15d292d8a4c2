import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { loadMigrations, migrate, migrateWith } from '../src/store/postgres/migrate.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { PostgresStoreOptions } from '../src/store/postgres/postgres-store.ts';
import { ConflictError, StoreUnavailableError } from '../src/store/store.ts';
import { recordQueries } from './pg-client.ts';

/**
 * What only PostgreSQL has: migrations, several servers on one database, and a database that goes
 * away. Each test uses a fresh schema of its own, dropped at the end; the server is never stopped.
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('postgres: PostgreSQL tests skipped (TEST_DATABASE_URL is not set)');

const COLLECTIONS = storeSchema(RESOURCES);
const schemas: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms for at most `ms`; whether it came true. */
async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; !check(); await sleep(20)) if (Date.now() > until) return false;
  return true;
}

function freshSchema(): string {
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  schemas.push(name);
  return name;
}

/** A plain connection of the test's own, outside any store. */
async function admin<R>(fn: (c: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function open(schema: string, extra: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
  return PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 4, ...extra });
}

const user = (n: number, extra: Record<string, unknown> = {}) => ({ username: `user${n}`, email: `user${n}@example.com`, keyHash: `hash${n}`, ...extra });

// Without a database the file defines no test at all: the line above is its whole output.
if (URL) describe('PostgreSQL store', () => {
  after(async () => {
    await admin(async (c) => {
      for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    });
  });

  test('migrations run from an empty schema once, and a second run finds nothing to do', async () => {
    const schema = freshSchema();
    const first = await migrate(URL!, schema);
    // Every file, in order (read from the directory, so a new migration needs no edit here).
    const files = await loadMigrations();
    assert.deepEqual(files.slice(0, 2).map((m) => m.name), ['initial', 'counter-batches']);
    assert.ok(files.some((m) => m.name === 'shared-values'));
    const last = files.length;
    assert.deepEqual(first, { from: 0, to: last, applied: files.map((m) => `${String(m.version).padStart(3, '0')}-${m.name}`) });
    const second = await migrate(URL!, schema);
    assert.deepEqual(second, { from: last, to: last, applied: [] });
    const tables = await admin(async (c) => {
      const { rows } = await c.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema]);
      return rows.map((r) => r.t);
    });
    for (const t of ['users', 'links', 'websites', 'stat_days', 'stat_counts', 'stats', 'visitor_ledger', 'shared_values', 'visitor_sightings', 'schema_migrations']) assert.ok(tables.includes(t), t);
  });

  test('a database migrated past this code refuses to open, saying so', async () => {
    const schema = freshSchema();
    await migrate(URL!, schema);
    await admin((c) => c.query(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES (70, 'from-the-future')`));
    const message = `The database schema is at version 70, newer than this server's ${(await loadMigrations()).length}: upgrade the server.`;
    await assert.rejects(open(schema), (err: unknown) => err instanceof Error && err.message === message);
    await assert.rejects(migrate(URL!, schema), (err: unknown) => err instanceof Error && err.message === message);
  });

  test('two servers opening an empty schema together migrate it once', async () => {
    const schema = freshSchema();
    const stores = await Promise.all([open(schema), open(schema), open(schema)]);
    try {
      const rows = await admin(async (c) => (await c.query<{ version: number; name: string }>(`SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`)).rows);
      assert.deepEqual(rows, (await loadMigrations()).map((m) => ({ version: m.version, name: m.name })));
      // All three work on the same tables.
      await stores[0]!.transaction((tx) => tx.insert('users', user(1)));
      assert.equal((await stores[2]!.get('users', 1))?.username, 'user1');
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('a server whose collections have an index the database lacks refuses to open', async () => {
    const schema = freshSchema();
    const collections = COLLECTIONS.map((c) => (c.name === 'pixels' ? { name: 'pixels', indexes: { tag: { key: () => 'x' } } } : c));
    await assert.rejects(open(schema, { collections }), /table "pixels" has no column k_tag for the index "tag": a migration is missing/);
    const unique = COLLECTIONS.map((c) => (c.name === 'links' ? { name: 'links', indexes: { alias: { key: () => 'x', unique: true }, same: { key: () => null, unique: true } } } : c));
    await assert.rejects(open(schema, { collections: unique }), /"links\.same" is unique in this server but not in the database/);
  });

  test('two concurrent transactions taking the same unique key: one wins, the other gets ConflictError', async () => {
    const store = await open(freshSchema());
    try {
      const first = store.transaction(async (tx) => {
        const u = await tx.insert('users', user(1, { email: 'same@example.com' }));
        await sleep(150);
        return u.id;
      });
      const second = (async () => {
        await sleep(30);
        return store.transaction(async (tx) => (await tx.insert('users', user(2, { email: 'SAME@example.com' }))).id);
      })();
      const [a, b] = await Promise.allSettled([first, second]);
      assert.equal(a.status, 'fulfilled');
      assert.equal(b.status, 'rejected');
      const reason = (b as PromiseRejectedResult).reason as unknown;
      assert.ok(reason instanceof ConflictError, String(reason));
      assert.deepEqual([reason.collection, reason.index], ['users', 'email']);
      assert.equal(await store.count('users'), 1);
    } finally {
      await store.close();
    }
  });

  test('links inserted together cannot take a file\'s alias, even one written at the same time (migration 009\'s statement trigger)', async () => {
    const store = await open(freshSchema());
    try {
      const owner = await store.transaction((tx) => tx.insert('users', user(1)));
      const link = (alias: string) => ({ userId: owner.id, alias, domainId: null, url: `https://example.com/${alias}`, type: 'direct', splashId: null, overlayId: null, password: null });
      const file = (alias: string) => ({ userId: owner.id, alias, domainId: null, name: alias, filename: `${alias}.txt` });
      await store.transaction((tx) => tx.insert('files', file('held')));
      const [a, held, b] = await store.transaction((tx) => tx.insertMany('links', [link('a-1'), link('held'), link('b-1')]));
      assert.ok(held instanceof ConflictError && held.collection === 'links' && held.index === 'alias', String(held));
      assert.deepEqual([(a as { alias: string }).alias, (b as { alias: string }).alias], ['a-1', 'b-1']);
      // A file written while the links' transaction is open waits for it, then sees the link.
      const links = store.transaction(async (tx) => {
        const stored = await tx.insertMany('links', [link('c-1'), link('race-1')]);
        await sleep(150);
        return stored;
      });
      const racing = (async () => {
        await sleep(30);
        return store.transaction((tx) => tx.insert('files', file('race-1')));
      })();
      const [l, f] = await Promise.allSettled([links, racing]);
      assert.equal(l.status, 'fulfilled');
      assert.ok(f.status === 'rejected' && f.reason instanceof ConflictError && f.reason.collection === 'files', String((f as PromiseRejectedResult).reason));
      // And links written while a file's transaction is open wait for it, then see the file.
      const fileFirst = store.transaction(async (tx) => {
        await tx.insert('files', file('race-2'));
        await sleep(150);
      });
      const after = (async () => {
        await sleep(30);
        return store.transaction((tx) => tx.insertMany('links', [link('d-1'), link('race-2'), link('e-1')]));
      })();
      await fileFirst;
      const results = await after;
      assert.ok(results[1] instanceof ConflictError, String(results[1]));
      assert.deepEqual(results.filter((r) => !(r instanceof ConflictError)).map((r) => (r as { alias: string }).alias), ['d-1', 'e-1']);
      assert.equal(await store.count('links'), 6);
      assert.equal(await store.count('files'), 2);
    } finally {
      await store.close();
    }
  });

  test('a deadlock between two transactions is resolved by running the loser again', async () => {
    const store = await open(freshSchema());
    try {
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        await tx.insert('users', user(2));
      });
      let runs = 0;
      // Each goes for the other's row only once both hold their own (not after a sleep that a loaded
      // machine may outlast): the first runs deadlock for certain; a run again finds the barrier down.
      let arrived = 0;
      let bothHold!: () => void;
      const barrier = new Promise<void>((resolve) => (bothHold = resolve));
      const crosswise = (first: number, second: number) =>
        store.transaction(async (tx) => {
          runs++;
          await tx.update('users', first, { [`by${first}`]: true });
          if (++arrived === 2) bothHold();
          await barrier;
          await tx.update('users', second, { [`by${first}`]: true });
          return first;
        });
      assert.deepEqual(await Promise.all([crosswise(1, 2), crosswise(2, 1)]), [1, 2]);
      assert.ok(runs >= 3, `${runs} runs: the loser ran again`);
      const both = { by1: true, by2: true };
      assert.deepEqual([await store.get('users', 1), await store.get('users', 2)], [{ id: 1, ...user(1), ...both }, { id: 2, ...user(2), ...both }]);
    } finally {
      await store.close();
    }
  });

  test('counters flushed by several servers at once add up, and the label cap holds exactly', async () => {
    const schema = freshSchema();
    // What is asserted is the sums, not how fast 24 flushes on one row go: on a loaded machine a
    // connection or a flush waiting its turn took longer than the 2 s and 5 s defaults (full runs of 2026-11-27).
    const patient = { connectTimeoutMs: 20_000, statementTimeoutMs: 30_000 };
    const a = await open(schema, patient);
    const b = await open(schema, patient);
    try {
      await a.transaction((tx) => tx.insert('users', user(1)));
      const flushes = Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? a : b).addCounts([{ subject: 'link:1', day: '2024-06-01', owner: 1, counts: { clicks: 1, country: { [`C${i}`]: 1 } } }], 5),
      );
      await Promise.all(flushes);
      const [day] = await a.countedDays('link:1');
      const country = { ...(day!.counts.country as Record<string, number>) };
      assert.equal(day!.counts.clicks, 24);
      assert.equal(Object.keys(country).length, 6);
      assert.equal(country['(other)'], 19);
      assert.equal(Object.values(country).reduce((x, y) => x + y, 0), 24);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a counter batch written again under its id (its COMMIT answer lost) is added once, also from another server', async () => {
    const schema = freshSchema();
    const a = await open(schema);
    const b = await open(schema);
    try {
      const delta = [{ subject: 'link:9', day: '2024-06-02', counts: { clicks: 3 } }];
      await a.addCounts(delta, 10, 'batch-1');
      await a.addCounts(delta, 10, 'batch-1');
      await b.addCounts(delta, 10, 'batch-1');
      await Promise.all([a.addCounts(delta, 10, 'batch-2'), b.addCounts(delta, 10, 'batch-2')]);
      await a.addCounts(delta, 10);
      assert.equal((await a.countedDays('link:9'))[0]?.counts.clicks, 9);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a counters flush tells other servers after its COMMIT, in the same message; a batch already stored tells nobody", async () => {
    const schema = freshSchema();
    const a = await open(schema, { listen: false });
    const b = await open(schema);
    const recorded = recordQueries();
    const notifying = () => recorded.sent.map((q) => q.text).filter((t) => t.includes('pg_notify'));
    try {
      const delta = [{ subject: 'link:7', day: '2024-06-03', counts: { clicks: 2 } }];
      const before = b.version('stats');
      await a.addCounts(delta, 10, 'flush-1');
      assert.equal(notifying().length, 1, notifying().join(' | '));
      assert.match(notifying()[0]!, /^COMMIT; SELECT pg_notify\(/);
      for (const until = Date.now() + 2000; b.version('stats') === before && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
      assert.ok(b.version('stats') > before, 'the other server heard the flush');
      recorded.sent.length = 0;
      await a.addCounts(delta, 10, 'flush-1');
      assert.equal(notifying().length, 0, 'the same batch again: nothing written, nothing told');
      assert.equal((await a.countedDays('link:7'))[0]?.counts.clicks, 2);
    } finally {
      recorded.restore();
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a schema at every earlier version is brought up to the newest by the next open', async () => {
    const migrations = await loadMigrations();
    assert.ok(migrations.length > 1);
    for (let at = 1; at < migrations.length; at++) {
      const schema = freshSchema();
      await admin(async (c) => {
        await c.query(`SET search_path TO "${schema}"`);
        await migrateWith(c, schema, migrations.slice(0, at));
      });
      const reached = await admin(async (c) => (await c.query<{ v: number }>(`SELECT max(version) AS v FROM "${schema}".schema_migrations`)).rows[0]!.v);
      assert.equal(reached, at);
      const store = await open(schema);
      try {
        // The store works on what the later migrations added: a user and a link, counted.
        await store.transaction(async (tx) => {
          await tx.insert('users', user(1));
          await tx.insert('links', { userId: 1, alias: 'a', domainId: null });
        });
        assert.equal(await store.count('links', { owner: 1 }), 1, `from version ${at}`);
      } finally {
        await store.close();
      }
      const rows = await admin(async (c) => (await c.query<{ version: number }>(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`)).rows);
      assert.deepEqual(rows.map((r) => r.version), migrations.map((m) => m.version), `from version ${at}`);
    }
  });

  test("two stores on one schema hear each other's writes within a second, only the collections written; a store on another schema hears nothing", async () => {
    const schema = freshSchema();
    const [a, b, other] = await Promise.all([open(schema), open(schema), open(freshSchema())]);
    try {
      const before = { users: b.version('users'), links: b.version('links'), revision: b.revision(), elsewhere: other.revision() };
      const own = a.version('users');
      await a.transaction((tx) => tx.insert('users', user(1)));
      assert.ok(await waitUntil(() => b.version('users') !== before.users, 1000), 'B heard the write of users');
      assert.notEqual(b.revision(), before.revision);
      assert.equal(b.version('links'), before.links, 'links were not written');
      // A's own message is ignored: its version moved once, by its own commit.
      await sleep(200);
      assert.equal(a.version('users'), own + 1);
      assert.equal(other.revision(), before.elsewhere, 'another schema never hears it');
      // A rolled-back transaction sends nothing.
      const quiet = b.revision();
      await assert.rejects(a.transaction(async (tx) => {
        await tx.insert('links', { userId: 1, alias: 'gone', domainId: null });
        throw new Error('rolled back');
      }));
      await sleep(300);
      assert.equal(b.revision(), quiet);
    } finally {
      await Promise.all([a, b, other].map((s) => s.close()));
    }
  });

  test('deleting a user deletes its counts through the foreign keys, not just its records', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    try {
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        await tx.insert('links', { userId: 1, alias: 'a', domainId: null });
      });
      await store.addCounts([{ subject: 'link:1', day: '2024-01-01', owner: 1, counts: { clicks: 1, country: { FR: 1 } } }], 10);
      await store.transaction((tx) => tx.remove('users', 1));
      const left = await admin(async (c) => (await c.query<{ n: number }>(`SELECT (SELECT count(*) FROM "${schema}".stat_days) + (SELECT count(*) FROM "${schema}".stat_counts) + (SELECT count(*) FROM "${schema}".links) AS n`)).rows[0]!.n);
      assert.equal(Number(left), 0);
    } finally {
      await store.close();
    }
  });

  test('connections terminated by the server: the next query fails as unavailable or succeeds, and the pool recovers without reopening', async () => {
    const schema = freshSchema();
    const app = `contract-${schema}`;
    const store = await open(schema, { applicationName: app });
    try {
      await store.transaction((tx) => tx.insert('users', user(1)));
      // Several connections in the pool, idle.
      await Promise.all([1, 2, 3].map(() => store.get('users', 1)));
      const terminate = () =>
        admin(async (c) => (await c.query<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [app])).rows[0]!.n);
      assert.ok((await terminate()) > 0);
      await sleep(50);
      const next = await store.get('users', 1).then(
        (u) => u?.username,
        (err: unknown) => err,
      );
      assert.ok(next === 'user1' || next instanceof StoreUnavailableError, String(next));
      assert.equal((await store.get('users', 1))?.username, 'user1');
      // Terminated in the middle of a transaction: that transaction fails as unavailable, nothing of it is kept.
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insert('users', user(2));
          await terminate();
          await sleep(50);
          await tx.insert('users', user(3));
        }),
        (err: unknown) => err instanceof StoreUnavailableError && !/INSERT|SELECT/.test(err.message),
      );
      assert.equal(await store.count('users'), 1);
      await store.transaction((tx) => tx.insert('users', user(4)));
      assert.equal(await store.count('users'), 2);
    } finally {
      await store.close();
    }
  });

  test('a statement that waits too long (a row lock held elsewhere) fails as unavailable instead of hanging', async () => {
    const schema = freshSchema();
    const store = await open(schema, { statementTimeoutMs: 300 });
    try {
      await store.transaction((tx) => tx.insert('users', user(1)));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holder = store.transaction(async (tx) => {
        await tx.update('users', 1, { admin: true });
        await held;
      });
      await sleep(50);
      const started = Date.now();
      await assert.rejects(
        store.transaction((tx) => tx.update('users', 1, { admin: false })),
        (err: unknown) => err instanceof StoreUnavailableError && /timed out/.test(err.message),
      );
      assert.ok(Date.now() - started < 3000);
      release();
      await holder;
      assert.equal((await store.get('users', 1))?.admin, true);
    } finally {
      await store.close();
    }
  });

  test('an unreachable database: StoreUnavailableError naming host, port and database, never the password, quickly', async () => {
    const started = Date.now();
    await assert.rejects(
      PostgresStore.open({ url: 'postgres://someone:s3cret-pw@127.0.0.1:1/appdb', collections: COLLECTIONS }),
      (err: unknown) => {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        assert.match(err.message, /127\.0\.0\.1:1\/appdb/);
        assert.doesNotMatch(err.message, /s3cret/);
        assert.doesNotMatch(String((err as Error).stack), /s3cret/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 5000, 'bounded by the connection timeout');
  });
});
