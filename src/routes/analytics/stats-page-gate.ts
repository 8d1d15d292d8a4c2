import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { cookieKey } from '../../auth/cookie-secret.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import { headerSafeLocation } from '../../http/location.ts';
import { clientBucket, retryAfter } from '../../http/rate-limit.ts';
import { isPageLoad, pageHeaders } from '../../html/page-headers.ts';
import type { Page } from '../../html/page.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { normalizeDomain } from '../../visits/domain.ts';
import { PageAccess, accessCookieName } from '../../analytics/page-access.ts';
import type { Grant } from '../../analytics/page-access.ts';
import { messagePage } from '../../analytics/stats-page.ts';
import type { WebsiteIndex } from '../../analytics/website-index.ts';
import type { Website } from '../../analytics/websites.ts';

/** The header the stats page's script sends its token in (see StatsPageGate.scriptToken). */
export const SCRIPT_TOKEN_HEADER = 'x-stats-token';

/** A stats page answer: no framing, no referrer, and a window no other page of the origin can script (see docs/security.md, security model of the pages). */
export function pageAnswer(c: Context, page: Page, status: ContentfulStatusCode, headers: Record<string, string> = {}): Response {
  return c.html(page.html, status, { ...pageHeaders({ ...page, referrer: 'no-referrer', opener: 'isolated' }), 'cache-control': 'no-store', ...headers });
}

/**
 * Who may see a website's statistics, for the page and every route under it (its CSV files, its zip,
 * its realtime line): anyone when the website is public (privacy 0); else a visitor whose signed
 * cookie grants it (the owner; or, privacy 2, anyone who gave the password). The cookie opens only a
 * page load or a download, never a request a script of another page of the origin makes with the
 * visitor's cookie; the page's own script proves itself with a token only the page carries.
 */
export class StatsPageGate {
  readonly access: PageAccess;
  private readonly tokenKey: Buffer;

  /** Page views and downloads per client (STATS_PAGE_RATE_LIMIT): each sums up to a year of a website's statistics, and asks for no key. */
  private readonly views: ReturnType<Services['limits']>;

  constructor(
    private readonly s: Services,
    private readonly websites: WebsiteIndex,
  ) {
    this.access = new PageAccess(cookieKey(s.secret, 'stats page'));
    this.tokenKey = cookieKey(s.secret, 'stats page script');
    this.views = s.limits('stats-page', s.config.statsPageRateLimit, s.config.rateLimitWindow * 1000);
  }

  /** Counts a page view or download against its client: null when it may go on, else the 429 (or 503) page to answer. */
  async admit(c: Context<AppEnv>): Promise<Response | null> {
    const decision = await this.views?.hit(clientBucket(clientIp(c, this.s.config.trustProxy)));
    if (!decision || decision.allowed) return null;
    const headers = { 'retry-after': String(retryAfter(decision.reset, this.s.clock.now())) };
    if (decision.uncounted) return pageAnswer(c, messagePage('Please try again', 'The server cannot count page views now. Please try again in a moment.'), 503, headers);
    return pageAnswer(c, messagePage('Too many requests', 'This address has opened these statistics too often. Please try again later.'), 429, headers);
  }

  private userOf = (id: number) => this.s.store.get<UserRecord>('users', id);

  /** The website of `/stats/:domain...` under its stored spelling (so the cookie path always matches): a 404 page, or a redirect to that spelling at `rest`, with the query. */
  async find(c: Context<AppEnv>, rest = ''): Promise<Website | Response> {
    const param = c.req.param('domain') ?? '';
    const domain = normalizeDomain(param);
    const website = domain === null ? undefined : await this.websites.find(domain);
    if (!website) return pageAnswer(c, messagePage('Not found', 'There are no statistics for this website.'), 404);
    if (param !== website.domain) return c.redirect(headerSafeLocation(`/stats/${website.domain}${rest}${new URL(c.req.url).search}`), 301);
    return website;
  }

  /** The grant the request's cookie gives, whoever sent it; null without a valid one. */
  grantOf(c: Context<AppEnv>, website: Website): Promise<Grant | null> {
    return this.access.check(getCookie(c, accessCookieName(website)), website, this.s.clock.now(), this.userOf);
  }

  /** Whether a grant opens `website`'s statistics (the owner's always; a password's only while the website takes one). */
  static opens(website: Website, grant: Grant | null): boolean {
    return website.privacy === 0 || grant === 'owner' || (website.privacy === 2 && grant === 'password');
  }

  /** Whether this request, a page load or a download, may see the statistics. */
  async allowsPage(c: Context<AppEnv>, website: Website): Promise<boolean> {
    if (website.privacy === 0) return true;
    return isPageLoad(c) && StatsPageGate.opens(website, await this.grantOf(c, website));
  }

  /** Whether this request may read the realtime line: as a page load, or from the page's script with its token. */
  async allowsScript(c: Context<AppEnv>, website: Website): Promise<boolean> {
    if (website.privacy === 0) return true;
    const cookie = getCookie(c, accessCookieName(website));
    if (!StatsPageGate.opens(website, await this.grantOf(c, website))) return false;
    if (isPageLoad(c)) return true;
    const given = Buffer.from(c.req.header(SCRIPT_TOKEN_HEADER) ?? '');
    const expected = Buffer.from(this.scriptToken(cookie ?? ''));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * The token the page's script sends with its realtime reads, on a page opened with a cookie: a MAC of
   * that cookie, which a script of another page of the origin cannot read (HttpOnly) nor compute.
   */
  scriptToken(cookie: string): string {
    return createHmac('sha256', this.tokenKey).update(cookie).digest('base64url');
  }
}
