import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * Sets a header of the response to come, from middleware that runs before the handler answers.
 * Served by Node, the header goes straight onto the outgoing `ServerResponse` (@hono/node-server's
 * `c.env.outgoing`), where Node merges it with whatever the handler answers (the handler's own
 * value of the same header wins, as with `c.header`). `c.header` would make Hono build a web
 * `Headers` object for every such response, and copy it again on the way out: on an authenticated
 * request that costs more than answering a cached list page. Without Node's response (in-process
 * `app.request`, other runtimes) it is `c.header`.
 */
export function presetHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}
