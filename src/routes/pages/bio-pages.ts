import { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { errorPage } from '../../http/error-page.ts';
import { headerSafeLocation } from '../../http/location.ts';
import { bioPage } from '../../bios/bio-page.ts';
import type { Bio } from '../../resources/bios.ts';
import type { Services } from '../../resources/define.ts';
import { brandedDomainOf, html, uncachedRedirect } from './redirects.ts';

/**
 * `GET /u/<alias>`: the public page of a bio, the `link` the API gives it. A bio has no branded
 * domain, so, as a main-host link's alias, it is found on the main host only: on a branded domain
 * the path is that domain's unknown path (its 404 redirect, or the 404 page).
 */
export function bioPageRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/u/:alias', async (c) => {
    const domain = await brandedDomainOf(s, c);
    if (domain?.redirect404) return c.redirect(headerSafeLocation(domain.redirect404), 302);
    const alias = c.req.param('alias');
    const bio = domain ? undefined : await s.store.lookup<Bio>('bios', 'alias', alias.toLowerCase());
    // A disabled user's pages stop, as their links do.
    if (!bio || (await s.disabledUsers.check(bio.userId!))) return html(c, errorPage(404, ''), 404);
    // Aliases are one namespace whatever the case: other spellings go to the page's one URL.
    if (alias !== bio.alias) return uncachedRedirect(`/u/${encodeURIComponent(bio.alias)}`, 302);
    return html(c, bioPage(bio));
  });
  return routes;
}
