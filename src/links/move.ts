import type { HookContext } from '../resources/define.ts';
import type { Tx } from '../store/store.ts';
import { aliasKey, generateAlias } from './alias.ts';
import type { Link } from './shape.ts';

/**
 * When a branded domain goes, its links move to the main host so they keep working; a link whose
 * alias is already taken there gets a fresh alias instead of shadowing the other link.
 */
export async function moveLinksToMainHost(tx: Tx, ctx: HookContext, domainId: number): Promise<void> {
  const taken = async (alias: string) => (await tx.lookup('links', 'alias', aliasKey(null, alias))) !== undefined;
  const moving = await tx.find<Link>('links', { owner: ctx.user.id, conditions: [{ field: 'domainId', equals: domainId }], sort: { field: 'id', direction: 'asc' } });
  for (const link of moving.items) {
    const alias = (await taken(link.alias)) ? await generateAlias(ctx.random, taken) : link.alias;
    await tx.update<Link>('links', link.id, { domainId: null, alias });
  }
}
