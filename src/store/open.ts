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
  collections: readonly CollectionSchema[];
  /** File store: journal entries and bytes between two snapshots. */
  snapshotEvery?: number;
  snapshotBytes?: number;
  log?: Logger;
}

/** Opens the backend the settings name: PostgreSQL when a database URL is set, the JSON files otherwise. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  return FileStore.open({ dir: options.dataDir, collections: options.collections, snapshotEvery: options.snapshotEvery, snapshotBytes: options.snapshotBytes, log: options.log });
}
