import { Hono } from 'hono';
import type { Context } from 'hono';
import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { createSchema, updateSchema } from '../resources/define.ts';
import type { HookContext, Resource, Services } from '../resources/define.ts';
import { checkReferences, dropReferences } from '../resources/references.ts';
import type { StoredRecord } from '../store/store.ts';
import type { AppEnv } from './app-env.ts';
import { requireAdmin } from './auth.ts';
import { PageCache } from './page-cache.ts';
import { pageQuery, paginate } from './pagination.ts';
import { parseWith, pathId, readJson } from './validate.ts';

/** What `c.json` sends as the content type, for bodies serialised ahead of time. */
const JSON_TYPE = { 'Content-Type': 'application/json' } as const;

/** The context hooks get: the services and the signed-in user. */
export function hookContext(s: Services, c: Context<AppEnv>): HookContext {
  return { ...s, user: c.get('user'), requestHost: c.req.header('host')?.toLowerCase() };
}

/** The record `raw` names if it exists and the user may see it; otherwise a 404 with the row's message. */
export function findVisible<R extends StoredRecord>(s: Services, row: Resource, raw: string | undefined, userId: number): R {
  const id = pathId(raw);
  const record = id === null ? undefined : s.store.get<R>(row.collection, id);
  // Another user's record answers exactly like a missing one: nothing tells that it exists.
  if (!record || (row.owned && record.userId !== userId)) throw new ApiError(404, row.messages.notFound);
  return record;
}

/**
 * The records a user may list, newest first, without copying the collection on every request: the
 * last list is kept until the collection changes (one per row, so memory stays bounded). Read only.
 */
export function newestFirst(s: Services, row: Resource): (userId: number) => readonly StoredRecord[] {
  let last: { userId: number; version: number; records: StoredRecord[] } | null = null;
  return (userId) => {
    const version = s.store.version(row.collection);
    if (last?.userId !== userId || last.version !== version) {
      const records = row.owned ? s.store.owned(row.collection, userId) : s.store.all(row.collection);
      last = { userId, version, records: records.reverse() };
    }
    return last.records;
  };
}

/** The records a user may list, newest first, narrowed by the row's filter and `q` search. */
export function visibleRecords(
  s: Services,
  row: Resource,
  ctx: HookContext,
  query: Record<string, string | undefined>,
  listed: (userId: number) => readonly StoredRecord[],
): readonly StoredRecord[] {
  let records = listed(ctx.user.id);
  // Filters may sort in place: they get their own copy.
  if (row.filter) records = row.filter([...records], query, ctx);
  const q = query.q?.trim().toLowerCase();
  if (q && row.searchable) {
    const fields = row.searchable;
    records = records.filter((r) => fields.some((f) => String(r[f] ?? '').toLowerCase().includes(q)));
  }
  return records;
}

/** The link-management API's list envelope around one page of entries. */
export function listBody(row: Resource, ctx: HookContext, records: readonly StoredRecord[], query: Record<string, string | undefined>) {
  const { page, limit } = pageQuery(query);
  const { items, ...meta } = paginate(records, page, limit);
  return { error: '0', data: { ...meta, [row.listKey]: items.map((r) => row.entry(r, ctx)) } };
}

/** The generic list/get/create/update/delete routes of one link-management row, at the row's paths. */
export function crudRoutes(s: Services, row: Resource): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const paths = row.paths;
  if (row.api === 'admin') {
    for (const p of Object.values(paths)) routes.use(p, requireAdmin);
  }
  const creating = row.create ? createSchema(row) : null;
  const updating = row.update ? updateSchema(row) : null;

  if (paths.list) {
    const listed = newestFirst(s, row);
    const pages = new PageCache(s);
    routes.get(paths.list, (c) => {
      const url = c.req.url;
      const at = url.indexOf('?');
      const page = pages.get(`${c.get('user').id}${at === -1 ? '' : url.slice(at)}`, () => {
        const ctx = hookContext(s, c);
        const query = c.req.query();
        return JSON.stringify(listBody(row, ctx, visibleRecords(s, row, ctx, query, listed), query));
      });
      return c.body(page, 200, JSON_TYPE);
    });
  }

  if (paths.get) {
    routes.get(paths.get, (c) => {
      const ctx = hookContext(s, c);
      const record = findVisible(s, row, c.req.param('id'), ctx.user.id);
      return c.json({ error: 0, ...(row.single ? row.single(record, ctx) : { data: row.entry(record, ctx) }) });
    });
  }

  if (paths.create && creating) {
    routes.post(paths.create, async (c) => {
      const ctx = hookContext(s, c);
      const input = parseWith(creating, await readJson(c));
      const prepared = row.prepare ? await row.prepare(input, ctx) : { fields: input };
      const stamp = row.owned ? { userId: ctx.user.id, date: formatDateTime(s.clock.now()) } : {};
      const record =
        prepared.existing ??
        (await s.store.write((tx) => {
          checkReferences(row, prepared.fields, ctx);
          row.check?.(prepared.fields, ctx);
          return tx.insert(row.collection, { ...stamp, ...prepared.fields });
        }));
      const extra = prepared.extra ?? {};
      return c.json({ error: 0, ...(row.created ? row.created(record, ctx, extra) : { id: record.id }) });
    });
  }

  if (paths.update && updating) {
    routes.put(paths.update, async (c) => {
      const ctx = hookContext(s, c);
      const existing = findVisible(s, row, c.req.param('id'), ctx.user.id);
      const input = parseWith(updating, await readJson(c));
      const prepared = row.prepare ? await row.prepare(input, ctx, existing) : { fields: input };
      const record = await s.store.write((tx) => {
        checkReferences(row, prepared.fields, ctx);
        row.check?.(prepared.fields, ctx, existing);
        const updated = tx.update(row.collection, existing.id, prepared.fields);
        if (!updated) throw new ApiError(404, row.messages.notFound);
        return updated;
      });
      return c.json({ error: 0, ...(row.updated ? row.updated(record, ctx) : { message: row.messages.updated }) });
    });
  }

  if (paths.remove) {
    routes.delete(paths.remove, async (c) => {
      const ctx = hookContext(s, c);
      const record = findVisible(s, row, c.req.param('id'), ctx.user.id);
      await s.store.write((tx) => {
        if (!tx.remove(row.collection, record.id)) throw new ApiError(404, row.messages.notFound);
        row.onDelete?.(tx, record, ctx);
        dropReferences(tx, ctx, row.collection, record.id);
      });
      return c.json({ error: 0, message: row.messages.deleted });
    });
  }
  return routes;
}
