import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.ts';

/** Node's request handler shape. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * `listener` with one access-log line per request once its response is done: method, path (never
 * the query string, which may carry secrets), status and duration. It wraps Node's listener rather
 * than being a Hono middleware: any middleware sends every request through Hono's chain of
 * promises instead of its single-handler fast path. The path is logged as received (still
 * percent-encoded), so an encoded line break cannot forge a log line.
 */
export function withAccessLog(listener: RequestListener, log: Logger): RequestListener {
  return (req, res) => {
    const started = performance.now();
    res.once('close', () => {
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      log.info(`${req.method} ${query === -1 ? url : url.slice(0, query)} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
    });
    return listener(req, res);
  };
}
