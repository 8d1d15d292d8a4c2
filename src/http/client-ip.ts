import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { forwardedClient } from './trust-proxy.ts';
import type { TrustProxy } from './trust-proxy.ts';

/** The client IP of a request: its socket address, or found in X-Forwarded-For through the trusted proxies (see forwardedClient). */
export function clientIp(c: Context, trust: TrustProxy): string {
  return forwardedClient(socketAddress(c), c.req.header('x-forwarded-for'), trust);
}

function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // app.request() in tests has no socket
  }
}
