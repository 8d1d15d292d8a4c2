import type { HookContext } from '../resources/define.ts';
import type { Tx } from '../store/store.ts';
import { aliasKey, generateAlias } from './alias.ts';
import type { Link } from './shape.ts';

/**
 * When a branded domain goes, its links move to the main host so they keep working; a link whose
 * alias is already taken there gets a fresh alias instead of shadowing the other link.
 */
export function moveLinksToMainHost(tx: Tx, ctx: HookContext, domainId: number): void {
  const taken = (alias: string) => ctx.store.lookup('links', 'alias', aliasKey(null, alias)) !== undefined;
  for (const link of ctx.store.owned<Link>('links', ctx.user.id)) {
    if (link.domainId !== domainId) continue;
    const alias = taken(link.alias) ? generateAlias(ctx.random, taken) : link.alias;
    tx.update<Link>('links', link.id, { domainId: null, alias });
  }
}
