import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { API_KEYS } from '../auth/api-key-record.ts';
import type { ApiKeyRecord } from '../auth/api-key-record.ts';
import { isDisabled } from '../auth/disabled-users.ts';
import { allowedFrom, keyExpired } from '../auth/key-checks.ts';
import { hashApiKey, sameKeyHash } from '../auth/keys.ts';
import { clientIp, requestIsHttps } from '../http/client-ip.ts';
import type { Services, UserRecord } from '../resources/define.ts';
import { SESSIONS } from '../resources/sessions.ts';
import type { SessionRecord } from '../resources/sessions.ts';

/** The cookie of a dashboard session, and the one that carries a signed-out browser's form token (sign-in, registration). */
export const SESSION_COOKIE = 'dash_session';
export const PRE_COOKIE = 'dash_pre';
/** The admin's own session cookie, kept while the admin is signed in as another user ("sign in as"), to go back to. */
export const ADMIN_COOKIE = 'dash_admin';
/** Every dashboard cookie is sent to /app only (and set by /login, the one-time link's page, too). */
const COOKIE_PATH = '/app';

/** Who a request's session is: the session, its user, and the scoped key that bounds it (null: none). */
export interface SignedIn {
  session: SessionRecord;
  user: UserRecord;
  key: ApiKeyRecord | null;
  /** The admin who opened this session with "sign in as"; null for the user's own session. */
  by: UserRecord | null;
  /** The form token every form of this session carries (see csrfToken). */
  csrf: string;
}

/**
 * The form token of a cookie value: an HMAC keyed by the value itself, which a script of another
 * page cannot read (HttpOnly) and a copy of the store cannot give (it keeps a plain SHA-256 of it).
 * Bound to the session, so it outlives restarts and dies with the session.
 */
export function csrfToken(cookieValue: string): string {
  return createHmac('sha256', cookieValue).update('dashboard form').digest('base64url');
}

/** Whether a form's token is the one of this cookie value, compared in constant time. */
export function csrfMatches(cookieValue: string | undefined, sent: unknown): boolean {
  if (!cookieValue || typeof sent !== 'string') return false;
  const want = Buffer.from(csrfToken(cookieValue));
  const got = Buffer.from(sent);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Server-side sessions of the dashboard: opened at sign-in, found by the hash of the cookie, revocable, expiring. */
export class DashboardSessions {
  constructor(private readonly s: Services) {}

  private cookieOptions(c: Context, maxAge: number) {
    return { path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax' as const, secure: requestIsHttps(c, this.s.config.trustProxy), maxAge };
  }

  /** Opens a session for `user` and sets its cookie; the cookie's value is never stored. */
  async open(c: Context, user: UserRecord, method: SessionRecord['method'], keyId: number | null, by: number | null = null): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    const now = this.s.clock.now();
    const days = this.s.config.dashboardSessionDays;
    const record: Omit<SessionRecord, 'id'> = {
      userId: user.id,
      tokenHash: hashApiKey(token),
      created: new Date(now).toISOString(),
      expires: now + days * 86_400_000,
      keyId,
      method,
      agent: (c.req.header('user-agent') ?? '').slice(0, 200),
      ip: clientIp(c, this.s.config.trustProxy),
      ...(by === null ? {} : { by }),
    };
    await this.s.store.transaction((tx) => tx.insert(SESSIONS, record));
    setCookie(c, SESSION_COOKIE, token, this.cookieOptions(c, days * 86_400));
    deleteCookie(c, PRE_COOKIE, { path: COOKIE_PATH });
  }

  /**
   * The session the request's cookie names, if it is stored, unexpired, its user still there and not disabled, and
   * the scoped key it was opened with neither revoked nor expired (and used from an address it allows); else null.
   */
  async current(c: Context): Promise<SignedIn | null> {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await this.named(token);
    if (!token || !session) return null;
    const user = await this.s.store.get<UserRecord>('users', session.userId);
    // Disabling ends the user's sessions; this also ends one opened while it was being disabled.
    if (!user || isDisabled(user)) return null;
    // A "sign in as" session lasts only while the admin who opened it is there, still an admin and not disabled.
    const by = session.by ? ((await this.s.store.get<UserRecord>('users', session.by)) ?? null) : null;
    if (session.by && (!by?.admin || isDisabled(by))) return null;
    let key: ApiKeyRecord | null = null;
    if (session.keyId !== null) {
      key = (await this.s.store.get<ApiKeyRecord>(API_KEYS, session.keyId)) ?? null;
      if (!key || key.userId !== user.id || keyExpired(key.expires, this.s.clock.now())) return null;
      if (key.ips.length > 0 && !allowedFrom(key, clientIp(c, this.s.config.trustProxy))) return null;
    }
    return { session, user, key, by, csrf: csrfToken(token) };
  }

  /** The form token of a signed-out browser (sign-in, registration), setting its cookie when it has none. */
  preToken(c: Context): string {
    let value = getCookie(c, PRE_COOKIE);
    if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
      value = randomBytes(32).toString('base64url');
      setCookie(c, PRE_COOKIE, value, this.cookieOptions(c, 3600));
    }
    return csrfToken(value);
  }

  /** Whether a signed-out form's token matches its browser's cookie. */
  preTokenMatches(c: Context, sent: unknown): boolean {
    return csrfMatches(getCookie(c, PRE_COOKIE), sent);
  }

  /** A user's sessions that have not expired, newest first. */
  async list(userId: number): Promise<SessionRecord[]> {
    const { items } = await this.s.store.find<SessionRecord>(SESSIONS, { owner: userId, sort: { field: 'id', direction: 'desc' }, limit: 200 });
    const now = this.s.clock.now();
    return items.filter((r) => r.expires > now);
  }

  /** Ends one of a user's sessions; false when it is not one of theirs. */
  async revoke(userId: number, id: number): Promise<boolean> {
    return this.s.store.transaction(async (tx) => {
      const found = await tx.get<SessionRecord>(SESSIONS, id);
      return found?.userId === userId ? tx.remove(SESSIONS, id) : false;
    });
  }

  /** Ends every session of a user (sign out everywhere); how many. Expired ones go too. */
  async revokeAll(userId: number): Promise<number> {
    return this.s.store.transaction((tx) => tx.removeWhere(SESSIONS, { owner: userId }));
  }

  /** The session a cookie value names, if it is stored and unexpired (the admin's own, kept while signed in as another user). */
  async named(token: string | undefined): Promise<SessionRecord | null> {
    if (!token || token.length > 100) return null;
    const hash = hashApiKey(token);
    const session = await this.s.store.lookup<SessionRecord>(SESSIONS, 'tokenHash', hash);
    return session && sameKeyHash(session.tokenHash, hash) && session.expires > this.s.clock.now() ? session : null;
  }

  /** Puts a cookie value back as the browser's session (going back from "sign in as"). */
  restoreCookie(c: Context, token: string): void {
    setCookie(c, SESSION_COOKIE, token, this.cookieOptions(c, this.s.config.dashboardSessionDays * 86_400));
  }

  /** Keeps (or, with null, forgets) the admin's own session cookie while signed in as another user. */
  keepAdminCookie(c: Context, token: string | null): void {
    if (token === null) deleteCookie(c, ADMIN_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure: requestIsHttps(c, this.s.config.trustProxy) });
    else setCookie(c, ADMIN_COOKIE, token, this.cookieOptions(c, this.s.config.dashboardSessionDays * 86_400));
  }

  /** Forgets the browser's session cookie. */
  clearCookie(c: Context): void {
    deleteCookie(c, SESSION_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure: requestIsHttps(c, this.s.config.trustProxy) });
  }
}
