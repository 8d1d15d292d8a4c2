import { ApiError } from '../errors.ts';
import { parseWith, pathId } from '../http/validate.ts';
import { updateSchema, withoutEmptyOptionals } from '../resources/define.ts';
import type { HookContext, Resource, Services } from '../resources/define.ts';
import { checkReferences, dropReferences } from '../resources/references.ts';
import type { StoredRecord, StoreReads, Tx } from '../store/store.ts';
import { itemError, NOT_STORED, RollBack, uniqueAnswer } from './create-many.ts';
import { forwardingTx } from '../store/batched-reads.ts';
import type { ItemOutcome } from './create-many.ts';

// Each row's update schema, built once.
const updateSchemas = new WeakMap<Resource, ReturnType<typeof updateSchema>>();
const updatingOf = (row: Resource) => updateSchemas.get(row) ?? updateSchemas.set(row, updateSchema(row)).get(row)!;

/** The record `raw` names if it exists and the user may see it (read through `reads`); otherwise a 404 with the row's message. */
export async function visibleIn<R extends StoredRecord>(reads: StoreReads, row: Resource, raw: string | undefined, userId: number): Promise<R> {
  const id = pathId(raw);
  const record = id === null ? undefined : await reads.get<R>(row.collection, id);
  // Another user's record answers exactly like a missing one: nothing tells that it exists.
  if (!record || (row.owned && record.userId !== userId)) throw new ApiError(404, row.messages.notFound);
  return record;
}

/** An update body of `existing`, validated and prepared: the fields to write. */
export async function prepareUpdate(row: Resource, ctx: HookContext, existing: StoredRecord, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const input = parseWith(updatingOf(row), withoutEmptyOptionals(row, 'update', body));
  return (row.prepare ? await row.prepare(input, ctx, existing) : { fields: input }).fields;
}

/** An update's write, inside `tx`: its references and `check`, then the record itself (404 when it went meanwhile). */
export async function applyUpdate(row: Resource, ctx: HookContext, tx: Tx, existing: StoredRecord, fields: Record<string, unknown>): Promise<StoredRecord> {
  await checkReferences(row, fields, ctx, tx);
  await row.check?.(fields, ctx, tx, existing);
  const updated = await tx.update(row.collection, existing.id, fields);
  if (!updated) throw new ApiError(404, row.messages.notFound);
  return updated;
}

/** The answer to an update: the row's `updated` shape, or its message. */
export async function updatedBody(row: Resource, ctx: HookContext, record: StoredRecord): Promise<Record<string, unknown>> {
  return { error: 0, ...(row.updated ? await row.updated(record, ctx) : { message: row.messages.updated }) };
}

/** A removal inside `tx`: the record (404 when it went meanwhile), then what the row cascades and what refers to it. */
export async function removeIn(row: Resource, ctx: HookContext, tx: Tx, record: StoredRecord): Promise<void> {
  if (!(await tx.remove(row.collection, record.id))) throw new ApiError(404, row.messages.notFound);
  await row.onDelete?.(tx, record, ctx);
  await dropReferences(tx, ctx, row.collection, record.id);
}

/** One item of a bulk update: the id it names and the update body for it. */
export interface UpdateItem {
  id: string | undefined;
  body: unknown;
}

/**
 * Runs `step` for each item, one after the other in one transaction, so each sees what the ones
 * before it did (sequential requests would). The records the items name are read in one go first
 * (`idOf`); a step gets them from there unless an earlier step wrote them, which are read again.
 * An item's ApiError (or its unique index's answer) is its result; `atomic`: any failure rolls
 * every item back.
 */
async function inOneTransaction<I>(
  s: Services,
  row: Resource,
  items: readonly I[],
  atomic: boolean,
  idOf: (item: I) => number | null,
  step: (tx: Tx, item: I) => Promise<StoredRecord>,
): Promise<{ results: (StoredRecord | ApiError)[]; rolledBack: boolean }> {
  try {
    const results = await s.store.transaction(async (tx) => {
      const ahead = await tx.getMany(row.collection, items.flatMap((i) => idOf(i) ?? []));
      const reads = readAhead(tx, row.collection, ahead);
      const out: (StoredRecord | ApiError)[] = [];
      for (const item of items) {
        try {
          out.push(await step(reads, item));
        } catch (err) {
          out.push(uniqueAnswer(row, err) ?? itemError(err));
        }
      }
      if (atomic && out.some((r) => r instanceof ApiError)) throw new RollBack(out);
      return out;
    });
    return { results, rolledBack: false };
  } catch (err) {
    if (err instanceof RollBack) return { results: err.results, rolledBack: true };
    throw err;
  }
}

/** `tx`, its `get` of `collection` answered from `ahead` (records read before) for the ids nothing has written since. */
function readAhead(tx: Tx, collection: string, ahead: ReadonlyMap<number, StoredRecord>): Tx {
  const written = new Set<number>();
  let all = false;
  const wrote = <R>(c: string, id: number | null, result: Promise<R>): Promise<R> => {
    if (c === collection) {
      if (id === null) all = true;
      else written.add(id);
    }
    return result;
  };
  return {
    ...forwardingTx(tx),
    get: <T extends StoredRecord>(c: string, id: number) => (c === collection && !all && !written.has(id) && ahead.has(id) ? Promise.resolve(ahead.get(id) as T) : tx.get<T>(c, id)),
    update: (c, id, patch) => wrote(c, id, tx.update(c, id, patch)),
    remove: (c, id) => wrote(c, id, tx.remove(c, id)),
    put: (c, record) => wrote(c, record.id, tx.put(c, record)),
    removeWhere: (c, where) => wrote(c, null, tx.removeWhere(c, where)),
  };
}

/** What each item came to, with `answer` for the stored ones (NOT_STORED for the valid ones of a rolled-back batch). */
async function outcomes(results: readonly (StoredRecord | ApiError)[], rolledBack: boolean, answer: (r: StoredRecord) => Promise<Record<string, unknown>>): Promise<ItemOutcome[]> {
  return Promise.all(
    results.map(async (r): Promise<ItemOutcome> => {
      if (r instanceof ApiError) return { ok: false, error: r };
      if (rolledBack) return { ok: false, error: new ApiError(400, NOT_STORED), rolledBack: true };
      return { ok: true, record: r, body: await answer(r) };
    }),
  );
}

/** Updates many records of a row as PUT …/update would each, in order, in one transaction; per item its answer or error. */
export async function updateMany(s: Services, row: Resource, ctx: HookContext, items: readonly UpdateItem[], atomic: boolean): Promise<ItemOutcome[]> {
  const { results, rolledBack } = await inOneTransaction(s, row, items, atomic, (item) => pathId(item.id), async (tx, item) => {
    const body = item.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'Each item must be a JSON object.');
    if (item.id === undefined) throw new ApiError(400, 'Missing required parameter: id');
    const existing = await visibleIn(tx, row, item.id, ctx.user.id);
    return applyUpdate(row, ctx, tx, existing, await prepareUpdate(row, ctx, existing, body as Record<string, unknown>));
  });
  return outcomes(results, rolledBack, (r) => updatedBody(row, ctx, r));
}

/** Deletes many records of a row as DELETE …/delete would each, in order, in one transaction; per item its answer or error. */
export async function removeMany(s: Services, row: Resource, ctx: HookContext, ids: readonly (string | undefined)[], atomic: boolean): Promise<ItemOutcome[]> {
  const { results, rolledBack } = await inOneTransaction(s, row, ids, atomic, (id) => pathId(id), async (tx, id) => {
    const record = await visibleIn(tx, row, id, ctx.user.id);
    await removeIn(row, ctx, tx, record);
    return record;
  });
  return outcomes(results, rolledBack, async (r) => {
    await row.deleted?.(r, ctx);
    return { error: 0, id: r.id, message: row.messages.deleted };
  });
}
