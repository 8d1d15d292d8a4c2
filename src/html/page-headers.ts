import type { Context } from 'hono';
import type { Csp, CspDirective, Page } from './page.ts';

const ORDER: readonly CspDirective[] = ['script-src', 'style-src', 'img-src', 'connect-src', 'frame-src'];

/**
 * The Content-Security-Policy of a page: nothing but what it declared. form-action, base-uri and
 * frame-ancestors do not fall back to default-src, so each is always written; no page may be framed
 * (the frame page frames its target, it is not framed itself).
 */
export function contentSecurityPolicy(csp: Csp): string {
  const parts = ["default-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", `form-action ${csp['form-action']?.join(' ') || "'none'"}`];
  for (const directive of ORDER) {
    const sources = csp[directive];
    if (sources?.length) parts.push(`${directive} ${sources.join(' ')}`);
  }
  return parts.join('; ');
}

/** The security headers every page of the server is answered with. */
export function pageHeaders(page: Page): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Security-Policy': contentSecurityPolicy(page.csp),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': page.referrer ?? 'strict-origin-when-cross-origin',
  };
  if (page.opener) headers['Cross-Origin-Opener-Policy'] = 'same-origin';
  if (page.opener === 'isolated') headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
  return headers;
}

/**
 * Whether the request is a top-level page load, the only kind a sign-in cookie may show private
 * data to. A script on another page of the origin (a user's tracking pixel) can fetch() or frame a
 * URL with the visitor's cookies, but its requests say so in Sec-Fetch-Dest, which scripts cannot
 * set; browsers that send no Sec-Fetch headers are let through (their CSP still has no 'self'
 * in connect-src and the page cannot be framed).
 */
export function isPageLoad(c: Context): boolean {
  const dest = c.req.header('sec-fetch-dest');
  return dest === undefined || dest === 'document';
}

/**
 * Whether a SameSite=Strict cookie was held back because the visitor came from another site (a link
 * in a mail or a chat): the page then reloads itself once, a same-origin navigation that carries
 * the cookie. The reload is same-origin, so it never loops.
 */
export function strictCookieHeldBack(c: Context): boolean {
  return c.req.header('sec-fetch-site') === 'cross-site';
}

/** A meta tag that reloads the page at once (see strictCookieHeldBack). */
export const RELOAD = '<meta http-equiv="refresh" content="0">';

/** Whether a form post comes from a page of this same origin (Sec-Fetch-Site, else Origin, else trusted as a non-browser client). */
export function fromOwnPage(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === c.req.header('host');
  } catch {
    return false;
  }
}
