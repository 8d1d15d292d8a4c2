import * as v from 'valibot';
import type { RandomSource } from '../random.ts';
import { randomToken } from '../random.ts';

/** First path segments the server's own routes use; an alias may not shadow them. */
export const RESERVED_ALIASES = new Set(
  ['api', 'qr', 'r', 'u', 'c', 'health', 'ready', 'docs', 'openapi.json', 'stats', 'js', '__admin', 'favicon.ico', 'robots.txt', 'static', 'admin', 'login', 'logout', 'app'].map((a) => a.toLowerCase()),
);

/** A custom alias: 3 to 64 URL-safe characters. */
export const customAlias = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(3, 'Custom alias must be at least 3 characters.'),
  v.maxLength(64, 'Custom alias must be at most 64 characters.'),
  v.regex(/^[A-Za-z0-9_-]+$/, 'Custom alias may only contain letters, digits, dashes and underscores.'),
);

/** Whether an alias would shadow a route of the server. */
export function isReservedAlias(alias: string): boolean {
  return RESERVED_ALIASES.has(alias.toLowerCase());
}

/**
 * A short random alias that `taken` does not know; grows by one character after repeated
 * collisions. At once (no promise) while `taken` answers at once.
 */
export function generateAlias(random: RandomSource, taken: (alias: string) => boolean | Promise<boolean>, length = 6, attempt = 0): string | Promise<string> {
  for (; ; attempt++) {
    const alias = randomToken(random, length + Math.floor(attempt / 5));
    if (isReservedAlias(alias)) continue;
    const known = taken(alias);
    if (known instanceof Promise) {
      const next = attempt + 1;
      return known.then((yes) => (yes ? generateAlias(random, taken, length, next) : alias));
    }
    if (!known) return alias;
  }
}

/** Key of the alias index: aliases are unique per domain (0 = the main host). */
export const aliasKey = (domainId: number | null, alias: string) => `${domainId ?? 0}:${alias}`;
