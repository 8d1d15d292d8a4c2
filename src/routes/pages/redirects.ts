import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { headerSafeLocation } from '../../http/location.ts';
import type { PasswordAttempts } from '../../http/password-attempts.ts';
import { aliasKey } from '../../links/alias.ts';
import { isMainHost, requestHostOf } from '../../links/main-host.ts';
import type { Link } from '../../links/shape.ts';
import { subjectOf } from '../../links/stats.ts';
import type { Services } from '../../resources/define.ts';
import type { Domain } from '../../resources/domains.ts';
import { NOT_AT_HAND } from '../../store/store.ts';
import { parseDateTime } from '../../resources/fields.ts';
import type { Page } from '../../html/page.ts';
import { htmlPage } from '../../html/page.ts';
import { pageHeaders } from '../../html/page-headers.ts';
import { isPlainRedirect, linkPage } from '../../redirect/link-page.ts';
import { expiredPage, notFoundPage } from '../../redirect/pages.ts';
import { PasswordGate } from '../../redirect/password-gate.ts';
import type { Protected } from '../../redirect/password-gate.ts';
import { resolveTarget } from '../../redirect/target.ts';
import { recordClick, visitOf } from '../../redirect/visit.ts';
import { downloadResponse, fileAt } from '../../files/download.ts';
import type { StoredFile } from '../../resources/files.ts';

/**
 * The branded domain a request's Host header names, or undefined for the main host. The server's
 * own host names always mean the main host, even if a branded domain of that name was stored (an
 * import, an older version): no user can take over the main host's aliases.
 */
export async function brandedDomainOf(s: Services, c: Context): Promise<Domain | undefined> {
  const header = c.req.header('host');
  const host = header === undefined ? undefined : requestHostOf(header);
  const domain = host ? await s.store.lookup<Domain>('domains', 'host', host) : undefined;
  return brandedOnly(s, host, domain);
}

/** brandedDomainOf answered without waiting when the store has the answer at hand, else NOT_AT_HAND. */
function brandedDomainAtHand(s: Services, c: Context): Domain | undefined | typeof NOT_AT_HAND {
  const header = c.req.header('host');
  const host = header === undefined ? undefined : requestHostOf(header);
  const domain = host ? s.store.lookupAtHand<Domain>('domains', 'host', host) : undefined;
  return domain === NOT_AT_HAND ? domain : brandedOnly(s, host, domain);
}

// Checked only when a domain matched: the common main-host request pays one map lookup, as before.
const brandedOnly = (s: Services, host: string | undefined, domain: Domain | undefined) => (domain && !isMainHost(s.config, host!) ? domain : undefined);

/**
 * A redirect that caches must not keep (every visit is counted), as Hono's `c.redirect` would
 * answer it (Location encoded the same way) but with plain headers and its empty body's length:
 * `c.redirect` goes through a web `Headers` object, a sizeable part of what a counted redirect
 * costs. Only for routes whose middleware sets no headers, which a returned Response would leave out.
 */
export function uncachedRedirect(location: string, status: number): Response {
  // An empty body said as such: without a length, Node sends the answer chunked, a terminating chunk
  // the client must read too.
  return new Response(null, { status, headers: { Location: headerSafeLocation(location), 'Cache-Control': 'no-store', 'Content-Length': '0' } });
}

/** Answers an HTML page that must not be cached (every visit is counted), with its security headers. */
export function html(c: Context, page: Page, status: 200 | 403 | 404 | 410 | 429 | 503 = 200): Response {
  c.header('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(pageHeaders(page))) c.header(name, value);
  return c.html(page.html, status);
}

/** The short links themselves: `GET /<alias>` on the main host and on branded domains (links, then files), and the password form. */
export function redirectRoutes(s: Services, attempts: PasswordAttempts): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const gate = new PasswordGate(s, attempts, html);
  const lockOf = (kind: Protected['kind'], r: { id: number; alias: string; password?: string | null }): Protected | null =>
    r.password ? { kind, id: r.id, alias: r.alias, hash: r.password } : null;

  const find = async (c: Context): Promise<{ link: Link | undefined; domain: Domain | undefined }> => {
    const domain = await brandedDomainOf(s, c);
    const alias = c.req.param('alias') ?? '';
    return { link: await s.store.lookup<Link>('links', 'alias', aliasKey(domain?.id ?? null, alias)), domain };
  };

  /** `find` without waiting when the store has both answers at hand (file store: always), else null. */
  const findAtHand = (c: Context): { link: Link | undefined; domain: Domain | undefined } | null => {
    const domain = brandedDomainAtHand(s, c);
    if (domain === NOT_AT_HAND) return null;
    const link = s.store.lookupAtHand<Link>('links', 'alias', aliasKey(domain?.id ?? null, c.req.param('alias') ?? ''));
    return link === NOT_AT_HAND ? null : { link, domain };
  };

  const missing = (c: Context, domain: Domain | undefined) => {
    if (domain?.redirect404) return c.redirect(headerSafeLocation(domain.redirect404), 302);
    return html(c, notFoundPage(), 404);
  };

  const fileExpired = (file: StoredFile) => file.expiry !== null && parseDateTime(file.expiry) <= s.clock.now();

  // Links and files share `/<alias>`: an alias no link has may be a file's.
  const downloadOrMissing = async (c: Context, domain: Domain | undefined): Promise<Response> => {
    const file = await fileAt(s, domain?.id ?? null, c.req.param('alias') ?? '');
    if (!file || (await s.disabledUsers.check(file.userId))) return missing(c, domain);
    if (fileExpired(file)) return html(c, expiredPage(), 410);
    const lock = lockOf('file', file);
    const shut = lock && gate.shut(c, lock);
    if (shut) return shut;
    const bytes = await s.store.readFileContent(file.id);
    if (!bytes) return missing(c, domain);
    recordClick(s, subjectOf('file', file.id), file.userId, visitOf(c, s));
    return downloadResponse(file, bytes);
  };

  const expired = (link: Link) => link.expiry !== undefined && parseDateTime(link.expiry) <= s.clock.now();

  routes.get('/', async (c) => {
    const domain = await brandedDomainOf(s, c);
    if (domain?.redirectroot) return c.redirect(headerSafeLocation(domain.redirectroot), 302);
    return html(c, htmlPage('Short links', '<main><h1>Short links</h1><p>This server shortens links. The API is described at <a href="/docs">/docs</a>.</p></main>'));
  });

  // A counted redirect is answered in one synchronous step when nothing needs waiting for (the
  // link at hand, no page to build): a promise per request costs measurably at this rate.
  routes.get('/:alias', (c): Response | Promise<Response> => {
    const atHand = findAtHand(c);
    return atHand ? follow(c, atHand.link, atHand.domain) : find(c).then(({ link, domain }) => follow(c, link, domain));
  });

  const follow = (c: Context, link: Link | undefined, domain: Domain | undefined): Response | Promise<Response> => {
    if (!link) return downloadOrMissing(c, domain);
    // A disabled user's links stop, answered as missing ones (docs/security.md); usually known without waiting.
    const stopped = s.disabledUsers.atHand(link.userId);
    return stopped === undefined ? s.disabledUsers.check(link.userId).then((off) => answer(c, link, off)) : answer(c, link, stopped);
  };

  const answer = (c: Context, link: Link, ownerDisabled: boolean): Response | Promise<Response> => {
    if (ownerDisabled) return html(c, notFoundPage(), 404);
    if (expired(link)) return html(c, expiredPage(), 410);
    const lock = lockOf('link', link);
    const shut = lock && gate.shut(c, lock);
    if (shut) return shut;
    const visit = visitOf(c, s);
    const target = resolveTarget(link, visit);
    recordClick(s, subjectOf('link', link.id), link.userId, visit);
    if (isPlainRedirect(link)) return uncachedRedirect(target, s.config.redirectStatus);
    return linkPage(s, link, target).then((page) => (page === null ? uncachedRedirect(target, s.config.redirectStatus) : html(c, link.password ? { ...page, opener: 'same-origin' } : page)));
  };

  // The password form's post, for a protected link or a protected file at the alias.
  routes.post('/:alias', async (c) => {
    const { link, domain } = await find(c);
    const file = link ? undefined : await fileAt(s, domain?.id ?? null, c.req.param('alias') ?? '');
    if (!link && !file) return missing(c, domain);
    if (await s.disabledUsers.check((link ?? file!).userId)) return html(c, notFoundPage(), 404);
    if (link ? expired(link) : fileExpired(file!)) return html(c, expiredPage(), 410);
    const lock = link ? lockOf('link', link) : lockOf('file', file!);
    if (!lock) return c.redirect(c.req.path, 303);
    return gate.attempt(c, lock);
  });
  return routes;
}
