import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * Hono's bodyLimit, answered from the headers where they settle it. bodyLimit starts by reading
 * `c.req.raw.body`, which makes @hono/node-server build a whole web Request (abort signal, body
 * stream) for every request, and then read the body through that stream. GET and HEAD never have a
 * body there (bodyLimit passes them; TRACE is read as a GET), and with a Content-Length and no Transfer-Encoding bodyLimit
 * only compares the length: both are decided here the same way, and the body stays on the fast path.
 */
export function requestBodyLimit(maxSize: number, onError: (c: Context) => Response | Promise<Response>): MiddlewareHandler {
  const limit = bodyLimit({ maxSize, onError });
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'TRACE') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length || '0', 10) > maxSize ? onError(c) : next();
    }
    return limit(c, next);
  };
}
