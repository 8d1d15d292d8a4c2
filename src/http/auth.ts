import type { Context, Handler, MiddlewareHandler, Next } from 'hono';
import { bearerToken } from '../auth/keys.ts';
import type { Credential, KeyIndex } from '../auth/key-index.ts';
import { allowedFrom, keyExpired } from '../auth/key-checks.ts';
import { ACCOUNT_DISABLED, isDisabled } from '../auth/disabled-users.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import type { Services } from '../resources/define.ts';
import type { AppEnv } from './app-env.ts';
import { clientIp } from './client-ip.ts';
import { clientBucket, limitHeaders, refuseOver } from './rate-limit.ts';
import type { Limiter, RateDecision } from './rate-limit.ts';

/** What authentication needs beyond the services. */
export interface AuthParts {
  keys: KeyIndex;
  /** Failed authentications per client IP (IPv6 per /64; only bad keys are refused once over); null when disabled. */
  failures: Limiter | null;
  /** Requests per key for this API (its own name keeps its counts apart from the other API's); null when disabled. */
  limiter: Limiter | null;
}

/**
 * Checks a request's key and counts it against the key's rate limit: throws the ApiError, or
 * leaves the user on the context. Synchronous (undefined) when the key is known already and the
 * limits count in memory, else a promise (one round trip to the shared counts for a known key).
 */
export type Authenticate = (c: Context<AppEnv>) => Promise<void> | undefined;

/** The answer to a scoped key used from an address outside its allow-list. */
export const ADDRESS_REFUSED = 'This API key may not be used from this address.';

/**
 * Requires a valid, unexpired bearer key of an account that is not disabled (a scoped key also from an address of its allow-list),
 * then counts the request against the user's rate limit: every key of a user shares the user's
 * budget, so more keys never mean more requests. Once per request.
 */
export function authenticator(s: Services, parts: AuthParts): Authenticate {
  const refuseKey = (c: Context<AppEnv>, failed: RateDecision | undefined): never => {
    refuseOver(c, failed, s.clock.now());
    c.header('WWW-Authenticate', 'Bearer');
    throw new ApiError(401, MESSAGES.invalidKey);
  };
  const refuseAddress = (c: Context<AppEnv>, failed: RateDecision | undefined): never => {
    refuseOver(c, failed, s.clock.now());
    throw new ApiError(403, ADDRESS_REFUSED);
  };
  // Only failures are counted and refused: behind a proxy (or a shared NAT) one client's bad keys
  // would otherwise lock every good key out of the same IP. A key from outside its allow-list is one.
  const failing = (c: Context<AppEnv>, refuse: (c: Context<AppEnv>, d: RateDecision | undefined) => never): Promise<void> => {
    const failed = parts.failures?.hit(clientBucket(clientIp(c, s.config.trustProxy)));
    return failed instanceof Promise ? failed.then((d) => refuse(c, d)) : refuse(c, failed);
  };
  const pass = (c: Context<AppEnv>, found: Credential, d: RateDecision): undefined => {
    limitHeaders(c, d);
    refuseOver(c, d, s.clock.now());
    c.set('user', found.user);
    c.set('apiKey', found.key);
    return undefined;
  };
  const admit = (c: Context<AppEnv>, found: Credential | null): Promise<void> | undefined => {
    if (!found) return failing(c, refuseKey);
    const { user, key } = found;
    // A good key of a disabled account: said plainly (the key is right; the account is stopped).
    if (isDisabled(user)) throw new ApiError(403, ACCOUNT_DISABLED);
    if (keyExpired(key ? key.expires : user.keyExpires, s.clock.now())) {
      c.header('WWW-Authenticate', 'Bearer error="invalid_token", error_description="The API key has expired"');
      throw new ApiError(401, MESSAGES.expiredKey);
    }
    if (key) {
      if (key.ips.length > 0 && !allowedFrom(key, clientIp(c, s.config.trustProxy))) return failing(c, refuseAddress);
      s.keyUses.note(key.id);
    }
    if (!parts.limiter) {
      c.set('user', user);
      c.set('apiKey', key);
      return undefined;
    }
    const d = parts.limiter.hit(String(user.id));
    return d instanceof Promise ? d.then((got) => pass(c, found, got)) : pass(c, found, d);
  };
  return (c) => {
    if (c.get('user')) return; // a route with two handlers passes here twice
    const token = bearerToken(c.req.header('authorization'));
    if (!token) return admit(c, null);
    const known = parts.keys.known(token);
    if (known) return admit(c, known);
    return parts.keys.lookup(token).then((found) => admit(c, found));
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
