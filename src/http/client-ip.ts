import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { forwardedClient, isTrustedPeer } from './trust-proxy.ts';
import type { TrustProxy } from './trust-proxy.ts';

/** The client IP of a request: its socket address, or found in X-Forwarded-For through the trusted proxies (see forwardedClient). */
export function clientIp(c: Context, trust: TrustProxy): string {
  return forwardedClient(socketAddress(c), c.req.header('x-forwarded-for'), trust);
}

/**
 * Whether the browser reached the server over HTTPS: the request's own URL, or, through a proxy
 * TRUST_PROXY trusts (and only then: anyone can send the header), its X-Forwarded-Proto.
 */
export function requestIsHttps(c: Context, trust: TrustProxy): boolean {
  if (c.req.url.startsWith('https:')) return true;
  const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return proto === 'https' && isTrustedPeer(socketAddress(c), trust);
}

function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // app.request() in tests has no socket
  }
}
