import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { hookContext } from '../crud.ts';
import { linkSingle } from '../../links/shape.ts';
import type { Link } from '../../links/shape.ts';
import type { Services } from '../../resources/define.ts';
import { aliasKey } from '../../links/alias.ts';
import { domainHostname } from '../../resources/domains.ts';
import { mainHostnames } from '../../links/main-host.ts';

/** The real product's answers for a short URL that names no link, or another user's. */
const INVALID_SHORT_URL = 'Invalid short url. Please try again.';
const NOT_YOUR_SHORT_URL = 'You do not have the permission to access this short url.';

/**
 * The link behind a full short URL (`BASE_URL/<alias>` or a branded domain's, whatever the scheme
 * or letter case of the host), whoever owns it; undefined when it names none, null when it is no
 * http(s) URL with an alias.
 */
export async function linkByShortUrl(s: Services, shortUrl: string): Promise<Link | null | undefined> {
  let url: URL;
  let alias: string;
  try {
    url = new URL(shortUrl.trim());
    alias = decodeURIComponent(url.pathname.slice(1));
  } catch {
    return null; // not a URL, or a malformed %-escape that names no alias
  }
  const hostname = domainHostname(url.host);
  if (alias === '' || hostname === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  let domainId: number | null = null;
  if (!mainHostnames(s.config).has(hostname)) {
    const domain = await s.store.lookup('domains', 'hostname', hostname);
    if (!domain) return undefined;
    domainId = domain.id;
  }
  return s.store.lookup<Link>('links', 'alias', aliasKey(domainId, alias));
}

/** `GET /api/urls?short=<short URL>`: the single-link response for that short URL instead of a list. */
export function linkRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/urls', async (c, next) => {
    const short = c.req.query('short');
    if (short === undefined) return next();
    const ctx = hookContext(s, c);
    const link = await linkByShortUrl(s, short);
    if (!link) throw new ApiError(link === null ? 400 : 404, INVALID_SHORT_URL);
    if (link.userId !== ctx.user.id) throw new ApiError(403, NOT_YOUR_SHORT_URL);
    return c.json({ error: 0, ...(await linkSingle(link, ctx)) });
  });
  return routes;
}
