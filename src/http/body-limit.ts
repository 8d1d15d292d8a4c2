import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** The methods whose requests may carry a body: the only ones the limit is mounted for (GET and HEAD skip it altogether). */
export const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Hono's bodyLimit, answered from the headers where they settle it. bodyLimit starts by reading
 * `c.req.raw.body`, which makes @hono/node-server build a whole web Request (abort signal, body
 * stream) for every request, and then read the body through that stream. With a Content-Length
 * and no Transfer-Encoding bodyLimit only compares the length: that is decided here the same way,
 * and the body stays on the fast path. Mount it for BODY_METHODS only.
 */
export function requestBodyLimit(maxSize: number, onError: (c: Context) => Response | Promise<Response>): MiddlewareHandler {
  const limit = bodyLimit({ maxSize, onError });
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length || '0', 10) > maxSize ? onError(c) : next();
    }
    return limit(c, next);
  };
}
