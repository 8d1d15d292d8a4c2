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
  for (const collection of SHORT_ALIAS_COLLECTIONS) {
    // A server built from part of the table (tests) may lack one of them.
    if (!ctx.resources.some((r) => r.collection === collection)) continue;
    const other = await reads.lookup(collection, 'alias', aliasKey(domainId, alias));
    if (other && !(self?.collection === collection && other.id === self.id)) return true;
  }
  return false;
}
