import { ApiError } from '../errors.ts';
import type { Tx } from '../store/store.ts';
import type { HookContext, Resource } from './define.ts';

function rowOf(ctx: HookContext, collection: string): Resource | undefined {
  return ctx.resources.find((r) => r.collection === collection);
}

/** Throws a 400 naming the field when a referenced id is missing or another user's. */
export function checkReferences(row: Resource, fields: Record<string, unknown>, ctx: HookContext): void {
  for (const [field, ref] of Object.entries(row.references ?? {})) {
    const value = fields[field];
    if (value === undefined || value === null) continue;
    const ids = Array.isArray(value) ? value : [value];
    for (const id of ids) {
      const target = typeof id === 'number' ? ctx.store.get(ref.collection, id) : undefined;
      if (!target || target.userId !== ctx.user.id) {
        const label = rowOf(ctx, ref.collection)?.name ?? ref.collection;
        throw new ApiError(400, `Invalid ${ref.from ?? field}: ${label} ${String(id)} does not exist.`);
      }
    }
  }
}

/** After `collection`'s record `id` is deleted, removes it from every record of the user that refers to it. */
export function dropReferences(tx: Tx, ctx: HookContext, collection: string, id: number): void {
  for (const row of ctx.resources) {
    for (const [field, ref] of Object.entries(row.references ?? {})) {
      if (ref.collection !== collection) continue;
      for (const r of ctx.store.owned(row.collection, ctx.user.id)) {
        const value = r[field];
        if (ref.many && Array.isArray(value) && value.includes(id)) {
          tx.update(row.collection, r.id, { [field]: value.filter((x) => x !== id) });
        } else if (!ref.many && value === id) {
          tx.update(row.collection, r.id, { [field]: null });
        }
      }
    }
  }
}
