/**
 * Seeds PostgreSQL schemas for the benchmark without HTTP: the schema is migrated as the server
 * would migrate it, then the same records as the file seeds (bench/seed.ts) are written with the
 * adapter's own row builder (`putRecords`: `user_id`, `data` and every `k_<index>` column computed
 * as the server computes them), thousands per multi-row INSERT, then ANALYZEd as a live database would be.
 */
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { migrateDatabase } from '../src/store/postgres/migrate.ts';
import { checkSchemaName, clientConfig } from '../src/store/postgres/pool.ts';
import type { ConnectionSettings } from '../src/store/postgres/pool.ts';
import type { Db } from '../src/store/postgres/reads.ts';
import { planTables } from '../src/store/postgres/tables.ts';
import { putRecords, resetSequence } from '../src/store/postgres/writes.ts';
import type { StoredRecord } from '../src/store/store.ts';
import { adminRecord, linkRecord, qrRecord } from './seed.ts';

/** The database the PostgreSQL rows run on (`BENCH_DATABASE_URL`, else the machine's local server). */
export const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// Records per INSERT: large enough that round trips do not matter, small enough to stay far below 1 GB of parameters.
const BATCH = 5000;

function settings(url: string, schema: string): ConnectionSettings {
  return { url, schema: checkSchemaName(schema), applicationName: 'shortlink-bench seed', connectTimeoutMs: 5000, statementTimeoutMs: 600_000 };
}

/** Whether the database answers at all (the PostgreSQL rows are left out when it does not). */
export async function pgReachable(url = PG_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** How many links a schema holds already (0 when it has no table yet): lets the 1M run reuse a kept schema. */
export async function linkCount(schema: string, url = PG_URL): Promise<number> {
  const pool = new pg.Pool(clientConfig(settings(url, schema)));
  try {
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM links');
    return Number(rows[0]!.n);
  } catch {
    return 0;
  } finally {
    await pool.end();
  }
}

/** Migrates `schema` (created when missing) and writes the admin, `qrs` QR codes and `links` short links, ids from 1. */
export async function seedSchema(schema: string, counts: { qrs?: number; links?: number }, url = PG_URL, log?: (line: string) => void): Promise<void> {
  const s = settings(url, schema);
  await migrateDatabase(s);
  const plans = planTables(storeSchema(RESOURCES));
  // Two connections: PostgreSQL builds the index entries of one batch while the next is encoded here.
  const pool = new pg.Pool({ ...clientConfig(s), max: 2 });
  const db: Db = (text, values) => pool.query(text, values) as never;
  try {
    await putRecords(db, plans.get('users')!, [await adminRecord()]);
    const write = async (collection: string, count: number, make: (id: number) => StoredRecord) => {
      const plan = plans.get(collection)!;
      const started = performance.now();
      const pending = new Set<Promise<void>>();
      for (let from = 1; from <= count; from += BATCH) {
        const batch: StoredRecord[] = [];
        for (let id = from; id < from + BATCH && id <= count; id++) batch.push(make(id));
        const p = putRecords(db, plan, batch).finally(() => pending.delete(p));
        pending.add(p);
        if (pending.size >= 2) await Promise.race(pending);
        if (log && from % 100_000 === 1 && from > 1) log(`${schema}: ${(from - 1).toLocaleString('en')} ${collection} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
      await Promise.all(pending);
      // Batches racing each other may leave the sequence behind the largest id.
      await resetSequence(db, plan);
    };
    if (counts.qrs) await write('qrs', counts.qrs, qrRecord);
    if (counts.links) await write('links', counts.links, linkRecord);
    await pool.query('ANALYZE');
  } finally {
    await pool.end();
  }
}

/** Drops a benchmark schema with everything in it. */
export async function dropSchema(schema: string, url = PG_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${checkSchemaName(schema)}" CASCADE`);
  } finally {
    await client.end();
  }
}
