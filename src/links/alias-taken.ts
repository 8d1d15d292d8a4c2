import type { Services } from '../resources/define.ts';
import { NOT_AT_HAND } from '../store/store.ts';
import type { StoredRecord, StoreReads } from '../store/store.ts';
import { aliasKey } from './alias.ts';

/** The collections whose records answer at `/<alias>`: links and uploaded files share one namespace per domain. */
export const SHORT_ALIAS_COLLECTIONS = ['links', 'files'] as const;

/**
 * Whether `alias` on the domain (null: the main host) names a link or a file other than `self`.
 * Run inside the write's transaction; on PostgreSQL a trigger (migrations 005, 009) also holds it
 * against a concurrent writer of the other collection. Answered at once when the reads hold both
 * answers (lookupAtHand: the file store), so a bulk create makes no promise per alias there.
 */
export function shortAliasTaken(
  reads: StoreReads,
  ctx: Pick<Services, 'resources'>,
  domainId: number | null,
  alias: string,
  self?: { collection: string; id: number },
): boolean | Promise<boolean> {
  const key = aliasKey(domainId, alias);
  // A server built from part of the table (tests) may lack one of them.
  const kept = SHORT_ALIAS_COLLECTIONS.map((collection) => ctx.resources.some((r) => r.collection === collection));
  const other = (found: readonly (StoredRecord | undefined)[]) =>
    found.some((r, i) => r != null && !(self !== undefined && self.collection === SHORT_ALIAS_COLLECTIONS[i] && r.id === self.id));
  if (reads.lookupAtHand) {
    const found = SHORT_ALIAS_COLLECTIONS.map((collection, i) => (kept[i] ? reads.lookupAtHand!(collection, 'alias', key) : undefined));
    if (!found.includes(NOT_AT_HAND)) return other(found as (StoredRecord | undefined)[]);
  }
  // Both looked up at once: a bulk request's batched reads then answer every item's in one round, not two.
  return Promise.all(SHORT_ALIAS_COLLECTIONS.map((collection, i) => (kept[i] ? reads.lookup(collection, 'alias', key) : undefined))).then(other);
}
