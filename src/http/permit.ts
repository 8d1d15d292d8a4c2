import type { Context, Handler, MiddlewareHandler, Next } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { BusyError } from '../auth/semaphore.ts';
import { covers } from '../auth/scopes.ts';
import type { RouteRule, RouteScopes } from '../auth/route-scopes.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../resources/define.ts';
import { ConflictError, StoreUnavailableError } from '../store/store.ts';
import type { AppEnv } from './app-env.ts';
import { clientIp } from './client-ip.ts';
import { pathId } from './validate.ts';

/** The answer to a scoped key without the scope a route needs (403, in each API's error shape). */
export function lacksScope(scope: string): ApiError {
  return new ApiError(403, `This API key lacks the scope ${scope}.`);
}

/** The status an error is answered with (the one the audit log keeps; toApiError makes the answer itself). */
function statusOf(err: unknown): number {
  if (err instanceof ApiError || err instanceof HTTPException) return err.status;
  if (err instanceof ConflictError) return 409;
  if (err instanceof BusyError || err instanceof StoreUnavailableError) return 503;
  return 500;
}

/** The id of the record a route names: its `:id`, else its first `:…id` (`:campaignid`); null when none or not an id. */
function namedId(params: Record<string, string>): number | null {
  const name = 'id' in params ? 'id' : Object.keys(params).find((k) => /id$/i.test(k));
  return name === undefined ? null : pathId(params[name]);
}

/** The id in a create's answer (`{id}` or `{data: {id}}`), or null. */
function idIn(body: unknown): number | null {
  const b = body as { id?: unknown; data?: { id?: unknown } } | null;
  const id = b?.id ?? b?.data?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

/**
 * The id a create answered: from the object the route gave c.json when it did (`sent`), else read
 * back from the response's JSON (a clone of it: ~12% of a durable create's CPU, so only then).
 */
async function createdId(res: Response, sent: { object: unknown } | null): Promise<number | null> {
  if (sent) return idIn(sent.object);
  if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) return null;
  try {
    return idIn(await res.clone().json());
  } catch {
    return null;
  }
}

/** Keeps what the route answers through `c.json` (the last object), for createdId. */
function keepJson(c: Context<AppEnv>): () => { object: unknown } | null {
  let sent: { object: unknown } | null = null;
  const json = c.json;
  c.json = ((object: unknown, ...rest: unknown[]) => {
    sent = { object };
    return (json as (...args: unknown[]) => Response)(object, ...rest);
  }) as typeof c.json;
  return () => sent;
}

/**
 * `handler` behind the scope check of its route: a scoped key without the scope the route needs
 * (route-scopes.ts) gets 403; the account key passes. A write is also audited, whatever its outcome
 * (refused ones included). Runs after authentication and the rate limit, once per request (the
 * first handler of a route checks; the others pass). `method` is the route's (ALL: the request's).
 */
export function permitted<H extends Handler<AppEnv> | MiddlewareHandler<AppEnv>>(s: Services, scopes: RouteScopes, method: string, path: string, handler: H): H {
  const fixed = method === 'ALL' ? undefined : scopes.of(method, path);
  return ((c: Context<AppEnv>, next: Next) => {
    if (c.get('permitted')) return handler(c, next);
    c.set('permitted', true);
    const rule = fixed !== undefined ? fixed : scopes.of(c.req.method, path);
    if (!rule) return handler(c, next);
    const run = () => {
      const key = c.get('apiKey');
      if (key && !covers(key.scopes, rule.scope)) throw lacksScope(rule.scope);
      return handler(c, next);
    };
    return rule.write ? audited(s, c, rule, path, run) : run();
  }) as H;
}

async function audited(s: Services, c: Context<AppEnv>, rule: RouteRule, route: string, run: () => ReturnType<Handler<AppEnv>>) {
  const entry = { userId: c.get('user').id, keyId: c.get('apiKey')?.id ?? null, method: c.req.method, route, resource: rule.resource, resourceId: namedId(c.req.param() as Record<string, string>), ip: clientIp(c, s.config.trustProxy) };
  const sent = entry.resourceId === null ? keepJson(c) : () => null;
  try {
    const res = await run();
    const answered = res instanceof Response ? res : c.res;
    // An error of a later handler of the route was answered by the error handler: its status, not ERROR_STATUS=200's.
    const status = c.error ? statusOf(c.error) : answered.status;
    const resourceId = entry.resourceId ?? (status < 300 ? await createdId(answered, sent()) : null);
    s.audit.record({ ...entry, resourceId, status });
    return res;
  } catch (err) {
    s.audit.record({ ...entry, status: statusOf(err) });
    throw err;
  }
}
