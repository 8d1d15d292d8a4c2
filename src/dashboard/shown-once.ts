import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { cookieKey } from '../auth/cookie-secret.ts';
import { requestIsHttps } from '../http/client-ip.ts';
import type { Services } from '../resources/define.ts';
import type { SignedIn } from './sessions.ts';

const COOKIE = 'shown_once_';
// Each form's own cookie, named by a nonce the redirect's URL carries: two tabs' forms keep theirs.
const NONCE = /^[0-9a-f]{16}$/;
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

  /** Hands `values` to the GET of `path` by this session that names the nonce returned (`?made=<nonce>`). */
  hand(c: Context, who: SignedIn, path: string, values: Record<string, string>): string {
    const nonce = randomBytes(8).toString('hex');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(`${who.session.id}\n${path}\n${nonce}`));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
    const value = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    setCookie(c, COOKIE + nonce, value, { path, httpOnly: true, sameSite: 'Strict', secure: requestIsHttps(c, this.s.config.trustProxy), maxAge: MAX_AGE_S });
    return nonce;
  }

  /** What was handed to `path` under `nonce` for this session, once (the cookie is deleted); null when there is none or it is not this session's. */
  take(c: Context, who: SignedIn, path: string, nonce: string | undefined): Record<string, string> | null {
    if (nonce === undefined || !NONCE.test(nonce)) return null;
    const value = getCookie(c, COOKIE + nonce);
    if (value === undefined) return null;
    deleteCookie(c, COOKIE + nonce, { path });
    const bytes = Buffer.from(value, 'base64url');
    if (bytes.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12)).setAAD(Buffer.from(`${who.session.id}\n${path}\n${nonce}`));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === 'object' && Object.values(parsed).every((v) => typeof v === 'string') ? (parsed as Record<string, string>) : null;
    } catch {
      return null;
    }
  }
}
