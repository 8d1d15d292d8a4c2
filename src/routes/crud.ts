import { Hono } from 'hono';
import type { Context } from 'hono';
import { createMany, uniqueAnswer } from './create-many.ts';
import { applyUpdate, prepareUpdate, removeIn, updatedBody, visibleIn } from './change-many.ts';
import type { HookContext, Resource, Services } from '../resources/define.ts';
import { ConflictError } from '../store/store.ts';
import type { ListQuery, StoredRecord, Tx } from '../store/store.ts';
import type { AppEnv } from '../http/app-env.ts';
import { requireAdmin } from '../http/auth.ts';
import { PageCache } from '../http/page-cache.ts';
import { pageMeta, pageQuery } from '../http/pagination.ts';
import { readJson } from '../http/validate.ts';

/** What `c.json` sends as the content type, for bodies serialised ahead of time. */
const JSON_TYPE = { 'Content-Type': 'application/json' } as const;

/** The context hooks get: the services and the signed-in user. */
export function hookContext(s: Services, c: Context<AppEnv>): HookContext {
  return { ...s, user: c.get('user'), requestHost: c.req.header('host'), apiKey: c.get('apiKey') ?? null };
}

/** The record `raw` names if it exists and the user may see it; otherwise a 404 with the row's message. */
export async function findVisible<R extends StoredRecord>(s: Pick<Services, 'store'>, row: Resource, raw: string | undefined, userId: number): Promise<R> {
  return visibleIn<R>(s.store, row, raw, userId);
}

/** The store query of a list request: the user's records (or all, for unowned rows), the row's filters and order, the `q` search. */
export function listQueryOf(row: Resource, ctx: HookContext, query: Record<string, string | undefined>): ListQuery {
  const { owner, ...own } = row.listQuery?.(query, ctx) ?? {};
  const q = query.q?.trim();
  return {
    ...(row.owned && owner !== 'any' ? { owner: owner ?? ctx.user.id } : {}),
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
      throw uniqueAnswer(row, err) ?? err;
    }
  }
}

/** The answer to a get of the record `raw` names (404 unless the user may see it): the row's single shape. */
export async function singleBody(s: Services, row: Resource, ctx: HookContext, raw: string | undefined): Promise<Record<string, unknown>> {
  const record = await findVisible(s, row, raw, ctx.user.id);
  return { error: 0, ...(row.single ? await row.single(record, ctx) : { data: await row.entry(record, ctx) }) };
}

/** Creates a record of a row from a request body (validated, checked, stored in one transaction: createMany) and answers the row's create response. */
export async function createBody(s: Services, row: Resource, ctx: HookContext, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const [outcome] = await createMany(s, row, ctx, [body], false);
  if (!outcome!.ok) throw outcome!.error;
  return outcome!.body;
}

/**
 * Updates a record the user may see (`existing`, from findVisible) from an update body: validated,
 * prepared, checked and written in one transaction, as PUT …/update does. `adjust` may change the
 * prepared fields before the write (the dashboard keeps a link's password its form cannot show).
 */
export async function updateRecord(s: Services, row: Resource, ctx: HookContext, existing: StoredRecord, body: Record<string, unknown>, adjust?: (fields: Record<string, unknown>) => void): Promise<StoredRecord> {
  const fields = await prepareUpdate(row, ctx, existing, body);
  adjust?.(fields);
  return transact(s, row, (tx) => applyUpdate(row, ctx, tx, existing, fields));
}

/** Deletes a record the user may see, with what it cascades, as DELETE …/delete does; then the row's `deleted` hook. */
export async function removeRecord(s: Services, row: Resource, ctx: HookContext, record: StoredRecord): Promise<void> {
  await transact(s, row, (tx) => removeIn(row, ctx, tx, record));
  await row.deleted?.(record, ctx);
}

/** The generic list/get/create/update/delete routes of one link-management row, at the row's paths. */
export function crudRoutes(s: Services, row: Resource): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const paths = row.paths;
  if (row.api === 'admin') {
    for (const p of Object.values(paths)) routes.use(p, requireAdmin);
  }

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

  if (paths.update && row.update) {
    routes.put(paths.update, async (c) => {
      const ctx = hookContext(s, c);
      const existing = await findVisible(s, row, c.req.param('id'), ctx.user.id);
      const record = await updateRecord(s, row, ctx, existing, await readJson(c));
      return c.json(await updatedBody(row, ctx, record));
    });
  }

  if (paths.remove) {
    routes.delete(paths.remove, async (c) => {
      const ctx = hookContext(s, c);
      await removeRecord(s, row, ctx, await findVisible(s, row, c.req.param('id'), ctx.user.id));
      return c.json({ error: 0, message: row.messages.deleted });
    });
  }
  return routes;
}
