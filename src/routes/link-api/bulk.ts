import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { readJsonValue } from '../../http/validate.ts';
import type { Services } from '../../resources/define.ts';
import { links } from '../../resources/links.ts';
import { removeMany, updateMany } from '../change-many.ts';
import { createMany } from '../create-many.ts';
import type { ItemOutcome } from '../create-many.ts';
import { hookContext } from '../crud.ts';

/** Items one bulk request may carry at most; more is a 400. */
export const BULK_MAX_ITEMS = 1000;

/** The bulk routes of the link API (an extension: the real product has none). */
export const BULK_PATHS = { create: '/api/url/bulk', update: '/api/url/bulk/update', remove: '/api/url/bulk/delete' } as const;

/** Whether a request path is one of the bulk routes (which have their own body limit). */
export const isBulkPath = (path: string): boolean => path === BULK_PATHS.create || path === BULK_PATHS.update || path === BULK_PATHS.remove;

/** A bulk request's envelope: its items (under `key`, or the body itself when it is a bare array) and whether it is atomic. */
export function bulkEnvelope(body: unknown, key: string): { items: unknown[]; atomic: boolean } {
  const envelope = Array.isArray(body) ? { [key]: body } : body;
  if (!envelope || typeof envelope !== 'object') throw new ApiError(400, `The request body must be a JSON object with "${key}", or a JSON array.`);
  const { [key]: items, atomic = false } = envelope as Record<string, unknown>;
  if (items === undefined) throw new ApiError(400, `Missing required parameter: ${key}`);
  if (!Array.isArray(items)) throw new ApiError(400, `Invalid ${key}: must be a list.`);
  if (items.length === 0) throw new ApiError(400, `Invalid ${key}: the list is empty.`);
  if (items.length > BULK_MAX_ITEMS) throw new ApiError(400, `Invalid ${key}: at most ${BULK_MAX_ITEMS} items per request (${items.length} sent).`);
  if (typeof atomic !== 'boolean') throw new ApiError(400, 'Invalid atomic: must be true or false.');
  return { items, atomic };
}

/** An item's answer: the single request's body, or `{error: 1, message}`. */
const itemAnswer = (o: ItemOutcome) => (o.ok ? o.body : { error: 1, message: o.error.message });

/**
 * The answer to a bulk request: 200 with each item's answer in order; an atomic one with a failed
 * item is a 400 that says which failed (`failed`: their positions) and stored nothing.
 */
export function bulkAnswer(outcomes: readonly ItemOutcome[]): Record<string, unknown> {
  const results = outcomes.map(itemAnswer);
  // A loop, not flatMap: no array per item.
  const failed: number[] = [];
  let rolledBack = false;
  outcomes.forEach((o, at) => {
    if (o.ok) return;
    if (o.rolledBack) rolledBack = true;
    else failed.push(at);
  });
  if (rolledBack) {
    throw new ApiError(400, `Nothing was stored: ${failed.length} of ${outcomes.length} items failed and the request is atomic.`, undefined, { failed, results });
  }
  return { error: 0, succeeded: outcomes.length - failed.length, failed: failed.length, results };
}

// An id as a path carries it: numbers and digit strings alike.
const idText = (id: unknown) => (typeof id === 'number' || typeof id === 'string' ? String(id) : undefined);

/**
 * `POST /api/url/bulk` (create), `/api/url/bulk/update` and `/api/url/bulk/delete`: up to
 * BULK_MAX_ITEMS links per request, each through the same steps as its single request
 * (createMany, updateMany, removeMany), all in one transaction.
 */
export function bulkRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(BULK_PATHS.create, async (c) => {
    const { items, atomic } = bulkEnvelope(await readJsonValue(c), 'urls');
    return c.json(bulkAnswer(await createMany(s, links, hookContext(s, c), items, atomic)));
  });
  routes.post(BULK_PATHS.update, async (c) => {
    const { items, atomic } = bulkEnvelope(await readJsonValue(c), 'urls');
    const updates = items.map((item) => {
      if (!item || typeof item !== 'object' || Array.isArray(item)) return { id: undefined, body: item };
      const { id, ...body } = item as Record<string, unknown>;
      return { id: idText(id) ?? (id === undefined ? undefined : ''), body };
    });
    return c.json(bulkAnswer(await updateMany(s, links, hookContext(s, c), updates, atomic)));
  });
  routes.post(BULK_PATHS.remove, async (c) => {
    const { items, atomic } = bulkEnvelope(await readJsonValue(c), 'ids');
    return c.json(bulkAnswer(await removeMany(s, links, hookContext(s, c), items.map((id) => idText(id) ?? ''), atomic)));
  });
  return routes;
}
