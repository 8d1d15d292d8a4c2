import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../store/store.ts';

/** The label under a host where its TXT proof is published: `_shortlink.go.example.com`. */
export const TXT_LABEL = '_shortlink';

/** What a TXT proof's value starts with, before the token. */
export const TXT_VALUE_PREFIX = 'shortlink-verify=';

/** The path of the token file a website's domain may serve instead, over HTTPS. */
export const TOKEN_FILE_PATH = '/.well-known/shortlink-verify.txt';

/** The DNS record that proves a user controls `host`. */
export interface TxtRecord {
  name: string;
  type: 'TXT';
  value: string;
}

/** The file that proves a user controls a website's domain. */
export interface TokenFile {
  url: string;
  content: string;
}

/**
 * The server secret behind every ownership token, kept in the store for good (a restart, another
 * process and a new key leave every token as it was).
 */
export async function ownershipSecret(store: Pick<Store, 'keptValue'>): Promise<Buffer> {
  return Buffer.from(await store.keptValue('ownership secret', randomBytes(32).toString('hex')), 'hex');
}

/**
 * A user's ownership token: an HMAC of the user (id and registration time, so a later user given a
 * reused id gets another token) under the server secret. Stable, different on every server, and
 * not a secret: it is published in DNS, and it opens nothing but the proof that names it.
 */
export function ownershipToken(secret: Uint8Array, user: { id: number; registered?: unknown }): string {
  return createHmac('sha256', secret).update(`ownership\n${user.id}\n${String(user.registered ?? '')}`).digest('hex').slice(0, 32);
}

/** The TXT record proving `host` (a host name, lowercase) for the user of `token`. */
export function txtRecordOf(host: string, token: string): TxtRecord {
  return { name: `${TXT_LABEL}.${host}`, type: 'TXT', value: `${TXT_VALUE_PREFIX}${token}` };
}

/** The token file proving a website's `domain` for the user of `token`. */
export function tokenFileOf(domain: string, token: string): TokenFile {
  return { url: `https://${domain}${TOKEN_FILE_PATH}`, content: token };
}
