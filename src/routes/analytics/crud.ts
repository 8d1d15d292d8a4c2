import { Hono } from 'hono';
import type { Context } from 'hono';
import type * as v from 'valibot';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { entriesOf, findVisible, hookContext, transact } from '../crud.ts';
import type { HookContext, Resource, Services } from '../../resources/define.ts';
import type { StoredRecord } from '../../store/store.ts';
import { readFormOrJson } from '../../analytics/form-body.ts';
import { parseOr422 } from '../../analytics/laravel-errors.ts';
import { laravelPageOf, linkQuery, listQuery, sentQuery } from '../../analytics/list-page.ts';
import type { ListQuery } from '../../analytics/list-page.ts';

/** What an analytics row needs beyond the table: its input rules and list filters. */
export interface AnalyticsCrud {
  /** Validated fields of a create (no `existing`) or update body; throws the 422. */
  parse(raw: Record<string, unknown>, ctx: HookContext, existing?: StoredRecord): Promise<Record<string, unknown>>;
  /** Query filters of the list beyond search, sort and paging (validated, then handed to `row.listQuery`). */
  filters?: v.ObjectEntries;
  /** A unique index whose key the row's `check` decides inside the write: a conflict on it runs the write again (see transact). */
  retryOn?: string;
}

/** Creates a record of an analytics row from a request body (parsed by `rules`, a 422 with each field's problems): the API's create and the dashboard's. */
export async function analyticsCreate(s: Services, row: Resource, rules: AnalyticsCrud, ctx: HookContext, raw: Record<string, unknown>): Promise<StoredRecord> {
  const input = await rules.parse(raw, ctx);
  const prepared = row.prepare ? await row.prepare(input, ctx) : { fields: input };
  return transact(
    s,
    row,
    async (tx) => {
      await row.check?.(prepared.fields, ctx, tx);
      return tx.insert(row.collection, { userId: ctx.user.id, ...prepared.fields });
    },
    rules.retryOn,
  );
}

/** Updates a record of an analytics row the user may see from a request body (parsed by `rules`): the API's PUT/PATCH and the dashboard's settings. */
export async function analyticsUpdate(s: Services, row: Resource, rules: AnalyticsCrud, ctx: HookContext, existing: StoredRecord, raw: Record<string, unknown>): Promise<StoredRecord> {
  const input = await rules.parse(raw, ctx, existing);
  const prepared = row.prepare ? await row.prepare(input, ctx, existing) : { fields: input };
  return transact(s, row, async (tx) => {
    await row.check?.(prepared.fields, ctx, tx, existing);
    const updated = await tx.update(row.collection, existing.id, prepared.fields);
    if (!updated) throw new ApiError(404, row.messages.notFound);
    return updated;
  });
}

/** Deletes a record of an analytics row the user may see, with what its onDelete removes: the API's delete and the dashboard's. */
export async function analyticsRemove(s: Services, row: Resource, ctx: HookContext, record: StoredRecord): Promise<void> {
  await transact(s, row, async (tx) => {
    if (!(await tx.remove(row.collection, record.id))) throw new ApiError(404, row.messages.notFound);
    await row.onDelete?.(tx, record, ctx);
  });
}

/** The list/get/create/update/delete routes of an analytics row in the API's Laravel dialect. */
export function analyticsCrudRoutes(s: Services, row: Resource, rules: AnalyticsCrud): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { list, get, create, update, remove } = row.paths;
  const searchable = (row.searchable ?? ['id']) as [string, ...string[]];
  const sortable = (row.sortable ?? ['id']) as [string, ...string[]];
  const querySchema = listQuery(searchable, sortable, rules.filters ?? {});
  const one = async (record: StoredRecord, ctx: HookContext, status: 200 | 201) => ({ data: await row.entry(record, ctx), status });

  if (list) {
    routes.get(list, async (c) => {
      const ctx = hookContext(s, c);
      const sent = sentQuery(c.req.query());
      const q = parseOr422(querySchema, sent) as ListQuery & Record<string, unknown>;
      const validated = Object.fromEntries(Object.entries(q).filter(([, value]) => value !== undefined).map(([k, value]) => [k, String(value)]));
      // An owner filter (`owner`) is the link API's audit log's; analytics lists are the user's own.
      const { owner: _owner, ...own } = row.listQuery?.(validated, ctx) ?? {};
      const needle = q.search;
      const by = q.search_by ?? searchable[0];
      const page = q.page ?? 1;
      const perPage = Number(q.per_page ?? 50);
      const found = await s.store.find(row.collection, {
        owner: ctx.user.id,
        ...own,
        ...(needle ? { search: { text: needle, fields: [by] } } : {}),
        sort: { field: q.sort_by ?? 'id', direction: q.sort ?? 'desc' },
        offset: (page - 1) * perPage,
        limit: perPage,
      });
      return c.json(laravelPageOf(await entriesOf(row, found.items, ctx), found.total, page, perPage, `${s.config.baseUrl}${list}`, linkQuery(c.req.query())));
    });
  }

  if (get) {
    routes.get(get, async (c) => {
      const ctx = hookContext(s, c);
      return c.json(await one(await findVisible(s, row, c.req.param('id'), ctx.user.id), ctx, 200));
    });
  }

  if (create && row.create) {
    routes.post(create, async (c) => {
      const ctx = hookContext(s, c);
      const record = await analyticsCreate(s, row, rules, ctx, await readFormOrJson(c));
      return c.json(await one(record, ctx, 201), 201);
    });
  }

  if (update && row.update) {
    const handler = async (c: Context<AppEnv>) => {
      const ctx = hookContext(s, c);
      const existing = await findVisible(s, row, c.req.param('id'), ctx.user.id);
      const record = await analyticsUpdate(s, row, rules, ctx, existing, await readFormOrJson(c));
      return c.json(await one(record, ctx, 200));
    };
    routes.put(update, handler);
    routes.patch(update, handler);
  }

  if (remove) {
    routes.delete(remove, async (c) => {
      const ctx = hookContext(s, c);
      const record = await findVisible(s, row, c.req.param('id'), ctx.user.id);
      await analyticsRemove(s, row, ctx, record);
      return c.json({ id: record.id, object: row.name, deleted: true, status: 200 });
    });
  }
  return routes;
}
