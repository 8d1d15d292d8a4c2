import { createHmac, timingSafeEqual } from 'node:crypto';
import type { UserRecord } from '../resources/define.ts';
import type { Website } from './websites.ts';

/** How a visitor got into a non-public stats page: as the owner (API key) or with the page password. */
export type Grant = 'owner' | 'password';

/** How long a stats page cookie lasts, seconds. */
export const ACCESS_SECONDS = 24 * 3600;

/** The cookie that carries a website's stats page access. */
export function accessCookieName(website: Website): string {
  return `pa_stats_${website.id}`;
}

/**
 * Signs and checks stats page cookies with the server's cookie key (cookie-secret.ts: shared by every process on PostgreSQL).
 * The cookie holds only the grant, the user id and the expiry; the signature also covers the
 * owner's key hash or the page's password hash, so rotating the key or changing the password
 * ends every session made with the old one. The key and the password never enter the cookie.
 */
export class PageAccess {
  constructor(private readonly secret: Uint8Array) {}

  private sign(grant: Grant, website: Website, userId: number, expires: number, bound: string): string {
    return createHmac('sha256', this.secret).update(JSON.stringify([grant, website.id, userId, expires, bound])).digest('base64url');
  }

  /** The cookie value granting access to `website` until `nowMs` + ACCESS_SECONDS. */
  issue(grant: Grant, website: Website, nowMs: number, user?: UserRecord): string {
    const expires = Math.floor(nowMs / 1000) + ACCESS_SECONDS;
    const userId = user?.id ?? 0;
    const bound = grant === 'owner' ? (user?.keyHash ?? '') : (website.password ?? '');
    return `${grant}.${userId}.${expires}.${this.sign(grant, website, userId, expires, bound)}`;
  }

  /** The grant a cookie value gives for `website` now, or null when it is missing, forged, expired or stale. */
  async check(value: string | undefined, website: Website, nowMs: number, userOf: (id: number) => Promise<UserRecord | undefined>): Promise<Grant | null> {
    const m = /^(owner|password)\.(\d{1,15})\.(\d{1,12})\.([\w-]{43})$/.exec(value ?? '');
    if (!m) return null;
    const grant = m[1] as Grant;
    const userId = Number(m[2]);
    const expires = Number(m[3]);
    if (expires * 1000 <= nowMs) return null;
    let bound: string;
    if (grant === 'owner') {
      const user = await userOf(userId);
      if (!user || user.id !== website.userId) return null;
      bound = user.keyHash;
    } else {
      if (website.privacy !== 2 || !website.password) return null;
      bound = website.password;
    }
    const expected = Buffer.from(this.sign(grant, website, userId, expires, bound));
    const given = Buffer.from(m[4] ?? '');
    return expected.length === given.length && timingSafeEqual(expected, given) ? grant : null;
  }
}
