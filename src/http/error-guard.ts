import type { ServerResponse } from 'node:http';
import { ApiError, MESSAGES } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { RequestListener } from './access-log.ts';
import { analyticsErrorBody, isAnalyticsPath, isApiPath, linkErrorBody } from './error-body.ts';

/** The body of a last-resort 500 for `path`: the API's JSON error, or plain text for pages. */
function internalError(path: string): { type: string; body: string } {
  const err = new ApiError(500, MESSAGES.internal);
  if (isApiPath(path)) {
    return { type: 'application/json', body: JSON.stringify(isAnalyticsPath(path) ? analyticsErrorBody(err) : linkErrorBody(err)) };
  }
  return { type: 'text/plain; charset=utf-8', body: 'Internal Server Error' };
}

function answer500(res: ServerResponse, path: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  const { type, body } = internalError(path);
  res.writeHead(500, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(body);
}

/**
 * `listener`, with whatever it throws or rejects with while answering (an error Hono's `onError`
 * never sees, such as Node refusing a header value as the response is written) logged once and
 * answered with a 500, instead of becoming an unhandled rejection that stops the process.
 */
export function withErrorGuard(listener: RequestListener, log: Logger): RequestListener {
  return (req, res) => {
    const fail = (err: unknown) => {
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      log.error('error while writing a response', { method: req.method, path, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      try {
        answer500(res, path);
      } catch {
        res.destroy();
      }
    };
    let result: unknown;
    try {
      result = listener(req, res);
    } catch (err) {
      fail(err);
      return undefined;
    }
    if (result instanceof Promise) result.catch(fail);
    return result;
  };
}
