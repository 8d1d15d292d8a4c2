import { FILES_COLLECTION } from '../store/store.ts';
import type { SnapshotView, Store } from '../store/store.ts';
import { withContents } from './file-contents.ts';
import { CommandError } from './users.ts';
import type { Progress } from './progress.ts';
import { NO_PROGRESS } from './progress.ts';

/** The format name every export carries in its `$export` header. */
export const EXPORT_FORMAT = 'shortlink-analytics-server/export';

/** What `$export` says about an export of the whole store. */
export interface AllExportHeader {
  format: typeof EXPORT_FORMAT;
  version: 1;
  all: true;
  exportedAt: string;
  /** Records per collection: an import checks it, so a cut or edited file is refused. */
  counts: Record<string, number>;
}

/** Where an export goes, a piece at a time; resolves when the piece may be followed by the next. */
export type TextSink = (text: string) => Promise<void> | void;

/** The data changed while it was being exported: the file would not be one consistent picture. */
export class ExportChangedError extends CommandError {}

/** Records per collection a store (or a snapshot of one) holds. */
export async function storeCounts(store: Pick<SnapshotView, 'count'>, collections: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const c of collections) out[c] = await store.count(c);
  return out;
}

/**
 * Writes every record of the collections `counts` names (ids, key and password hashes, statistics
 * days: all of it) in the layout of `serializeExport`, one record per line, a scan batch at a time,
 * so that a million links are never one string. `counts` (from `storeCounts` over the same
 * snapshot) go in the header. A snapshot's scans match its counts; should one not (a backend
 * whose snapshot is not one), the export fails rather than hand over a file an import would refuse.
 */
export async function writeAllExport(store: SnapshotView, counts: Record<string, number>, sink: TextSink, nowMs: number, progress: Progress = NO_PROGRESS): Promise<void> {
  const collections = Object.keys(counts);
  const header: AllExportHeader = { format: EXPORT_FORMAT, version: 1, all: true, exportedAt: new Date(nowMs).toISOString(), counts };
  await sink(`{\n"$export":${JSON.stringify(header)}`);
  for (const c of collections) {
    await sink(`,\n${JSON.stringify(c)}:[`);
    let n = 0;
    for await (const batch of store.scan(c)) {
      if (batch.length === 0) continue;
      const records = c === FILES_COLLECTION ? await withContents(store, batch) : batch;
      await sink((n === 0 ? '\n' : ',\n') + records.map((r) => JSON.stringify(r)).join(',\n'));
      n += batch.length;
      progress.tick(batch.length);
    }
    await sink(n === 0 ? ']' : '\n]');
    if (n !== counts[c]) throw new ExportChangedError(`${c} changed during the export (${counts[c]} records counted, ${n} written): stop the server and export again.`);
  }
  await sink('\n}\n');
  progress.done();
}

/** "3 users, 12 links, …" for the collections that hold records. */
export function describeCounts(counts: Record<string, number>): string {
  const held = Object.entries(counts).filter(([, n]) => n > 0);
  return held.length === 0 ? 'no records' : held.map(([c, n]) => `${n} ${c}`).join(', ');
}
