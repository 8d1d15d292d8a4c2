import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../http/validate.ts';
import { createSchema, withoutEmptyOptionals } from '../resources/define.ts';
import type { HookContext, Prepared, Resource, Services } from '../resources/define.ts';
import { checkReferences } from '../resources/references.ts';
import { batchedStoreReads, batchedTx, readsWorthBatching } from '../store/batched-reads.ts';
import { ConflictError } from '../store/store.ts';
import type { StoredRecord, Tx } from '../store/store.ts';

/** What one item of a create came to: its record and the create response's body, or its error. */
export type ItemOutcome = { ok: true; record: StoredRecord; body: Record<string, unknown> } | { ok: false; error: ApiError; rolledBack?: true };

/** The message of a valid item of an atomic batch that was not stored because another one failed. */
export const NOT_STORED = 'Not stored: another item of this atomic batch failed.';

/** The row's answer to a change its unique index refused (ConflictError), if it has one. */
export function uniqueAnswer(row: Resource, err: unknown): ApiError | undefined {
  return err instanceof ConflictError && err.collection === row.collection ? row.unique?.[err.index]?.() : undefined;
}

// Each row's create schema, built once (a request must not rebuild it).
const createSchemas = new WeakMap<Resource, ReturnType<typeof createSchema>>();
const creatingOf = (row: Resource) => createSchemas.get(row) ?? createSchemas.set(row, createSchema(row)).get(row)!;

// Made-up keys collide about never (62^8 QR aliases): a few tries, then the row's conflict error.
const MADE_UP_TRIES = 5;

/** Inserts a new record of `row`, making up its key again (`row.madeUp`) while the unique index refuses it. */
async function insertNew(tx: Tx, row: Resource, ctx: HookContext, fields: Record<string, unknown>) {
  for (let attempt = 1; ; attempt++) {
    row.madeUp?.make(fields, ctx);
    try {
      return await tx.insert(row.collection, fields);
    } catch (err) {
      const again = row.madeUp !== undefined && err instanceof ConflictError && err.index === row.madeUp.index && attempt < MADE_UP_TRIES;
      if (!again) throw err;
    }
  }
}

/** One item on its way: what it parsed and prepared to, and its duplicate key (Resource.duplicateKey). */
interface Item {
  input?: Record<string, unknown>;
  prepared?: Prepared;
  error?: ApiError;
  sameAs?: string;
}

/** An ApiError is the item's own answer; anything else (the database gone) fails the whole request. */
export function itemError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  throw err;
}

/** Thrown in an atomic batch's transaction to roll it back, with what each item came to. */
export class RollBack extends Error {
  constructor(readonly results: (StoredRecord | ApiError)[]) {
    super('an item of an atomic batch failed');
  }
}

/** What a caller of createMany may ask beyond its items (an import of another shortener's links). */
export interface CreateOptions {
  /** Per item, stamp fields to use instead of the defaults (an import keeps the source's creation `date`). */
  stamps?: readonly (Record<string, unknown> | undefined)[];
  /** Checks every item as it would be stored and stores none: an item that would be stored answers the record it would be, id 0. */
  dryRun?: boolean;
  /**
   * Runs in the items' transaction after them (even when no item was to be stored), with what each
   * came to and whether its record was made by this call rather than found (the create-or-return
   * rule, or an earlier item of the call): an import writes its report and click totals with its links.
   */
  within?(tx: Tx, results: readonly (StoredRecord | ApiError)[], made: readonly boolean[]): Promise<void>;
}

/**
 * Parses, prepares, checks and stores a row's records from create bodies: the path of every
 * create, one body or many (a bulk request). Each item passes the row's validation, `prepare`,
 * reference checks, `check` and the create-or-return rule exactly as a single create does, and
 * gets that create's answer or error. Many items are stored in one transaction: their reads
 * batched (batched-reads.ts) and their records inserted together in order (`insertMany`); an
 * item a unique index refused, and one whose duplicate key an earlier item had but could not
 * store, runs again alone after them, so its check sees every record stored before it, as
 * sequential creates would. `atomic`: when any item fails, nothing is stored, and the valid items
 * answer NOT_STORED (`rolledBack`). A failure that is not an item's own (the store unreachable)
 * fails the whole call, storing nothing.
 */
export async function createMany(s: Services, row: Resource, ctx: HookContext, bodies: readonly unknown[], atomic: boolean, options: CreateOptions = {}): Promise<ItemOutcome[]> {
  const many = bodies.length > 1;
  const batched = many && readsWorthBatching(s.store);
  const reading: HookContext = batched ? { ...ctx, reads: batchedStoreReads(ctx.reads ?? s.store) } : ctx;
  const items: Item[] = bodies.map(() => ({}));
  await Promise.all(
    bodies.map(async (body, at) => {
      const item = items[at]!;
      try {
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'Each item must be a JSON object.');
        item.input = parseWith(creatingOf(row), withoutEmptyOptionals(row, 'create', body as Record<string, unknown>));
        item.prepared = row.prepare ? await row.prepare(item.input, reading) : { fields: item.input };
        if (!item.prepared.existing) item.sameAs = row.duplicateKey?.(item.input, item.prepared.fields, ctx) ?? undefined;
      } catch (err) {
        item.error = itemError(err);
      }
    }),
  );
  const stamp = row.owned ? { userId: ctx.user.id, date: formatDateTime(s.clock.now()) } : {};
  const pending = items.some((i) => !i.error && !i.prepared!.existing);
  let results: (StoredRecord | ApiError | undefined)[] = items.map((i) => i.error ?? i.prepared?.existing);
  // Atomic: the transaction runs even with an item refused already, so the answer names every failure; it rolls back.
  let rolledBack = !pending && atomic && items.some((i) => i.error);
  if (pending || options.within) {
    try {
      results = await s.store.transaction((tx) => storeItems(row, ctx, batched ? batchedTx(tx) : tx, tx, items, stamp, atomic, options));
    } catch (err) {
      if (!(err instanceof RollBack)) throw (!many && uniqueAnswer(row, err)) || err;
      results = err.results;
      rolledBack = true;
    }
  }
  // Answers that need no read are made at once: a promise each would cost a thousand of them.
  const outcomes = results.map((r, at): ItemOutcome | Promise<ItemOutcome> => {
    if (r instanceof ApiError) return { ok: false, error: r };
    if (rolledBack) return { ok: false, error: new ApiError(400, NOT_STORED), rolledBack: true };
    const record = r!;
    const made = row.created ? row.created(record, reading, items[at]!.prepared!.extra ?? {}) : { id: record.id };
    return made instanceof Promise ? made.then((body) => ({ ok: true, record, body: { error: 0, ...body } })) : { ok: true, record, body: { error: 0, ...made } };
  });
  return outcomes.some((o) => o instanceof Promise) ? Promise.all(outcomes) : (outcomes as ItemOutcome[]);
}

/**
 * The transaction's part of createMany: what each item came to (its record or error). It keeps no
 * state outside, so it can run again (a retried transaction). `reads` is `tx` with batched reads.
 */
async function storeItems(
  row: Resource,
  ctx: HookContext,
  reads: Tx,
  tx: Tx,
  items: readonly Item[],
  stamp: Record<string, unknown>,
  atomic: boolean,
  options: CreateOptions = {},
): Promise<(StoredRecord | ApiError)[]> {
  const out: (StoredRecord | ApiError | undefined)[] = items.map((i) => i.error ?? i.prepared?.existing);
  // Which items this call made a record for (not an existing one, nor an earlier item's).
  const fresh: boolean[] = items.map(() => false);
  const dry = options.dryRun === true;
  // The first item of each duplicate key goes now; the others wait for what it comes to.
  const claimed = new Set<string>();
  const now: number[] = [];
  const later = new Set<number>();
  items.forEach((item, at) => {
    if (out[at] !== undefined) return;
    if (item.sameAs !== undefined && claimed.has(item.sameAs)) later.add(at);
    else {
      if (item.sameAs !== undefined) claimed.add(item.sameAs);
      now.push(at);
    }
  });
  // A promise only when a check waits for something (a read not at hand): a promise each costs a thousand in a bulk request.
  const check = (at: number, via: Tx, hooks = ctx): Record<string, unknown> | ApiError | Promise<Record<string, unknown> | ApiError> => {
    // The record to store, a copy: `check` fills in what it makes up (an alias), which a second try must make anew.
    const fields = Object.assign({}, stamp, options.stamps?.[at], items[at]!.prepared!.fields);
    try {
      const refs = checkReferences(row, fields, hooks, via);
      const done = refs ? refs.then(() => row.check?.(fields, hooks, via)) : row.check?.(fields, hooks, via);
      return done instanceof Promise ? done.then(() => fields, itemError) : fields;
    } catch (err) {
      // Not the item's own: rejected with the others' checks (Promise.all), none of them left unhandled.
      return err instanceof ApiError ? err : Promise.reject(err);
    }
  };
  // Many items: whatever a unique index refuses in the first pass runs again alone below, checked
  // in full, so a check may leave a key it makes up to the store's own refusal (HookContext.clashRetried).
  // A single create, and a dry run (which stores nothing to be refused), check in full at once.
  const retried = items.length > 1 && !dry;
  const first: HookContext = retried ? { ...ctx, clashRetried: true } : ctx;
  const checking = now.map((at) => check(at, reads, first));
  const checked = checking.some((c) => c instanceof Promise) ? await Promise.all(checking) : (checking as (Record<string, unknown> | ApiError)[]);
  const go: { at: number; fields: Record<string, unknown> }[] = [];
  now.forEach((at, i) => {
    const c = checked[i]!;
    if (c instanceof ApiError) out[at] = c;
    else go.push({ at, fields: c });
  });
  if (dry) {
    for (const { at, fields } of go) {
      out[at] = { ...fields, id: 0 };
      fresh[at] = true;
    }
  } else if (go.length === 1 && !retried) {
    // One record (a single create): inserted as one, its made-up key made again on a conflict.
    const { at, fields } = go[0]!;
    try {
      out[at] = await insertNew(tx, row, ctx, fields);
      fresh[at] = true;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      later.add(at);
    }
  } else if (go.length > 0) {
    // insertMany, even for one record of many: a refusal by a trigger (an alias left to the store) leaves the transaction usable.
    for (const g of go) row.madeUp?.make(g.fields, ctx);
    const stored = await tx.insertMany(row.collection, go.map((g) => g.fields));
    stored.forEach((r, i) => {
      if (r instanceof ConflictError) later.add(go[i]!.at);
      else {
        out[go[i]!.at] = r;
        fresh[go[i]!.at] = true;
      }
    });
  }
  // Alone, in order: each sees every record stored before it.
  const made = new Map<string, StoredRecord>();
  const remember = (at: number) => {
    const key = items[at]!.sameAs;
    const r = out[at];
    if (key !== undefined && r !== undefined && !(r instanceof ApiError) && !made.has(key)) made.set(key, r);
  };
  for (let at = 0; at < items.length; at++) {
    if (!later.has(at)) {
      remember(at);
      continue;
    }
    const same = items[at]!.sameAs;
    const earlier = same === undefined ? undefined : made.get(same);
    if (earlier) {
      out[at] = earlier;
      continue;
    }
    const c = await check(at, tx);
    if (c instanceof ApiError) out[at] = c;
    else if (dry) {
      out[at] = { ...c, id: 0 };
      fresh[at] = true;
    } else {
      try {
        out[at] = await insertNew(tx, row, ctx, c);
        fresh[at] = true;
      } catch (err) {
        out[at] = uniqueAnswer(row, err) ?? itemError(err);
      }
    }
    remember(at);
  }
  const results = out as (StoredRecord | ApiError)[];
  await options.within?.(tx, results, fresh);
  if (atomic && results.some((r) => r instanceof ApiError)) throw new RollBack(results);
  return results;
}
