/**
 * Migrated, emptied PostgreSQL schemas handed from one test process of a run to the next: a process
 * that is done gives its stores' schemas back (emptied) instead of dropping them, and a later one
 * takes one instead of migrating a fresh schema (34 tables, 87 indexes, 162 triggers: ~0.45 s of
 * PostgreSQL's time to make, about as much to drop; emptying one costs ~20 ms). The pool belongs to
 * one `npm test` run (TEST_SCHEMA_POOL names it); the runner makes it and drops what is left in it.
 * The schemas keep their names: the migrations' functions name their tables with the schema.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { alive } from './runner/process-alive.ts';

const POOL = 'test_schema_pool';

/** The run whose pool this process uses (set by test/run.ts), if any. */
export const POOL_RUN = process.env.TEST_SCHEMA_POOL;

/** A schema of the run's pool, now this process's; undefined when the pool has none (or is gone). */
export async function takePooled(db: pg.Client, run: string): Promise<string | undefined> {
  const taken = await db
    .query<{ name: string }>(`DELETE FROM ${POOL}.spare WHERE name = (SELECT name FROM ${POOL}.spare WHERE run = $1 LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING name`, [run])
    .catch(() => ({ rows: [] as { name: string }[] }));
  return taken.rows[0]?.name;
}

/** Gives an emptied schema to the run's pool. */
export async function givePooled(db: pg.Client, run: string, name: string): Promise<void> {
  await db.query(`INSERT INTO ${POOL}.spare (name, run) VALUES ($1, $2)`, [name, run]);
}

/** The name of this run's pool: the runner's host and process. */
export const poolRunName = (): string => `${hostname()}/${process.pid}`;

// This host, in test schemas' names: a sweep drops only its own host's (a database may serve several).
const HOST_TAG = createHash('sha1').update(hostname()).digest('hex').slice(0, 6);
// The process whose end leaves a test schema over: the run's runner (pooled schemas pass between
// its test processes), or the test process run on its own.
const OWNER = Number.parseInt(POOL_RUN?.split('/').pop() ?? '', 10) || process.pid;

/** How a test schema's name starts: `t_<host>_<owner>_`, so that a later run can tell a left-over one. */
export const testSchemaPrefix = (): string => `t_${HOST_TAG}_${OWNER}_`;

/**
 * Drops the test schemas of this host whose owner is gone: a run, or a test process run alone, that
 * was killed before its own cleanup. Each drop is a transaction of its own. Returns how many.
 */
export async function sweepLeftSchemas(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1', [`t\\_${HOST_TAG}\\_%`]);
  let dropped = 0;
  for (const { name } of rows) {
    const owner = Number(name.split('_')[2]);
    if (!(owner > 0) || alive(owner)) continue;
    await db.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    dropped++;
  }
  return dropped;
}

/**
 * Makes the pool (once per database), and drops what runs of this host that are gone left in it
 * and in schemas of their own (a run stopped before its end).
 */
export async function openPool(db: pg.Client): Promise<void> {
  const make = () => db.query(`CREATE SCHEMA IF NOT EXISTS ${POOL}; CREATE TABLE IF NOT EXISTS ${POOL}.spare (name text PRIMARY KEY, run text NOT NULL)`);
  // Two runs making it at the same moment: one of them meets the other's (a unique violation), once.
  await make().catch(make);
  const { rows } = await db.query<{ run: string }>(`SELECT DISTINCT run FROM ${POOL}.spare WHERE run LIKE $1`, [`${hostname()}/%`]);
  for (const { run } of rows) if (!alive(Number(run.split('/').pop()))) await dropPool(db, run, false);
  const swept = await sweepLeftSchemas(db);
  if (swept > 0) console.log(`# dropped ${swept} test schemas left by runs that were stopped before their end`);
}

/**
 * Drops every schema of a run's pool, and (with `whole`) the pool's own table once it holds no run's.
 * Each drop is a transaction of its own: one dropping them all would hold a lock on every table,
 * index and function of every schema at once (PostgreSQL's lock table: "out of shared memory").
 */
export async function dropPool(db: pg.Client, run: string, whole = true): Promise<void> {
  const { rows } = await db.query<{ name: string }>(`DELETE FROM ${POOL}.spare WHERE run = $1 RETURNING name`, [run]);
  for (const { name } of rows) await db.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  if (!whole) return;
  const { rows: left } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${POOL}.spare`);
  if (left[0]?.n === 0) await db.query(`DROP SCHEMA IF EXISTS ${POOL} CASCADE`);
}
