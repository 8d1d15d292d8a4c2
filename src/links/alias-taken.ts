import type { Services } from '../resources/define.ts';
import type { StoreReads } from '../store/store.ts';
import { aliasKey } from './alias.ts';

/** The collections whose records answer at `/<alias>`: links and uploaded files share one namespace per domain. */
export const SHORT_ALIAS_COLLECTIONS = ['links', 'files'] as const;

/**
 * Whether `alias` on the domain (null: the main host) names a link or a file other than `self`.
 * Run inside the write's transaction; on PostgreSQL a trigger (migration 004) also holds it
 * against a concurrent writer of the other collection.
 */
export async function shortAliasTaken(
  reads: StoreReads,
  ctx: Pick<Services, 'resources'>,
  domainId: number | null,
  alias: string,
  self?: { collection: string; id: number },
): Promise<boolean> {
  const key = aliasKey(domainId, alias);
  // Both looked up at once: a bulk request's batched reads then answer every item's in one round, not two.
  const found = await Promise.all(
    // A server built from part of the table (tests) may lack one of them.
    SHORT_ALIAS_COLLECTIONS.map((collection) => (ctx.resources.some((r) => r.collection === collection) ? reads.lookup(collection, 'alias', key) : undefined)),
  );
  return found.some((other, i) => other != null && !(self !== undefined && self.collection === SHORT_ALIAS_COLLECTIONS[i] && other.id === self.id));
}
