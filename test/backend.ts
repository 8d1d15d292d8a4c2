/**
 * Which storage backend this test process runs on: the JSON-file store (in memory), or PostgreSQL
 * when the test runner's PostgreSQL pass set TEST_STORE=postgres (with TEST_DATABASE_URL). On
 * PostgreSQL every store gets a schema of its own, fresh or emptied after a finished test gave its
 * store back (releaseTestStore); when the file's tests are done it is dropped, or, under `npm test`,
 * emptied and given to the run's pool for a later test process (test/schema-pool.ts).
 */
import { appendFileSync } from 'node:fs';
import { after } from 'node:test';
import pg from 'pg';
import { AUDIT } from '../src/audit/audit-log.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import type { Resource } from '../src/resources/define.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { loadMigrations } from '../src/store/postgres/migrate.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { Store } from '../src/store/store.ts';
import { POOL_RUN, givePooled, takePooled, testSchemaPrefix } from './schema-pool.ts';

/** The backend of this pass. */
export const TEST_BACKEND: 'file' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'file';

const url = process.env.TEST_DATABASE_URL;
if (TEST_BACKEND === 'postgres' && !url) throw new Error('TEST_STORE=postgres needs TEST_DATABASE_URL');

const schemas: string[] = [];
const stores: Store[] = [];
const schemaOf = new WeakMap<Store, string>();
let admin: pg.Client | null = null;
const hashQueries = new Map<string, string>();
let made = 0;

/** A schema name no other test process uses. */
export function freshSchema(): string {
  const name = `${testSchemaPrefix()}${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(name);
  return name;
}

/** The settings that put a server process (or an in-process server) on this pass's backend: a fresh PostgreSQL schema, or nothing. */
export function backendEnv(): Record<string, string> {
  return TEST_BACKEND === 'postgres' ? { DATABASE_URL: url!, DATABASE_SCHEMA: freshSchema() } : {};
}

// Schemas of released stores (releaseTestStore), emptied, for the next openTestStore: migrating a
// fresh schema (34 tables, 87 indexes, 162 triggers) costs PostgreSQL 0.3–1 s of CPU, emptying one ~20 ms.
const spare: string[] = [];
// Schemas a second store was opened on (secondStoreOf).
const shared = new Set<string>();
// Schemas of openTestStore and copyOfTestStore: migrated by the store, fit for the run's pool once emptied.
const poolable = new Set<string>();

/**
 * Empties a released store's schema as a fresh one is: every row of every table but the migrations'
 * gone (triggers and foreign keys off for it: session_replication_role, a superuser's setting) and
 * every sequence back to 1. False when that cannot be done (not a superuser): the caller makes a fresh schema.
 */
async function emptied(schema: string): Promise<boolean> {
  const db = await adminClient();
  const { rows } = await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'", [schema]);
  const deletes = rows.map((r) => `DELETE FROM "${schema}"."${r.name}"`).join('; ');
  try {
    await db.query(`BEGIN; SET LOCAL session_replication_role = replica; ${deletes}; SELECT setval(c.oid, 1, false) FROM pg_class c WHERE c.relnamespace = '"${schema}"'::regnamespace AND c.relkind = 'S'; COMMIT`);
    return true;
  } catch {
    await db.query('ROLLBACK').catch(() => {});
    return false;
  }
}

/**
 * The schema of a new test store: one this process emptied (a released store's), else one of the
 * run's pool (another process's, emptied), else a fresh one, which the store migrates as it opens.
 */
async function schemaToOpen(): Promise<{ schema: string; fresh: boolean }> {
  const reused = spare.pop();
  let schema = reused !== undefined && (await emptied(reused)) ? reused : undefined;
  if (schema === undefined && POOL_RUN) {
    schema = await takePooled(await adminClient(), POOL_RUN);
    if (schema !== undefined) schemas.push(schema);
  }
  // The runner counts both kinds (TEST_SCHEMA_LOG): `npm test` prints them.
  if (process.env.TEST_SCHEMA_LOG) appendFileSync(process.env.TEST_SCHEMA_LOG, schema === undefined ? 'migrated\n' : 'reused\n');
  const fresh = schema === undefined;
  schema ??= freshSchema();
  poolable.add(schema);
  return { schema, fresh };
}

/** A fresh, empty store of the whole resource table (or of `rows`) on this pass's backend. */
export async function openTestStore(rows: readonly Resource[] = RESOURCES): Promise<Store> {
  if (TEST_BACKEND === 'file') return FileStore.open({ dir: ':memory:', collections: storeSchema(rows) });
  const { schema } = await schemaToOpen();
  // The only process on its fresh schema: no listening connection (a file opens dozens of stores
  // and keeps them to its end; one connection each would exhaust max_connections). The change
  // feed is tested with real processes in instances.test.ts and in postgres.test.ts.
  const store = await PostgresStore.open({ url: url!, schema, collections: storeSchema(rows), poolSize: 3, listen: false });
  stores.push(store);
  schemaOf.set(store, schema);
  return store;
}

/**
 * On PostgreSQL, a store holding a copy of everything `template` (a store of openTestStore) holds:
 * its rows copied table by table into an emptied or fresh schema, with the triggers off as the
 * rows come in as they are (counts, totals and positions included), and every sequence where the
 * template's is. Far cheaper than building the same records again through the app. The template
 * must not be written meanwhile. Undefined on the file store (its stores are cheap to fill).
 */
export async function copyOfTestStore(template: Store, rows: readonly Resource[] = RESOURCES): Promise<Store | undefined> {
  const from = schemaOf.get(template);
  if (from === undefined) return undefined;
  const { schema, fresh } = await schemaToOpen();
  // A fresh schema is migrated by the store as it opens: opened (and closed) before the copy.
  if (fresh) await (await PostgresStore.open({ url: url!, schema, collections: storeSchema(rows), poolSize: 1, listen: false })).close();
  const db = await adminClient();
  const { rows: tables } = await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations' ORDER BY 1", [from]);
  const { rows: sequences } = await db.query<{ name: string }>("SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'S'", [from]);
  const copies = tables.map((t) => `INSERT INTO "${schema}"."${t.name}" OVERRIDING SYSTEM VALUE SELECT * FROM "${from}"."${t.name}"`);
  const positions = sequences.map((q) => `SELECT setval('"${schema}"."${q.name}"', last_value, is_called) FROM "${from}"."${q.name}"`);
  await db.query(`BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL session_replication_role = replica; ${[...copies, ...positions].join('; ')}; COMMIT`);
  const store = await PostgresStore.open({ url: url!, schema, collections: storeSchema(rows), poolSize: 3, listen: false });
  stores.push(store);
  schemaOf.set(store, schema);
  return store;
}

/**
 * Closes a store of openTestStore that nothing uses any more; on PostgreSQL its schema is emptied
 * and opened again by a later openTestStore instead of a fresh one migrated. Nothing may use the
 * store afterwards, nor a second store on its data (secondStoreOf).
 */
export async function releaseTestStore(store: Store): Promise<void> {
  const at = stores.indexOf(store);
  if (at < 0) return;
  stores.splice(at, 1);
  // A test may have closed it already (a restart, a shutdown it tests).
  await store.close().catch(() => {});
  const schema = schemaOf.get(store);
  if (schema !== undefined && !shared.has(schema)) spare.push(schema);
}

/**
 * Another store on the same data, as a second server process has: on PostgreSQL a store of its own
 * (its pool, its caches) on the same schema, hearing the others' changes only with `listen`; the
 * file store is one process's, so it is the same one.
 */
export async function secondStoreOf(store: Store, rows: readonly Resource[] = RESOURCES, options: { listen?: boolean } = {}): Promise<Store> {
  const schema = schemaOf.get(store);
  if (!schema) return store;
  // A store on the schema outlives the first one's release: the schema is never reused.
  shared.add(schema);
  const second = await PostgresStore.open({ url: url!, schema, collections: storeSchema(rows), poolSize: 3, listen: options.listen ?? false });
  stores.push(second);
  return second;
}

/**
 * Everything a store holds, as one string, to prove that a refused request stored nothing. On
 * PostgreSQL one query hashes every table of the store's schema (reading each collection through
 * the interface after every request of a fuzz run would make it ten times slower). The audit log
 * is left out: it records refused writes too, by design (audit.test.ts checks what it holds); so
 * are the server's own secrets (shared_values), agreed the first time a page needs one, whatever
 * the request: the file store keeps them outside its collections.
 */
export async function fingerprint(store: Store, collections: readonly string[]): Promise<string> {
  const schema = schemaOf.get(store);
  if (!schema) {
    const all: unknown[] = [];
    for (const c of collections) if (c !== AUDIT) for await (const batch of store.scan(c)) all.push(c, batch);
    return JSON.stringify(all);
  }
  const db = await adminClient();
  let sql = hashQueries.get(schema);
  if (!sql) {
    const { rows } = await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename NOT IN ('visitor_ledger', 'shared_values', $2) ORDER BY 1", [schema, AUDIT]);
    // kept_counts is compared by what it says (each owner's sum), not by its rows: a fold in the
    // background replaces rows by their sum and changes nothing.
    const source = (name: string) =>
      name === 'kept_counts' ? `(SELECT tbl, owner, sum(n) AS n FROM "${schema}".kept_counts WHERE tbl <> '${AUDIT}' GROUP BY tbl, owner HAVING sum(n) <> 0) t` : `"${schema}"."${name}" t`;
    const parts = rows.map((r) => `SELECT '${r.name}:' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM ${source(r.name)}`);
    hashQueries.set(schema, (sql = `SELECT string_agg(h, ';') AS h FROM (${parts.join(' UNION ALL ')}) AS x(h)`));
  }
  const { rows: hashes } = await db.query<{ h: string }>(sql);
  return hashes[0]?.h ?? '';
}

/** How many statements of the store's schema now wait for a lock another transaction holds. */
async function lockWaiters(schema: string): Promise<number> {
  const { rows } = await (await adminClient()).query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [`shortlink-server/${schema}`]);
  return rows[0]?.n ?? 0;
}

/** Waits until `waiters` statements of the schema's stores wait for a lock another transaction holds, or 10 s went by. */
export async function untilLockWaiters(schema: string, waiters = 1): Promise<void> {
  const until = Date.now() + 10_000;
  while ((await lockWaiters(schema)) < waiters && Date.now() <= until) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Whether a statement of `store` now waits for a lock another transaction holds (the file store's never do). */
export async function waitsOnLock(store: Store): Promise<boolean> {
  const schema = schemaOf.get(store);
  return schema ? (await lockWaiters(schema)) > 0 : false;
}

/** Runs `fn` in a transaction of another session that first runs `lock`; rolled back at the end. */
async function inOtherSession<T>(lock: (other: pg.Client) => Promise<unknown>, fn: (other: pg.Client) => Promise<T>): Promise<T> {
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    await other.query('BEGIN');
    await lock(other);
    return await fn(other);
  } finally {
    await other.query('ROLLBACK').catch(() => {});
    await other.end();
  }
}

/**
 * Runs `fn` while another session holds the row `id` of `table` locked (FOR UPDATE), until
 * `waiters` statements of the store's schema wait for a lock (or 10 s pass); then lets go and
 * waits for `fn`. On the file store, `fn` simply runs.
 */
export async function underRowLock<T>(store: Store, table: string, id: number, waiters: number, fn: () => Promise<T>): Promise<T> {
  const schema = schemaOf.get(store);
  if (!schema) return fn();
  return inOtherSession(
    (other) => other.query(`SELECT 1 FROM "${schema}"."${table}" WHERE id = $1 FOR UPDATE`, [id]),
    async (other) => {
      const running = fn();
      running.catch(() => {});
      await untilLockWaiters(schema, waiters);
      await other.query('ROLLBACK');
      return running;
    },
  );
}

/**
 * Runs `fn` while another session holds the transaction-scoped advisory lock `name` keys in the
 * store's schema (hashtext(name || schema), as the store takes it): what the store does meanwhile
 * sees another process at it. On the file store, `fn` simply runs.
 */
export async function whileLockedElsewhere<T>(store: Store, name: string, fn: () => Promise<T>): Promise<T> {
  const schema = schemaOf.get(store);
  if (!schema) return fn();
  return inOtherSession((other) => other.query('SELECT pg_advisory_xact_lock(hashtext($1 || $2))', [name, schema]), fn);
}

/** How many PostgreSQL transactions wrote these rows of a table (distinct xmin); the file store has no such thing (0). */
export async function transactionsOf(store: Store, table: string, ids: readonly number[]): Promise<number> {
  const schema = schemaOf.get(store);
  if (!schema) return 0;
  const { rows } = await (await adminClient()).query<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM "${schema}"."${table}" WHERE id = ANY($1::bigint[])`, [ids]);
  return rows[0]?.n ?? 0;
}

/** The schema's migrations: how many ran (0 when it has none). */
async function migratedTo(db: pg.Client, schema: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`).catch(() => ({ rows: [{ n: 0 }] }));
  return rows[0]?.n ?? 0;
}

async function adminClient(): Promise<pg.Client> {
  if (!admin) {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  }
  return admin;
}

// Registered whenever a database is given, not only in the PostgreSQL pass: PostgreSQL-only files
// (which run in the file pass too) make schemas with freshSchema() and count on them being dropped.
if (url) {
  after(async () => {
    await Promise.allSettled(stores.map((s) => s.close()));
    if (schemas.length === 0) {
      await admin?.end();
      return;
    }
    const client = await adminClient();
    try {
      const latest = POOL_RUN ? (await loadMigrations()).length : 0;
      for (const name of schemas) {
        // Into the run's pool when it is as the migrations made it, emptied; else dropped.
        if (POOL_RUN && poolable.has(name) && !shared.has(name) && (await migratedTo(client, name)) === latest && (await emptied(name))) {
          const given = await givePooled(client, POOL_RUN, name).then(() => true, () => false);
          if (given) continue;
        }
        await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      }
    } finally {
      admin = null;
      await client.end();
    }
  });
}
