import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BusyError } from '../auth/semaphore.ts';
import type { ErrorStatus } from '../config.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import type { Logger } from '../log.ts';
import { ConflictError, StoreUnavailableError } from '../store/store.ts';
import { PoolFullError } from '../threads/worker-pool.ts';

const lastWarned = new WeakMap<Logger, number>();

// True at most once per 5 s per logger.
function quiet(log: Logger): boolean {
  const now = Date.now();
  if (now - (lastWarned.get(log) ?? 0) < 5000) return false;
  lastWarned.set(log, now);
  return true;
}

/** True for paths of either API (`/api` and below), where errors are JSON. */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/** True for paths of the analytics API, which has its own (Laravel-shaped) error body. */
export function isAnalyticsPath(path: string): boolean {
  return path === '/api/v1' || path.startsWith('/api/v1/');
}

/**
 * True for paths of the link-management API: under `/api` but neither the analytics API nor its
 * tracking endpoint `/api/event` (part of the analytics product, which uses real statuses).
 */
export function isLinkApiPath(path: string): boolean {
  return isApiPath(path) && !isAnalyticsPath(path) && path !== '/api/event';
}

/** The link-management API's error body: `{error: 1, message}`, and what the error adds (`extra`). */
export function linkErrorBody(err: ApiError): Record<string, unknown> {
  return { error: 1, message: err.message, ...err.extra };
}

const ANALYTICS_MESSAGES: Record<number, string> = {
  401: 'Unauthenticated.',
  404: 'Resource not found.',
  429: 'Too Many Attempts.',
};

/** The analytics API's error body (../shared/spec/compat-notes.md): `{message, status}`, fields on 422. */
export function analyticsErrorBody(err: ApiError): Record<string, unknown> {
  if (err.status === 422) return { message: err.fields ?? { body: [err.message] }, status: 422 };
  return { message: ANALYTICS_MESSAGES[err.status] ?? err.message, status: err.status };
}

/** Turns anything thrown into an ApiError (a full password or render queue is a 503); unknown errors are logged and become a generic 500. */
export function toApiError(err: unknown, log: Logger, c: Context): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) return new ApiError(err.status, err.message || 'Bad request.');
  if (err instanceof BusyError) {
    c.header('Retry-After', '1');
    return new ApiError(503, 'The server is busy checking passwords. Please try again in a moment.');
  }
  if (err instanceof PoolFullError) {
    c.header('Retry-After', String(err.retryAfter));
    return new ApiError(503, `The server is busy (${err.pool} queue full). Please try again in a moment.`);
  }
  if (err instanceof StoreUnavailableError) {
    // While the database is away every request lands here: one line every few seconds is enough.
    if (quiet(log)) log.warn('storage unavailable: answering 503', { reason: err.reason });
    c.header('Retry-After', '2');
    return new ApiError(503, MESSAGES.unavailable);
  }
  if (err instanceof ConflictError) return new ApiError(409, 'The request conflicts with a change made at the same time. Please try again.');
  log.error('unhandled error', { method: c.req.method, path: c.req.path, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return new ApiError(500, MESSAGES.internal);
}

/**
 * The 405 for a known path and a method it lacks, with `Allow`; the message in the words of the
 * path's API (the analytics API's is Laravel's own).
 */
export function methodNotAllowed(c: Context, allow: readonly string[]): ApiError {
  c.header('Allow', allow.join(', '));
  if (isAnalyticsPath(c.req.path)) {
    return new ApiError(405, `The ${c.req.method} method is not supported for route ${c.req.path.slice(1)}. Supported methods: ${allow.join(', ')}.`);
  }
  const use = allow.filter((m) => m !== 'HEAD');
  const last = use.pop();
  return new ApiError(405, `Method not allowed. Use ${use.length > 0 ? `${use.join(', ')} or ${last}` : last}.`);
}

// Errors the same request may not meet again: the key's rate limit (429), a change made at the same
// time (409), the server's own fault (5xx: storage away, busy password checks). Clients retry on
// these, by their status and Retry-After.
const RETRY_LATER: ReadonlySet<number> = new Set([408, 409, 425, 429]);

/**
 * Whether ERROR_STATUS=200 answers an error status with 200: only errors a client fixes by changing
 * its request (a field, the key, the path, the method, the body's size or type). The others keep
 * their status (see RETRY_LATER), or a client that retries on 429 and 503 would give up instead.
 */
export function answeredOkUnderErrorStatus200(status: number): boolean {
  return status >= 400 && status < 500 && !RETRY_LATER.has(status);
}

/**
 * The one place errors become responses, in the shape of the API the path belongs to. With
 * ERROR_STATUS=200 the link-management API answers the errors a client fixes by changing its
 * request with HTTP 200, as the real product does (clients written against it stop on any other
 * status); the others keep theirs. Headers such as `Retry-After` stay.
 */
export function renderError(c: Context, err: ApiError, errorStatus: ErrorStatus = 'real'): Response {
  const analytics = isAnalyticsPath(c.req.path);
  const body = analytics ? analyticsErrorBody(err) : linkErrorBody(err);
  const status = errorStatus === 200 && isLinkApiPath(c.req.path) && answeredOkUnderErrorStatus200(err.status) ? 200 : err.status;
  return c.json(body, status as ContentfulStatusCode);
}
