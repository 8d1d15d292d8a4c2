import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import type { Agent, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { isPublicAddress } from './public-address.ts';

/** A resolved address of a host name. */
export type ResolvedAddress = { address: string; family: number };

/** Resolves a host name to every address it has. */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

/** The part of fetch() that logo loading uses: a GET of `url` that stops when `signal` aborts. */
export type LogoFetch = (url: URL, init: { signal: AbortSignal }) => Promise<Response>;

/** How publicFetch checks where it connects. */
export interface PublicFetchOptions {
  /** Name resolution, dns.lookup (the system's resolver, hosts file included) unless a test injects one. */
  resolve?: Resolve;
  /** Whether an address may be connected to: isPublicAddress unless a test widens it. */
  allow?: (address: string) => boolean;
  /** Redirects followed before giving up. */
  maxRedirects?: number;
  /** Schemes every hop may use: http: and https: unless narrowed (an ownership proof takes https: only, redirects too). */
  protocols?: readonly string[];
  /** Request headers in place of a logo fetch's `accept` and `user-agent`. */
  headers?: Readonly<Record<string, string>>;
}

/** Why publicFetch refused to go on (a refused scheme or address, too many redirects); loadLogo turns it into "no logo". */
export class PublicFetchError extends Error {}

/** Most redirects a logo fetch follows. */
export const MAX_LOGO_REDIRECTS = 3;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The system's resolver (hosts file included): every address of a name. */
export const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true });

const LOGO_HEADERS = { accept: 'image/png, image/jpeg', 'user-agent': 'shortlink-server (QR logo)' };

/**
 * A GET that only reaches allowed (public) addresses: each host is resolved once, every address
 * checked, and the connection made to exactly those addresses (the host name still goes in Host
 * and SNI), so a name that resolves differently the second time (DNS rebinding) cannot move it.
 * Redirects are followed by hand, each hop checked the same way, http and https only. The time
 * and size limits are the caller's: it aborts `signal` and stops reading the body.
 */
export function publicFetch(options: PublicFetchOptions = {}): LogoFetch {
  const resolve = options.resolve ?? systemResolve;
  const allow = options.allow ?? isPublicAddress;
  const maxRedirects = options.maxRedirects ?? MAX_LOGO_REDIRECTS;
  const protocols = options.protocols ?? ['http:', 'https:'];
  const headers = options.headers ?? LOGO_HEADERS;
  return async (start, { signal }) => {
    let url = new URL(start);
    for (let hop = 0; ; hop++) {
      const addresses = await checkedAddresses(url, resolve, allow, signal, protocols);
      const res = await pinnedRequest(url, addresses, { signal, headers });
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) return responseOf(res);
      res.destroy();
      if (hop >= maxRedirects) throw new PublicFetchError(`More than ${maxRedirects} redirects.`);
      url = new URL(location, url);
    }
  };
}

/** Every address of `url`'s host, all of them allowed; throws PublicFetchError when one is not (a name is as safe as its worst address). */
export async function checkedAddresses(url: URL, resolve: Resolve, allow: (address: string) => boolean, signal: AbortSignal, protocols: readonly string[]): Promise<ResolvedAddress[]> {
  if (!protocols.includes(url.protocol) || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new PublicFetchError(`Refused scheme ${url.protocol}`);
  const host = hostOf(url);
  const family = isIP(host);
  const addresses = family !== 0 ? [{ address: host, family }] : await resolve(host);
  signal.throwIfAborted();
  if (addresses.length === 0 || !addresses.every((a) => allow(a.address))) throw new PublicFetchError(`Refused address of ${host}`);
  return addresses;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * A request sent over a kept connection that turned out closed by the other side (reset, or closed
 * before any answer): the request can go again over a new one. Only a reused connection fails so;
 * the same error on a new connection is the receiver's answer.
 */
export class StaleConnectionError extends Error {
  constructor(readonly cause: unknown) {
    super('the kept connection was closed by the other side');
  }
}

const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * A request to exactly `addresses` (checked ones) for `url`'s host, which still goes in Host and SNI:
 * GET unless told, with `body` when given; over a new connection, or a kept one of `agent`'s (made
 * to the same addresses: see webhooks/kept-connections.ts), in which case a connection found closed
 * fails with StaleConnectionError.
 */
export function pinnedRequest(
  url: URL,
  addresses: readonly ResolvedAddress[],
  options: { signal: AbortSignal; headers: Readonly<Record<string, string>>; method?: string; body?: string; agent?: Agent },
): Promise<IncomingMessage> {
  const { signal, headers } = options;
  const [first] = addresses;
  // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [...addresses]);
    else callback(null, first!.address, first!.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostOf(url),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers: { ...headers },
        lookup: pinned,
        agent: options.agent ?? false,
        signal,
      },
      resolve,
    );
    req.on('error', (err: Error & { code?: string }) => reject(req.reusedSocket && !signal.aborted && STALE_CODES.has(err.code ?? '') ? new StaleConnectionError(err) : err));
    req.end(options.body);
  });
}

function responseOf(res: IncomingMessage): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new PublicFetchError(`Unexpected status ${status}`);
  }
  const headers = new Headers();
  const length = res.headers['content-length'];
  if (length !== undefined && /^\d+$/.test(length)) headers.set('content-length', length);
  if (status > 299 || status === 204 || status === 205) {
    // Nobody reads the body of a failure: close the connection now rather than when the server does.
    res.destroy();
    return new Response(null, { status, headers });
  }
  // A web stream, as fetch() gives, so that the caller reads and cancels it the same way.
  return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, headers });
}
