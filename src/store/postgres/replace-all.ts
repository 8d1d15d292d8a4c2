import { OUTBOX_COLLECTION, StoreNotEmptyError } from '../store.ts';
import type { ReplaceOptions, StoredRecord } from '../store.ts';
import { putFileContentIn } from './file-contents.ts';
import { countRecords } from './reads.ts';
import type { Db } from './reads.ts';
import { STATS } from './tables.ts';
import type { TablePlan } from './tables.ts';
import { putRecords, resetSequence } from './writes.ts';

/** The tables a replace empties besides the collections': statistics and what is kept from them. */
const DERIVED_TABLES = ['stat_days', 'stat_counts', 'visitor_sightings', 'kept_counts', 'link_clicks', 'realtime_visitors', 'realtime_pages'];

/**
 * Replaces every collection's content (counters included) inside the caller's transaction: locks
 * and empties every table, then stores `data` a thousand records per statement, owners first and
 * statistics last; ids continue after the new largest of each collection.
 */
export async function replaceAllIn(db: Db, plans: ReadonlyMap<string, TablePlan>, data: Record<string, StoredRecord[]>, options: ReplaceOptions): Promise<void> {
  const plan = (name: string) => plans.get(name)!;
  const tables = [...[...plans.values()].filter((p) => p.collection !== STATS).map((p) => p.table), ...DERIVED_TABLES];
  // TRUNCATE's own lock, taken first: writers in flight commit before the check, later ones wait for the import.
  await db(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
  if (options.onlyIfEmpty) await refuseUnlessEmpty(db, [...plans.values()]);
  await db(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`);
  // Owners first, statistics last: every other row references a user.
  const order = [...plans.keys()].sort((a, b) => rank(a) - rank(b));
  for (const name of order) {
    const records = data[name] ?? [];
    for (let i = 0; i < records.length; i += 1000) await putRecords(db, plan(name), records.slice(i, i + 1000));
    await resetSequence(db, plan(name));
  }
  for (const [id, bytes] of options.fileContents ?? new Map<number, Uint8Array>()) await putFileContentIn(db, id, bytes);
}

/** Throws StoreNotEmptyError when any of the tables holds a row (inside the transaction that holds their locks). */
async function refuseUnlessEmpty(db: Db, plans: readonly TablePlan[]): Promise<void> {
  const held: Record<string, number> = {};
  // One at a time: a transaction's statements share one connection.
  for (const plan of plans) {
    // Where routing stands is no data of anyone's.
    if (plan.collection === OUTBOX_COLLECTION) continue;
    // The rows themselves, not the kept counts: what an import would truncate is decided on facts.
    const n = await countRecords(db, { ...plan, counted: false }, {});
    if (n > 0) held[plan.collection] = n;
  }
  if (Object.keys(held).length > 0) throw new StoreNotEmptyError(held);
}

const rank = (name: string) => (name === 'users' ? 0 : name === STATS ? 2 : 1);
