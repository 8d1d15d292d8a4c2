import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { KeyIndex, scopedKeysIn } from '../../auth/key-index.ts';
import { allowedFrom, keyExpired } from '../../auth/key-checks.ts';
import { covers } from '../../auth/scopes.ts';
import { verifyPassword } from '../../auth/passwords.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import type { PasswordAttempts } from '../../http/password-attempts.ts';
import { fromOwnPage, strictCookieHeldBack } from '../../html/page-headers.ts';
import type { Services } from '../../resources/define.ts';
import { waitText } from '../../redirect/pages.ts';
import { ACCESS_SECONDS, accessCookieName } from '../../analytics/page-access.ts';
import { pageQuery } from '../../analytics/stats-links.ts';
import { gatePage, messagePage, statsPageCsp, statsPageHtml } from '../../analytics/stats-page.ts';
import { statsView } from '../../analytics/stats-view.ts';
import type { WebsiteIndex } from '../../analytics/website-index.ts';
import { headerSafeLocation } from '../../http/location.ts';
import { statsPageDownloadRoutes } from './stats-page-downloads.ts';
import { StatsPageGate, pageAnswer } from './stats-page-gate.ts';

/**
 * The stats page `/stats/<domain>`, honouring the website's privacy: 0 public; 1 the owner only,
 * signed in by posting the API key; 2 anyone with the page password (and the owner). Signing in
 * sets a signed HttpOnly, SameSite=Strict cookie scoped to the page's path, which also opens the
 * page's downloads and realtime line (stats-page-downloads.ts).
 */
export function statsPageRoutes(s: Services, websites: WebsiteIndex, attempts: PasswordAttempts): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const gate = new StatsPageGate(s, websites);
  const keys = new KeyIndex(s.store, scopedKeysIn(s.resources));

  routes.get('/stats/:domain', async (c) => {
    const website = await gate.find(c);
    if (website instanceof Response) return website;
    const refused = await gate.admit(c);
    if (refused) return refused;
    const cookie = getCookie(c, accessCookieName(website));
    // The cookie opens the page only to a page load, never to a script of another page of the
    // origin (a user's pixel) that fetches or frames it with the visitor's cookie.
    if (!(await gate.allowsPage(c, website))) {
      return pageAnswer(c, gatePage(website.domain, website.privacy === 1 ? 'owner' : 'password', undefined, cookie === undefined && strictCookieHeldBack(c)), 401);
    }
    const settings = { nowMs: s.clock.now(), hourlyDays: s.config.statsHourlyDays, geoCredit: s.config.geoip };
    const view = await statsView(s.counters, website.id, website.domain, pageQuery(c.req.query()), settings);
    const realtimeToken = website.privacy !== 0 && cookie !== undefined ? gate.scriptToken(cookie) : undefined;
    const html = statsPageHtml({ ...view, ...(realtimeToken === undefined ? {} : { realtimeToken }) });
    return pageAnswer(c, { html, csp: statsPageCsp }, 200, website.privacy === 0 ? { 'cache-control': 'no-cache' } : {});
  });

  routes.post('/stats/:domain', async (c) => {
    const website = await gate.find(c);
    if (website instanceof Response) return website;
    if (website.privacy === 0) return c.redirect(headerSafeLocation(`/stats/${website.domain}`), 303);
    if (!fromOwnPage(c)) return pageAnswer(c, messagePage('Not accepted', 'This form can only be sent from its own page. Please open the statistics page again.'), 403);
    const ip = clientIp(c, s.config.trustProxy);
    const target = `website:${website.id}`;
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const kind = website.privacy === 1 ? 'owner' : 'password';
    const refused = (retryAfter: number, busy = false) =>
      busy
        ? pageAnswer(c, messagePage('Please try again', 'The server is busy checking passwords. Please try again in a moment.'), 503, { 'retry-after': String(retryAfter) })
        : pageAnswer(c, messagePage('Too many attempts', `Too many failed sign-ins. Try again in ${waitText(retryAfter)}.`), 429, { 'retry-after': String(retryAfter) });
    let grant: string | null = null;
    if (kind === 'owner') {
      const found = typeof form.key === 'string' ? await keys.lookup(form.key) : null;
      const user = found?.user;
      // A scoped key opens the page as it would read the statistics: with stats:read, from an address it may be used from.
      const usable = !found?.key || (covers(found.key.scopes, 'stats:read') && allowedFrom(found.key, ip));
      const expired = !usable || keyExpired(found?.key ? found.key.expires : user?.keyExpires, s.clock.now());
      // The owner's valid key always opens the page, as it passes the API (a key cannot be guessed).
      if (user && user.id === website.userId && !expired) grant = gate.access.issue('owner', website, s.clock.now(), user);
      else {
        const wait = attempts.blockedFor(ip, target);
        if (wait > 0) return refused(wait);
        attempts.failed(ip, target);
      }
    } else {
      const given = typeof form.password === 'string' ? form.password : '';
      const hash = website.password;
      const outcome = await attempts.attempt(ip, target, async () => hash !== undefined && hash !== null && (await verifyPassword(given, hash)));
      if (outcome.kind === 'blocked' || outcome.kind === 'busy') return refused(outcome.retryAfter, outcome.kind === 'busy');
      if (outcome.kind === 'right') grant = gate.access.issue('password', website, s.clock.now());
    }
    if (grant === null) {
      return pageAnswer(c, gatePage(website.domain, kind, kind === 'owner' ? 'That API key does not own this website.' : 'Wrong password.'), 401);
    }
    setCookie(c, accessCookieName(website), grant, {
      path: `/stats/${website.domain}`,
      httpOnly: true,
      sameSite: 'Strict',
      secure: s.config.baseUrl.startsWith('https:'),
      maxAge: ACCESS_SECONDS,
    });
    return c.redirect(headerSafeLocation(`/stats/${website.domain}`), 303);
  });
  routes.route('/', statsPageDownloadRoutes(s, gate));
  return routes;
}
