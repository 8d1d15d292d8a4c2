import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { requireAdmin } from '../../http/auth.ts';
import { readJson } from '../../http/validate.ts';
import type { Services } from '../../resources/define.ts';
import { links } from '../../resources/links.ts';
import { users } from '../../resources/users.ts';
import { createBody, hookContext, listBody, singleBody } from '../crud.ts';

/** A body value read as a query value would be: numbers as their text, anything else but text as absent (lenient, as the list query is). */
function asQueryValue(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

/** The id a wrapper call names in its body (`urlid`, `userid`): a number or its text; missing or of another type is a 400, an id of nothing a 404 later. */
export function bodyId(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw new ApiError(400, `Missing required parameter: ${field}`);
  const text = asQueryValue(value);
  if (text === undefined) throw new ApiError(400, `Invalid ${field}: it must be the id, a number.`);
  return text.trim();
}

/**
 * The calls of the vendor's own PHP wrapper, which POSTs a JSON body to endpoints of an older
 * version of the API; each answers exactly what its v3 equivalent does, through the same code
 * (docs/compatibility.md).
 */
export function wrapperRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  // As GET /api/urls?limit&page&order (the paging and order read as leniently).
  routes.post('/api/url/get', async (c) => {
    const body = await readJson(c);
    const query = { limit: asQueryValue(body.limit), page: asQueryValue(body.page), order: asQueryValue(body.order) };
    return c.json(await listBody(s, links, hookContext(s, c), query));
  });
  // As GET /api/url/:id.
  routes.post('/api/url/stats', async (c) => c.json(await singleBody(s, links, hookContext(s, c), bodyId(await readJson(c), 'urlid'))));
  // As POST /api/user/add and GET /api/user/:id (admin).
  routes.post('/api/user/create', requireAdmin, async (c) => c.json(await createBody(s, users, hookContext(s, c), await readJson(c))));
  routes.post('/api/user/get', requireAdmin, async (c) => c.json(await singleBody(s, users, hookContext(s, c), bodyId(await readJson(c), 'userid'))));
  return routes;
}
