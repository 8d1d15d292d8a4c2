import { Hono } from 'hono';
import type { Context } from 'hono';
import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { createSchema, updateSchema, withoutEmptyOptionals } from '../resources/define.ts';
import type { HookContext, Prepared, Resource, Services } from '../resources/define.ts';
import { checkReferences, dropReferences } from '../resources/references.ts';
import { ConflictError } from '../store/store.ts';
import type { ListQuery, StoredRecord, Tx } from '../store/store.ts';
import type { AppEnv } from '../http/app-env.ts';
import { requireAdmin } from '../http/auth.ts';
import { PageCache } from '../http/page-cache.ts';
import { pageMeta, pageQuery } from '../http/pagination.ts';
import { parseWith, pathId, readJson } from '../http/validate.ts';

/** What `c.json` sends as the content type, for bodies serialised ahead of time. */
const JSON_TYPE = { 'Content-Type': 'application/json' } as const;

/** The context hooks get: the services and the signed-in user. */
export function hookContext(s: Services, c: Context<AppEnv>): HookContext {
  return { ...s, user: c.get('user'), requestHost: c.req.header('host') };
}

/** The record `raw` names if it exists and the user may see it; otherwise a 404 with the row's message. */
export async function findVisible<R extends StoredRecord>(s: Pick<Services, 'store'>, row: Resource, raw: string | undefined, userId: number): Promise<R> {
  const id = pathId(raw);
  const record = id === null ? undefined : await s.store.get<R>(row.collection, id);
  // Another user's record answers exactly like a missing one: nothing tells that it exists.
  if (!record || (row.owned && record.userId !== userId)) throw new ApiError(404, row.messages.notFound);
  return record;
}

/** The store query of a list request: the user's records (or all, for unowned rows), the row's filters and order, the `q` search. */
export function listQueryOf(row: Resource, ctx: HookContext, query: Record<string, string | undefined>): ListQuery {
  const own = row.listQuery?.(query, ctx) ?? {};
  const q = query.q?.trim();
  return {
    ...(row.owned ? { owner: ctx.user.id } : {}),
    ...own,
    ...(q && row.searchable ? { search: { text: q, fields: row.searchable } } : {}),
  };
}

/** The public shapes of some records of a row, in one go where the row can. */
export async function entriesOf(row: Resource, records: readonly StoredRecord[], ctx: HookContext): Promise<Record<string, unknown>[]> {
  if (row.entries) return row.entries(records, ctx);
  return Promise.all(records.map((r) => row.entry(r, ctx)));
}

/** The link-management API's list envelope (the row's ListShape) around one page of a row's records. */
export async function listBody(s: Services, row: Resource, ctx: HookContext, query: Record<string, string | undefined>) {
  const { page, limit } = pageQuery(query);
  const found = await s.store.find(row.collection, { ...listQueryOf(row, ctx, query), offset: (page - 1) * limit, limit });
  const entries = await entriesOf(row, found.items, ctx);
  if (row.listShape === 'plain') return { error: '0', data: entries };
  if (row.listShape === 'flat') return { error: 0, ...pageMeta(found.total, page, limit), [row.listKey]: entries };
  return { error: '0', data: { ...pageMeta(found.total, page, limit), [row.listKey]: entries } };
}

/** How many times a write refused by a `retryOn` index is run, in all. */
const CONFLICT_TRIES = 3;

/**
 * Runs `fn` in a store transaction; a unique index that refuses a change (another request took the
 * key between the row's `check` and the commit, on a backend shared by several processes) answers
 * the row's error for that index, the same a `check` gives. A conflict on `retryOn`, an index
 * whose key `fn` decides from what it reads, runs `fn` again: it then reads the other write.
 */
export async function transact<R>(s: Pick<Services, 'store'>, row: Resource, fn: (tx: Tx) => Promise<R>, retryOn?: string): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await s.store.transaction(fn);
    } catch (err) {
      const mine = err instanceof ConflictError && err.collection === row.collection;
      if (mine && err.index === retryOn && attempt < CONFLICT_TRIES) continue;
      const answer = mine ? row.unique?.[err.index] : undefined;
      throw answer ? answer() : err;
    }
  }
}

// Each row's create schema, built once (a request must not rebuild it).
const createSchemas = new WeakMap<Resource, ReturnType<typeof createSchema>>();
const creatingOf = (row: Resource) => createSchemas.get(row) ?? createSchemas.set(row, createSchema(row)).get(row)!;

/** The answer to a get of the record `raw` names (404 unless the user may see it): the row's single shape. */
export async function singleBody(s: Services, row: Resource, ctx: HookContext, raw: string | undefined): Promise<Record<string, unknown>> {
  const record = await findVisible(s, row, raw, ctx.user.id);
  return { error: 0, ...(row.single ? await row.single(record, ctx) : { data: await row.entry(record, ctx) }) };
}

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

/**
 * Validates a create body of `row` and runs the row's `prepare`, outside any transaction: the fields
 * `insertChecked` stores, or (`existing`) the equal record the row answers instead. Throws ApiError.
 */
export async function prepareCreate(row: Resource, ctx: HookContext, body: Record<string, unknown>): Promise<Prepared> {
  const input = parseWith(creatingOf(row), withoutEmptyOptionals(row, 'create', body));
  return row.prepare ? row.prepare(input, ctx) : { fields: input };
}

/**
 * Inside `tx`: checks prepared fields against the latest data (references, the row's `check`, which
 * may make up a key) and inserts them; `dryRun` checks only and answers the record that would be
 * stored, id 0. A unique index's refusal is the store's ConflictError (see `conflictAnswer`).
 */
export async function insertChecked(tx: Tx, row: Resource, ctx: HookContext, fields: Record<string, unknown>, dryRun = false): Promise<StoredRecord> {
  await checkReferences(row, fields, ctx, tx);
  await row.check?.(fields, ctx, tx);
  if (dryRun) return { ...fields, id: 0 };
  return insertNew(tx, row, ctx, fields);
}

/** The row's own error for a write its unique index refused (ConflictError), or undefined when `err` is no such refusal. */
export function conflictAnswer(row: Resource, err: unknown): ApiError | undefined {
  return err instanceof ConflictError && err.collection === row.collection ? row.unique?.[err.index]?.() : undefined;
}

/** The fields every new owned record starts with: its owner and the time it was made. */
export function ownedStamp(s: Pick<Services, 'clock'>, row: Resource, ctx: HookContext): Record<string, unknown> {
  return row.owned ? { userId: ctx.user.id, date: formatDateTime(s.clock.now()) } : {};
}

/** Creates a record of a row from a request body (validated, checked, stored in one transaction) and answers the row's create response. */
export async function createBody(s: Services, row: Resource, ctx: HookContext, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const prepared = await prepareCreate(row, ctx, body);
  const stamp = ownedStamp(s, row, ctx);
  const record = prepared.existing ?? (await transact(s, row, (tx) => insertChecked(tx, row, ctx, { ...stamp, ...prepared.fields })));
  const extra = prepared.extra ?? {};
  return { error: 0, ...(row.created ? await row.created(record, ctx, extra) : { id: record.id }) };
}

/** The generic list/get/create/update/delete routes of one link-management row, at the row's paths. */
export function crudRoutes(s: Services, row: Resource): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const paths = row.paths;
  if (row.api === 'admin') {
    for (const p of Object.values(paths)) routes.use(p, requireAdmin);
  }
  const updating = row.update ? updateSchema(row) : null;

  if (paths.list) {
    const pages = new PageCache(s);
    // A kept page is answered in one synchronous step: a promise per request costs measurably at this rate (the list before the async store was synchronous).
    routes.get(paths.list, (c): Response | Promise<Response> => {
      const url = c.req.url;
      const at = url.indexOf('?');
      const key = `${c.get('user').id}${at === -1 ? '' : url.slice(at)}`;
      const kept = pages.kept(key);
      if (kept !== undefined) return c.body(kept, 200, JSON_TYPE);
      return pages
        .get(key, async () => {
          const ctx = hookContext(s, c);
          return JSON.stringify(await listBody(s, row, ctx, c.req.query()));
        })
        .then((page) => c.body(page, 200, JSON_TYPE));
    });
  }

  if (paths.get) {
    routes.get(paths.get, async (c) => c.json(await singleBody(s, row, hookContext(s, c), c.req.param('id'))));
  }

  if (paths.create && row.create) {
    routes.post(paths.create, async (c) => c.json(await createBody(s, row, hookContext(s, c), await readJson(c))));
  }

  if (paths.update && updating) {
    routes.put(paths.update, async (c) => {
      const ctx = hookContext(s, c);
      const existing = await findVisible(s, row, c.req.param('id'), ctx.user.id);
      const input = parseWith(updating, withoutEmptyOptionals(row, 'update', await readJson(c)));
      const prepared = row.prepare ? await row.prepare(input, ctx, existing) : { fields: input };
      const record = await transact(s, row, async (tx) => {
        await checkReferences(row, prepared.fields, ctx, tx);
        await row.check?.(prepared.fields, ctx, tx, existing);
        const updated = await tx.update(row.collection, existing.id, prepared.fields);
        if (!updated) throw new ApiError(404, row.messages.notFound);
        return updated;
      });
      return c.json({ error: 0, ...(row.updated ? await row.updated(record, ctx) : { message: row.messages.updated }) });
    });
  }

  if (paths.remove) {
    routes.delete(paths.remove, async (c) => {
      const ctx = hookContext(s, c);
      const record = await findVisible(s, row, c.req.param('id'), ctx.user.id);
      await transact(s, row, async (tx) => {
        if (!(await tx.remove(row.collection, record.id))) throw new ApiError(404, row.messages.notFound);
        await row.onDelete?.(tx, record, ctx);
        await dropReferences(tx, ctx, row.collection, record.id);
      });
      return c.json({ error: 0, message: row.messages.deleted });
    });
  }
  return routes;
}
