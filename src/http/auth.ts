import type { Context, Handler, MiddlewareHandler, Next } from 'hono';
import { bearerToken } from '../auth/keys.ts';
import type { KeyIndex } from '../auth/key-index.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import type { Services, UserRecord } from '../resources/define.ts';
import type { AppEnv } from './app-env.ts';
import { clientIp } from './client-ip.ts';
import { presetHeader } from './preset-header.ts';
import { clientBucket, retryAfter } from './rate-limit.ts';
import type { FixedWindowLimiter } from './rate-limit.ts';

/** What authentication needs beyond the services. */
export interface AuthParts {
  keys: KeyIndex;
  /** Failed authentications per client IP (IPv6 per /64; only bad keys are refused once over); null when disabled. */
  failures: FixedWindowLimiter | null;
  /** Requests per key for this API; null when disabled. */
  limiter: FixedWindowLimiter | null;
  /** Separates this API's counters from another API's. */
  scope: string;
}

/**
 * Checks a request's key and counts it against the key's rate limit: throws the ApiError, or
 * leaves the user on the context. Synchronous (undefined) when the key is known already, else a promise.
 */
export type Authenticate = (c: Context<AppEnv>) => Promise<void> | undefined;

/** Requires a valid, unexpired bearer key, then counts the request against the key's rate limit; once per request. */
export function authenticator(s: Services, parts: AuthParts): Authenticate {
  const admit = (c: Context<AppEnv>, user: UserRecord | null): undefined => {
    if (!user) {
      // Only failures are counted and refused: behind a proxy (or a shared NAT) one client's bad
      // keys would otherwise lock every good key out of the same IP.
      const failed = parts.failures?.hit(clientBucket(clientIp(c, s.config.trustProxy)));
      if (failed && !failed.allowed) {
        c.header('Retry-After', String(retryAfter(failed.reset, s.clock.now())));
        throw new ApiError(429, MESSAGES.tooMany);
      }
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
    return undefined;
  };
  return (c) => {
    if (c.get('user')) return; // a route with two handlers passes here twice
    const token = bearerToken(c.req.header('authorization'));
    if (!token) return admit(c, null);
    const known = parts.keys.known(token);
    if (known) return admit(c, known);
    return parts.keys.lookup(token).then((user) => admit(c, user));
  };
}

/**
 * `handler`, run only once `authenticate` let the request through. The check is part of each
 * route's own handler rather than an `/api/*` middleware: a route Hono matches to a single handler
 * is answered in one synchronous step, while a middleware in front sends every request through
 * compose's chain of promises, which measurably costs (about 3 µs of a 25 µs cached list request).
 */
export function guarded<H extends Handler<AppEnv> | MiddlewareHandler<AppEnv>>(authenticate: Authenticate, handler: H): H {
  return ((c: Context<AppEnv>, next: Next) => {
    const checking = authenticate(c);
    return checking ? checking.then(() => handler(c, next)) : handler(c, next);
  }) as H;
}


/** Lets only admin keys through; others get 403. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get('user').admin) throw new ApiError(403, MESSAGES.forbidden);
  await next();
};
