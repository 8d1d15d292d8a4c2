import type { Logger } from '../log.ts';
import { FileStore } from './file/file-store.ts';
import type { CollectionSchema, Store } from './store.ts';

/** Which backend to open, and how. */
export interface OpenStoreOptions {
  /** The JSON files' directory, or ':memory:'; not used when `databaseUrl` is set. */
  dataDir: string;
  /** A postgres:// URL: PostgreSQL instead of the JSON files. */
  databaseUrl?: string;
  /** Connections in the PostgreSQL pool. */
  databasePool?: number;
  /** The PostgreSQL schema of the tables (default public). */
  databaseSchema?: string;
  /** DATABASE_TIMEOUT, seconds: PostgreSQL's statement timeout (default 5). */
  databaseTimeout?: number;
  /** DATABASE_READ_URL: streaming replicas for plain reads. */
  databaseReadUrls?: readonly string[];
  /** DATABASE_READ_MAX_LAG, seconds: a replica further behind is skipped (default 1). */
  databaseReadMaxLag?: number;
  collections: readonly CollectionSchema[];
  /** File store: journal entries and bytes between two snapshots. */
  snapshotEvery?: number;
  snapshotBytes?: number;
  log?: Logger;
}

/** Where the data lives, for a log line: the directory, or PostgreSQL's host:port/database (never the password). */
export function storeLabel(options: { dataDir: string; databaseUrl?: string; databaseSchema?: string }): string {
  if (!options.databaseUrl) return options.dataDir;
  try {
    const url = new URL(options.databaseUrl);
    return `PostgreSQL ${url.hostname}:${url.port || '5432'}${url.pathname}${options.databaseSchema && options.databaseSchema !== 'public' ? ` schema ${options.databaseSchema}` : ''}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** Opens the backend the settings name: PostgreSQL when a database URL is set, the JSON files otherwise. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    // Loaded only when asked for: a server on the JSON files never loads the driver.
    const { PostgresStore } = await import('./postgres/postgres-store.ts');
    return PostgresStore.open({ url: options.databaseUrl, poolSize: options.databasePool, schema: options.databaseSchema, collections: options.collections, log: options.log, statementTimeoutMs: options.databaseTimeout === undefined ? undefined : Math.round(options.databaseTimeout * 1000), readUrls: options.databaseReadUrls, readMaxLagMs: options.databaseReadMaxLag === undefined ? undefined : Math.round(options.databaseReadMaxLag * 1000) });
  }
  return FileStore.open({ dir: options.dataDir, collections: options.collections, snapshotEvery: options.snapshotEvery, snapshotBytes: options.snapshotBytes, log: options.log });
}
