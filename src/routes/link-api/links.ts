import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { hookContext } from '../crud.ts';
import { linkSingle } from '../../links/shape.ts';
import type { Link } from '../../links/shape.ts';
import type { Services } from '../../resources/define.ts';
import { aliasKey } from '../../links/alias.ts';
import { links } from '../../resources/links.ts';

/** Finds the user's link behind a full short URL (`BASE_URL/<alias>` or a branded domain's). */
export async function linkByShortUrl(s: Services, userId: number, shortUrl: string): Promise<Link | undefined> {
  let url: URL;
  try {
    url = new URL(shortUrl);
  } catch {
    return undefined;
  }
  let alias: string;
  try {
    alias = decodeURIComponent(url.pathname.slice(1));
  } catch {
    return undefined; // a malformed %-escape names no alias
  }
  let domainId: number | null = null;
  if (url.origin !== new URL(s.config.baseUrl).origin) {
    const mine = await s.store.find('domains', { owner: userId, conditions: [{ field: 'domain', equals: url.origin }], limit: 1 });
    if (!mine.items[0]) return undefined;
    domainId = mine.items[0].id;
  }
  const link = await s.store.lookup<Link>('links', 'alias', aliasKey(domainId, alias));
  return link?.userId === userId ? link : undefined;
}

/** `GET /api/urls?short=<short URL>`: the single-link response for that short URL instead of a list. */
export function linkRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/urls', async (c, next) => {
    const short = c.req.query('short');
    if (short === undefined) return next();
    const ctx = hookContext(s, c);
    const link = await linkByShortUrl(s, ctx.user.id, short);
    if (!link) throw new ApiError(404, links.messages.notFound);
    return c.json({ error: 0, ...(await linkSingle(link, ctx)) });
  });
  return routes;
}
