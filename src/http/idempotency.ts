import { createHash } from 'node:crypto';
import type { Context, Handler, MiddlewareHandler, Next } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../errors.ts';
import { claimKey, holdsSecret, IDEMPOTENCY_COLLECTION, keepAnswer, pruneKeys, releaseKey, SECRET_NOT_KEPT } from '../idempotency/keys.ts';
import { withWorkMark } from '../store/work-marks.ts';
import type { KeptAnswer } from '../idempotency/keys.ts';
import type { Services } from '../resources/define.ts';
import type { AppEnv } from './app-env.ts';

/** The request header, as Stripe names it. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The header of an answer given again. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

// Expired keys are removed at most this often, by each process.
const PRUNE_EVERY_MS = 10 * 60 * 1000;

// 1 to 255 printable ASCII characters (a UUID fits; as Stripe's limit).
const VALID_KEY = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/** Messages of the answers the key itself decides. */
export const IDEMPOTENCY_MESSAGES = {
  invalid: 'Invalid Idempotency-Key: use 1 to 255 printable ASCII characters (a UUID, say).',
  mismatch: 'This Idempotency-Key was used with another request (method, path or body): keys can only be used again with the same request. Use a new key for a new request.',
  busy: 'A request with this Idempotency-Key is still in progress: try again once it has finished.',
} as const;

/** Hash of what makes two requests the same: method, path with its query, and the body's bytes. */
export function requestHashOf(method: string, pathAndQuery: string, body: Uint8Array): string {
  return createHash('sha256').update(`${method} ${pathAndQuery}\n`).update(body).digest('hex');
}

/** `requestHashOf` a request. */
async function requestHash(c: Context): Promise<string> {
  const url = c.req.url;
  const at = url.indexOf('/', url.indexOf('//') + 2);
  return requestHashOf(c.req.method, at === -1 ? '/' : url.slice(at), new Uint8Array(await c.req.arrayBuffer()));
}

/** The kept answer replayed: the same status and body (a kept error thrown again, rendered as it was the first time). */
function replay(c: Context, answer: KeptAnswer): Response {
  c.header(REPLAYED_HEADER, 'true');
  if ('error' in answer) throw new ApiError(answer.error.status, answer.error.message, answer.error.fields, answer.error.extra);
  return c.body(answer.body, answer.status as ContentfulStatusCode, { 'Content-Type': answer.type });
}

/**
 * Wraps a handler with `Idempotency-Key` honoured, as Stripe's API does: the first answer to a key is
 * kept for 24 hours, per key and user (idempotency/keys.ts), and given again, same status and
 * body, to a request with the same key, method, path and body (`Idempotent-Replayed: true`). The
 * same key with another request is a 422; while the first one runs, a 409. Answers of 5xx (the
 * server's failure, not the request's) are not kept: a retry runs again. Mounted after
 * authentication (the user is known); without the header, `handler` alone.
 */
export function idempotencyKeys(s: Services): <H extends Handler<AppEnv> | MiddlewareHandler<AppEnv>>(handler: H) => H {
  // One app's routes share the pruning: expired keys go at most every PRUNE_EVERY_MS.
  let prunedAt = 0;
  const prune = (now: number) => {
    if (now - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now;
    pruneKeys(s.store, now).catch((err: unknown) => s.log.warn('pruning expired idempotency keys failed', { error: String(err) }));
  };
  return <H extends Handler<AppEnv> | MiddlewareHandler<AppEnv>>(handler: H): H => (async (c: Context<AppEnv>, next: Next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    // A route of two handlers (a middleware first) passes here twice: the first one holds the key.
    if (key === undefined || c.get('idempotent')) return handler(c, next);
    if (!VALID_KEY.test(key)) throw new ApiError(400, IDEMPOTENCY_MESSAGES.invalid);
    c.set('idempotent', true);
    const now = s.clock.now();
    prune(now);
    const claim = await claimKey(s.store, c.get('user').id, key, await requestHash(c), now);
    if (claim.kind === 'replay') return replay(c, claim.answer);
    if (claim.kind === 'mismatch') throw new ApiError(422, IDEMPOTENCY_MESSAGES.mismatch);
    if (claim.kind === 'busy') {
      c.header('Retry-After', '1');
      throw new ApiError(409, IDEMPOTENCY_MESSAGES.busy);
    }
    let answered: Response | void;
    // Each write the request commits marks the key in the same transaction, so a retry after a crash
    // between that commit and keeping the answer never runs it again (keys.ts, LOST_AFTER_MS).
    const mark = { collection: IDEMPOTENCY_COLLECTION, id: claim.id, fields: () => ({ committedAt: s.clock.now() }), open: true };
    try {
      answered = await withWorkMark(mark, async () => handler(c, next));
    } catch (err) {
      await settle(s, claim.id, err instanceof ApiError && err.status < 500 ? { error: { status: err.status, message: err.message, fields: err.fields, extra: err.extra } } : null);
      throw err;
    }
    const res = answered ?? c.res;
    const body = res.status < 500 ? await res.clone().text() : '';
    // A secret shown once is never kept in plain text: a retry is told so, and does not run again.
    const kept = holdsSecret(body) ? SECRET_NOT_KEPT : { status: res.status, body, type: res.headers.get('content-type') ?? 'application/json' };
    await settle(s, claim.id, res.status < 500 ? kept : null);
    return answered;
  }) as H;
}

/**
 * Keeps the answer of a claimed key, or forgets the key (null). Its request's work is done
 * either way: should the store fail now, the request still gets its answer, and the key, marked
 * running, can run again once ABANDONED_MS has passed.
 */
async function settle(s: Services, id: number, answer: KeptAnswer | null): Promise<void> {
  try {
    await (answer ? keepAnswer(s.store, id, answer) : releaseKey(s.store, id));
  } catch (err) {
    s.log.error('keeping the answer of an idempotency key failed', { error: String(err) });
  }
}
