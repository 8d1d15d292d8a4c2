import type { Resource, UserRecord } from '../resources/define.ts';
import { publicUser } from '../resources/users.ts';
import { FILES_COLLECTION } from '../store/store.ts';
import type { StoredRecord, Store } from '../store/store.ts';
import { withContents } from './file-contents.ts';
import type { Progress } from './progress.ts';
import { NO_PROGRESS } from './progress.ts';

/** What `$export` says about an export file. */
export interface ExportHeader {
  format: 'shortlink-analytics-server/export';
  version: 1;
  exportedAt: string;
  email: string;
}

/** An export: a header, the user (public fields only) and every owned collection, statistics included. */
export type ExportFile = { $export: ExportHeader; users: Record<string, unknown>[] } & Record<string, unknown>;

/** The owned collections of the table one user's export carries, in table order: not the server's records about the account (keys, audit log), nor the event outbox. */
export function ownedCollections(resources: readonly Resource[]): string[] {
  return [...new Set(resources.filter((r) => r.owned && !r.wholeStoreOnly && !r.transient).map((r) => r.collection))];
}

/** How many records an export of `user` holds. */
export async function exportSize(store: Store, user: UserRecord, resources: readonly Resource[]): Promise<number> {
  let n = 0;
  for (const c of ownedCollections(resources)) n += await store.count(c, { owner: user.id });
  return n;
}

/**
 * Everything `user` owns, in the fixtures shape. The user's API key hash and password hash are
 * left out, and so are its scoped keys and audit log; link and stats-page passwords stay as their scrypt hashes, so what was protected is
 * still protected after an import.
 */
export async function exportUser(store: Store, user: UserRecord, resources: readonly Resource[], nowMs: number, progress: Progress = NO_PROGRESS): Promise<ExportFile> {
  const out: ExportFile = {
    $export: { format: 'shortlink-analytics-server/export', version: 1, exportedAt: new Date(nowMs).toISOString(), email: user.email },
    users: [publicUser(user)],
  };
  for (const collection of ownedCollections(resources)) {
    const records: StoredRecord[] = [];
    for (const r of (await store.find(collection, { owner: user.id, sort: { field: 'id', direction: 'asc' } })).items) {
      records.push(r);
      progress.tick();
    }
    out[collection] = collection === FILES_COLLECTION ? await withContents(store, records) : records;
  }
  progress.done();
  return out;
}

/** JSON with one record per line, like the data files: readable and diffable at any size. */
export function serializeExport(file: ExportFile): string {
  const parts = Object.entries(file).map(([key, value]) => {
    const head = JSON.stringify(key);
    if (!Array.isArray(value)) return `${head}:${JSON.stringify(value)}`;
    if (value.length === 0) return `${head}:[]`;
    return `${head}:[\n${value.map((r) => JSON.stringify(r)).join(',\n')}\n]`;
  });
  return `{\n${parts.join(',\n')}\n}\n`;
}
