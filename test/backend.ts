/**
 * Which storage backend this test process runs on: the JSON-file store (in memory), or PostgreSQL
 * when the test runner's PostgreSQL pass set TEST_STORE=postgres (with TEST_DATABASE_URL). On
 * PostgreSQL every store gets a fresh schema of its own, dropped when the file's tests are done.
 */
import { after } from 'node:test';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import type { Resource } from '../src/resources/define.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { Store } from '../src/store/store.ts';

/** The backend of this pass. */
export const TEST_BACKEND: 'file' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'file';

const url = process.env.TEST_DATABASE_URL;
if (TEST_BACKEND === 'postgres' && !url) throw new Error('TEST_STORE=postgres needs TEST_DATABASE_URL');

const schemas: string[] = [];
const stores: Store[] = [];
let made = 0;

/** A schema name no other test process uses. */
export function freshSchema(): string {
  const name = `t_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(name);
  return name;
}

/** The settings that put a server process (or an in-process server) on this pass's backend: a fresh PostgreSQL schema, or nothing. */
export function backendEnv(): Record<string, string> {
  return TEST_BACKEND === 'postgres' ? { DATABASE_URL: url!, DATABASE_SCHEMA: freshSchema() } : {};
}

/** A fresh, empty store of the whole resource table (or of `rows`) on this pass's backend. */
export async function openTestStore(rows: readonly Resource[] = RESOURCES): Promise<Store> {
  if (TEST_BACKEND === 'file') return FileStore.open({ dir: ':memory:', collections: storeSchema(rows) });
  const store = await PostgresStore.open({ url: url!, schema: freshSchema(), collections: storeSchema(rows), poolSize: 3 });
  stores.push(store);
  return store;
}

if (TEST_BACKEND === 'postgres') {
  after(async () => {
    await Promise.allSettled(stores.map((s) => s.close()));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    } finally {
      await admin.end();
    }
  });
}
