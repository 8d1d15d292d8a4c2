import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { cookieKey } from '../auth/cookie-secret.ts';
import { verifyPassword } from '../auth/passwords.ts';
import type { Page } from '../html/page.ts';
import { fromOwnPage, isPageLoad, strictCookieHeldBack } from '../html/page-headers.ts';
import { clientIp } from '../http/client-ip.ts';
import type { PasswordAttempts } from '../http/password-attempts.ts';
import type { Services } from '../resources/define.ts';
import { busyPage, foreignFormPage, openingPage, passwordPage, tooManyAttemptsPage } from './pages.ts';
import { PassCookies } from './pass-cookie.ts';

/** What a password protects at `/<alias>`: a link or an uploaded file, its id, and the scrypt hash of its password. */
export interface Protected {
  kind: 'link' | 'file';
  id: number;
  alias: string;
  hash: string;
}

/** Answers an HTML page with its security headers (routes/pages/redirects.ts's `html`). */
export type PageAnswer = (c: Context, page: Page, status?: 200 | 403 | 429 | 503) => Response;

/**
 * The password form in front of protected links and files, one gate for both: the same page, the
 * same count of wrong passwords (per client and per protected thing), and a signed cookie for a day
 * once the right one is given, each kind's cookies signed with a key of their own.
 */
export class PasswordGate {
  private readonly cookies: Record<Protected['kind'], PassCookies>;

  constructor(
    private readonly s: Services,
    private readonly attempts: PasswordAttempts,
    private readonly answer: PageAnswer,
  ) {
    this.cookies = { link: new PassCookies(cookieKey(s.secret, 'link password'), 'lp'), file: new PassCookies(cookieKey(s.secret, 'file password'), 'fp') };
  }

  /** The password form when the request may not pass yet, else null. */
  shut(c: Context, p: Protected): Response | null {
    const cookies = this.cookies[p.kind];
    const cookie = getCookie(c, cookies.name(p.id));
    // The cookie opens the link only to a page load: not to a script of another page of this
    // origin (a pixel) fetching or framing it with the visitor's cookie.
    if (isPageLoad(c) && cookies.valid(cookie, p.id, p.hash, this.s.clock.now())) return null;
    return this.answer(c, passwordPage(c.req.path, false, cookie === undefined && strictCookieHeldBack(c), p.kind));
  }

  /** Checks a posted password against the attempt limits: a page that opens the path with a new cookie, or says why not. */
  async attempt(c: Context, p: Protected): Promise<Response> {
    // Guesses posted by other sites' pages would come from their visitors' IPs.
    if (!fromOwnPage(c)) return this.answer(c, foreignFormPage(), 403);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const given = typeof form.password === 'string' ? form.password : '';
    const outcome = await this.attempts.attempt(clientIp(c, this.s.config.trustProxy), `${p.kind}:${p.id}`, () => verifyPassword(given, p.hash));
    if (outcome.kind === 'blocked' || outcome.kind === 'busy') {
      c.header('Retry-After', String(outcome.retryAfter));
      return outcome.kind === 'blocked' ? this.answer(c, tooManyAttemptsPage(outcome.retryAfter), 429) : this.answer(c, busyPage(), 503);
    }
    if (outcome.kind === 'wrong') return this.answer(c, passwordPage(c.req.path, true, false, p.kind), 403);
    const cookies = this.cookies[p.kind];
    setCookie(c, cookies.name(p.id), cookies.issue(p.id, p.hash, this.s.clock.now()), {
      path: `/${p.alias}`,
      httpOnly: true,
      sameSite: 'Strict',
      secure: this.s.config.baseUrl.startsWith('https:'),
      maxAge: cookies.maxAgeSeconds,
    });
    return this.answer(c, openingPage(c.req.path));
  }
}
