import type { MiddlewareHandler } from 'hono';
import { bearerToken } from '../auth/keys.ts';
import type { KeyIndex } from '../auth/key-index.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import type { Services } from '../resources/define.ts';
import type { AppEnv } from './app-env.ts';
import { clientIp } from './client-ip.ts';
import { presetHeader } from './preset-header.ts';
import type { FixedWindowLimiter } from './rate-limit.ts';

/** What authentication needs beyond the services. */
export interface AuthParts {
  keys: KeyIndex;
  /** Failed authentications per client IP; null when disabled. */
  failures: FixedWindowLimiter | null;
  /** Requests per key for this API; null when disabled. */
  limiter: FixedWindowLimiter | null;
  /** Separates this API's counters from another API's. */
  scope: string;
}

/** Requires a valid, unexpired bearer key, then counts the request against the key's rate limit. */
export function requireUser(s: Services, parts: AuthParts): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ip = clientIp(c, s.config.trustProxy);
    if (parts.failures?.blocked(ip)) {
      c.header('Retry-After', String(retryAfter(parts.failures.hit(ip).reset, s.clock.now())));
      throw new ApiError(429, MESSAGES.tooMany);
    }
    const token = bearerToken(c.req.header('authorization'));
    const user = token ? parts.keys.lookup(token) : null;
    if (!user) {
      parts.failures?.hit(ip);
      c.header('WWW-Authenticate', 'Bearer');
      throw new ApiError(401, MESSAGES.invalidKey);
    }
    if (user.keyExpires && Date.parse(user.keyExpires.replace(' ', 'T') + 'Z') <= s.clock.now()) {
      c.header('WWW-Authenticate', 'Bearer error="invalid_token", error_description="The API key has expired"');
      throw new ApiError(401, MESSAGES.expiredKey);
    }
    if (parts.limiter) {
      const d = parts.limiter.hit(`${parts.scope}:${user.id}`);
      presetHeader(c, 'X-RateLimit-Limit', String(d.limit));
      presetHeader(c, 'X-RateLimit-Remaining', String(d.remaining));
      presetHeader(c, 'X-RateLimit-Reset', String(d.reset));
      if (!d.allowed) {
        c.header('Retry-After', String(retryAfter(d.reset, s.clock.now())));
        throw new ApiError(429, MESSAGES.tooMany);
      }
    }
    c.set('user', user);
    await next();
  };
}

function retryAfter(resetSeconds: number, nowMs: number): number {
  return Math.max(1, resetSeconds - Math.floor(nowMs / 1000));
}

/** Lets only admin keys through; others get 403. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get('user').admin) throw new ApiError(403, MESSAGES.forbidden);
  await next();
};
