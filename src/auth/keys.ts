import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new API key: 32 random bytes, URL-safe. Shown once; only its hash is stored. */
export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a key. Keys carry 256 bits of entropy, so a fast hash cannot be brute-forced. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Compares two key hashes in constant time. */
export function sameKeyHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/**
 * The key of an `Authorization: Bearer <key>` or `Token <key>` header, or null when the header is
 * missing or malformed. `Token` is what the real product's own PHP wrapper sends (docs/compatibility.md).
 */
export function bearerToken(header: string | undefined): string | null {
  const m = /^(?:Bearer|Token)\s+([\x21-\x7e]{8,256})\s*$/i.exec(header ?? '');
  return m?.[1] ?? null;
}
