import { cookieKey } from '../../auth/cookie-secret.ts';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { KeyIndex, scopedKeysIn } from '../../auth/key-index.ts';
import { allowedFrom, keyExpired } from '../../auth/key-checks.ts';
import { covers } from '../../auth/scopes.ts';
import { verifyPassword } from '../../auth/passwords.ts';
import { formatDate } from '../../clock.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import type { PasswordAttempts } from '../../http/password-attempts.ts';
import { fromOwnPage, isPageLoad, pageHeaders, strictCookieHeldBack } from '../../html/page-headers.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { totalOf } from '../../stats/counts.ts';
import { normalizeDomain } from '../../visits/domain.ts';
import { waitText } from '../../redirect/pages.ts';
import { metricRows, topRows } from '../../analytics/metrics.ts';
import { ACCESS_SECONDS, PageAccess, accessCookieName } from '../../analytics/page-access.ts';
import type { Page } from '../../html/page.ts';
import type { Metric } from '../../analytics/metrics.ts';
import { gatePage, messagePage, statsPageCsp, statsPageHtml } from '../../analytics/stats-page.ts';
import type { TableUnit } from '../../analytics/stats-page.ts';
import type { WebsiteIndex } from '../../analytics/website-index.ts';
import { websiteSubject } from '../../analytics/website-subject.ts';
import type { Website } from '../../analytics/websites.ts';
import { headerSafeLocation } from '../../http/location.ts';

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
// Pages count every pageview; the visit's breakdowns count each visitor once a day (see
// pageviewTally); events count each time a custom event was sent.
const TABLES: readonly [title: string, metric: Metric, label: string, unit: TableUnit][] = [
  ['Pages', 'page', 'Page', 'Pageviews'],
  ['Referrers', 'referrer', 'Referrer', 'Visitors'],
  ['Countries', 'country', 'Country', 'Visitors'],
  ['Browsers', 'browser', 'Browser', 'Visitors'],
  ['Operating systems', 'os', 'Operating system', 'Visitors'],
  ['Devices', 'device', 'Device', 'Visitors'],
  ['Events', 'event', 'Event', 'Events'],
];

// The stats API's country label is `US:United States`; a person reads the name.
const shown = (metric: Metric, value: string) => (metric === 'country' ? value.replace(/^[A-Z]{2}:/, '') : value);

const isDate = (s: string | undefined): s is string => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s) && formatDate(Date.parse(`${s}T00:00:00Z`) || 0) === s;

/** The page's date range: the query's when valid (at most a year), else the last 30 days with a notice. */
export function pageRange(query: { from?: string; to?: string }, nowMs: number): { from: string; to: string; notice?: string } {
  const to = formatDate(nowMs);
  const fallback = { from: formatDate(nowMs - 29 * DAY_MS), to };
  if (query.from === undefined && query.to === undefined) return fallback;
  const { from: f, to: t } = query;
  if (isDate(f) && isDate(t) && f <= t && Date.parse(t) - Date.parse(f) < MAX_DAYS * DAY_MS) return { from: f, to: t };
  return { ...fallback, notice: `Invalid date range (dates as YYYY-MM-DD, from before to, at most ${MAX_DAYS} days): showing the last 30 days.` };
}

function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) out.push(formatDate(t));
  return out;
}

/** A stats page: no script, no framing, no referrer, and a window no other page of the origin can script (see docs/security.md, security model of the pages). */
function html(c: Context, page: Page, status: ContentfulStatusCode, headers: Record<string, string> = {}): Response {
  return c.html(page.html, status, { ...pageHeaders({ ...page, referrer: 'no-referrer', opener: 'isolated' }), 'cache-control': 'no-store', ...headers });
}

/**
 * The stats page `/stats/<domain>`, honouring the website's privacy: 0 public; 1 the owner only,
 * signed in by posting the API key; 2 anyone with the page password (and the owner). Signing in
 * sets a signed HttpOnly, SameSite=Strict cookie scoped to the page's path.
 */
export function statsPageRoutes(s: Services, websites: WebsiteIndex, attempts: PasswordAttempts): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const access = new PageAccess(cookieKey(s.secret, 'stats page'));
  const keys = new KeyIndex(s.store, scopedKeysIn(s.resources));
  const userOf = (id: number) => s.store.get<UserRecord>('users', id);

  // A page under its stored spelling only, so the cookie path always matches.
  const find = async (c: Context): Promise<Website | Response> => {
    const param = c.req.param('domain') ?? '';
    const domain = normalizeDomain(param);
    const website = domain === null ? undefined : await websites.find(domain);
    if (!website) return html(c, messagePage('Not found', 'There are no statistics for this website.'), 404);
    if (param !== website.domain) return c.redirect(headerSafeLocation(`/stats/${website.domain}`), 301);
    return website;
  };

  routes.get('/stats/:domain', async (c) => {
    const website = await find(c);
    if (website instanceof Response) return website;
    const cookie = getCookie(c, accessCookieName(website));
    // The cookie opens the page only to a page load, never to a script of another page of the
    // origin (a user's pixel) that fetches or frames it with the visitor's cookie.
    const grant = isPageLoad(c) ? await access.check(cookie, website, s.clock.now(), userOf) : null;
    const allowed = website.privacy === 0 || grant === 'owner' || (website.privacy === 2 && grant === 'password');
    if (!allowed) return html(c, gatePage(website.domain, website.privacy === 1 ? 'owner' : 'password', undefined, cookie === undefined && strictCookieHeldBack(c)), 401);

    const range = pageRange(c.req.query(), s.clock.now());
    const stored = await s.counters.days(websiteSubject(website.id), range.from, range.to);
    const byDay = new Map(stored.map((d) => [d.day, d.counts]));
    const days = daysBetween(range.from, range.to);
    const series = (name: string) => days.map((d) => (byDay.has(d) ? totalOf(byDay.get(d)!, name) : 0));
    const tables = TABLES.map(([title, metric, label, unit]) => ({ title, label, unit, rows: topRows(metricRows(stored, metric), 10).map((r) => ({ ...r, value: shown(metric, r.value) })) }));
    const view = { domain: website.domain, ...range, days, pageviews: series('pageviews'), visitors: series('visitors'), tables, geoCredit: s.config.geoip };
    return html(c, { html: statsPageHtml(view), csp: statsPageCsp }, 200, website.privacy === 0 ? { 'cache-control': 'no-cache' } : {});
  });

  routes.post('/stats/:domain', async (c) => {
    const website = await find(c);
    if (website instanceof Response) return website;
    if (website.privacy === 0) return c.redirect(headerSafeLocation(`/stats/${website.domain}`), 303);
    if (!fromOwnPage(c)) return html(c, messagePage('Not accepted', 'This form can only be sent from its own page. Please open the statistics page again.'), 403);
    const ip = clientIp(c, s.config.trustProxy);
    const target = `website:${website.id}`;
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const kind = website.privacy === 1 ? 'owner' : 'password';
    const refused = (retryAfter: number, busy = false) =>
      busy
        ? html(c, messagePage('Please try again', 'The server is busy checking passwords. Please try again in a moment.'), 503, { 'retry-after': String(retryAfter) })
        : html(c, messagePage('Too many attempts', `Too many failed sign-ins. Try again in ${waitText(retryAfter)}.`), 429, { 'retry-after': String(retryAfter) });
    let grant: string | null = null;
    if (kind === 'owner') {
      const found = typeof form.key === 'string' ? await keys.lookup(form.key) : null;
      const user = found?.user;
      // A scoped key opens the page as it would read the statistics: with stats:read, from an address it may be used from.
      const usable = !found?.key || (covers(found.key.scopes, 'stats:read') && allowedFrom(found.key, ip));
      const expired = !usable || keyExpired(found?.key ? found.key.expires : user?.keyExpires, s.clock.now());
      // The owner's valid key always opens the page, as it passes the API (a key cannot be guessed).
      if (user && user.id === website.userId && !expired) grant = access.issue('owner', website, s.clock.now(), user);
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
      if (outcome.kind === 'right') grant = access.issue('password', website, s.clock.now());
    }
    if (grant === null) {
      return html(c, gatePage(website.domain, kind, kind === 'owner' ? 'That API key does not own this website.' : 'Wrong password.'), 401);
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
  return routes;
}
