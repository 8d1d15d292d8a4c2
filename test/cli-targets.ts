/**
 * Where a CLI test's command works: a data directory (`--data-dir`) or a PostgreSQL schema (the
 * process's DATABASE_URL and DATABASE_SCHEMA), and the same store opened in the test's own process.
 */
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { openStore } from '../src/store/open.ts';
import type { Store } from '../src/store/store.ts';

/** The flags and environment that point a CLI process at one store. */
export type Target = { args: string[]; env: Record<string, string> };

/** A data directory. */
export const dirTarget = (dir: string): Target => ({ args: ['--data-dir', dir], env: {} });

/** A PostgreSQL schema, given by its settings (DATABASE_URL, DATABASE_SCHEMA). */
export const pgTarget = (env: Record<string, string>): Target => ({ args: [], env });

/** The store behind `target`, opened in this process. */
export const openTarget = (target: Target): Promise<Store> =>
  openStore({ dataDir: target.args[1] ?? ':memory:', databaseUrl: target.env.DATABASE_URL, databaseSchema: target.env.DATABASE_SCHEMA, databasePool: 1, collections: storeSchema(RESOURCES) });

/** Runs `fn` on the store behind `target`, opened in this process, and closes it (the CLI must not find it in use). */
export async function withStore<R>(target: Target, fn: (store: Store) => Promise<R>): Promise<R> {
  const store = await openTarget(target);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
