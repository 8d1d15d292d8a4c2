import { randomBytes } from 'node:crypto';
import type { UserRecord } from '../resources/define.ts';
import { hashApiKey, sameKeyHash } from './keys.ts';

/** How long a one-time sign-in link works: 15 minutes. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;

/** What a user record keeps of its pending sign-in link: the secret's hash and when it ends (ms); null when none. */
export type LoginLinkFields = Pick<UserRecord, 'loginHash' | 'loginExpires'>;

/** A new sign-in token for a user, `<id>.<secret>` (32 random bytes), and the fields to store: only the hash of the secret. */
export function newLoginToken(userId: number, now: number): { token: string; fields: LoginLinkFields } {
  const secret = randomBytes(32).toString('base64url');
  return { token: `${userId}.${secret}`, fields: { loginHash: hashApiKey(secret), loginExpires: now + LOGIN_LINK_TTL_MS } };
}

/** The user id and secret hash a token names, or null when it is not one of ours. */
export function readLoginToken(token: unknown): { userId: number; hash: string } | null {
  const m = typeof token === 'string' ? /^([1-9]\d{0,14})\.([A-Za-z0-9_-]{43})$/.exec(token) : null;
  return m ? { userId: Number(m[1]), hash: hashApiKey(m[2]!) } : null;
}

/** Whether `user` has a pending sign-in link with this secret hash that has not expired. */
export function loginLinkValid(user: Partial<LoginLinkFields> | undefined, hash: string, now: number): boolean {
  return typeof user?.loginHash === 'string' && typeof user.loginExpires === 'number' && user.loginExpires > now && sameKeyHash(user.loginHash, hash);
}
