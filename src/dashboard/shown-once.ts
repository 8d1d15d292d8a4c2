import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { cookieKey } from '../auth/cookie-secret.ts';
import { requestIsHttps } from '../http/client-ip.ts';
import type { Services } from '../resources/define.ts';
import type { SignedIn } from './sessions.ts';

const COOKIE = 'shown_once';
// Long enough for the redirect's GET on a slow phone; after it the cookie is spent anyway.
const MAX_AGE_S = 120;

/**
 * A secret shown once after its form, across the redirect that follows the form (post, redirect,
 * get: a reload of the page that shows it sends no form again, so it makes no second key). The
 * values ride in a cookie of the page's path, encrypted (AES-256-GCM) for the session that made
 * them, read by the next GET of that page and deleted by it: never stored, never in a URL, shown
 * once. Any process of the store reads it (the key comes from the shared cookie secret).
 */
export class ShownOnce {
  private derived: Buffer | undefined;

  constructor(private readonly s: Services) {}

  private get key(): Buffer {
    return (this.derived ??= cookieKey(this.s.secret, 'shown once'));
  }

  /** Hands `values` to the next GET of `path` by this session. */
  hand(c: Context, who: SignedIn, path: string, values: Record<string, string>): void {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(`${who.session.id}\n${path}`));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
    const value = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    setCookie(c, COOKIE, value, { path, httpOnly: true, sameSite: 'Strict', secure: requestIsHttps(c, this.s.config.trustProxy), maxAge: MAX_AGE_S });
  }

  /** What was handed to `path` for this session, once (the cookie is deleted); null when there is none or it is not this session's. */
  take(c: Context, who: SignedIn, path: string): Record<string, string> | null {
    const value = getCookie(c, COOKIE);
    if (value === undefined) return null;
    deleteCookie(c, COOKIE, { path });
    const bytes = Buffer.from(value, 'base64url');
    if (bytes.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12)).setAAD(Buffer.from(`${who.session.id}\n${path}`));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === 'object' && Object.values(parsed).every((v) => typeof v === 'string') ? (parsed as Record<string, string>) : null;
    } catch {
      return null;
    }
  }
}
