import { ApiError } from '../errors.ts';
import type { StoreReads, Tx } from '../store/store.ts';
import type { HookContext, Resource } from './define.ts';

function rowOf(ctx: HookContext, collection: string): Resource | undefined {
  return ctx.resources.find((r) => r.collection === collection);
}

/**
 * Throws (rejects) a 400 naming the field when a referenced id is missing or another user's.
 * undefined, no promise, when `fields` refer to nothing (most links of a bulk create).
 */
export function checkReferences(row: Resource, fields: Record<string, unknown>, ctx: HookContext, reads: StoreReads): Promise<void> | undefined {
  const references = row.references;
  if (!references) return undefined;
  for (const field in references) {
    const value = fields[field];
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) return checkAll(references, fields, ctx, reads);
  }
  return undefined;
}

async function checkAll(references: NonNullable<Resource['references']>, fields: Record<string, unknown>, ctx: HookContext, reads: StoreReads): Promise<void> {
  for (const [field, ref] of Object.entries(references)) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    const ids = Array.isArray(value) ? value : [value];
    for (const id of ids) {
      const target = typeof id === 'number' ? await reads.get(ref.collection, id) : undefined;
      if (!target || target.userId !== ctx.user.id) {
        const label = rowOf(ctx, ref.collection)?.name ?? ref.collection;
        throw new ApiError(400, `Invalid ${ref.from ?? field}: ${label} ${String(id)} does not exist.`);
      }
    }
  }
}

/** After `collection`'s record `id` is deleted, removes it from every record of the user that refers to it. */
export async function dropReferences(tx: Tx, ctx: HookContext, collection: string, id: number): Promise<void> {
  for (const row of ctx.resources) {
    for (const [field, ref] of Object.entries(row.references ?? {})) {
      if (ref.collection !== collection) continue;
      const condition = ref.many ? { field, holds: id } : { field, equals: id };
      const { items } = await tx.find(row.collection, { owner: ctx.user.id, conditions: [condition], sort: { field: 'id', direction: 'asc' } });
      for (const found of items) {
        // Read again, locked: the list may have grown since the search's snapshot.
        const r = await tx.getForUpdate(row.collection, found.id);
        if (!r) continue;
        const value = r[field];
        await tx.update(row.collection, r.id, { [field]: Array.isArray(value) ? value.filter((x) => x !== id) : null });
      }
    }
  }
}
