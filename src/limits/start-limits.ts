import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { MakeLimiter } from '../http/rate-limit.ts';
import type { ReadinessCheck } from '../http/readiness.ts';
import { memoryLimiters } from '../http/rate-limit.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { SharedLimiters } from './shared-limiter.ts';
import { REDIS_HIT_TIMEOUT_MS, SharedWindows } from './shared-windows.ts';

/** Where a server's rate limits count, and how to let go of it. */
export interface RateLimits {
  make: MakeLimiter;
  /** Where they count, for the start line: memory, PostgreSQL or Redis host:port. */
  label: string;
  /** What /ready asks beside the store: Redis, when the limits count there. */
  checks: ReadinessCheck[];
  /** Hands back what the limiters leased and did not use, says what they cost, and lets go of the counter. */
  close(): Promise<void>;
}

/** Closes shared limits: leftovers handed back, then one line of what they cost (requests against round trips), then `after`. */
function closing(limiters: SharedLimiters, label: string, log: Logger, after: () => void): () => Promise<void> {
  return async () => {
    await limiters.release();
    if (limiters.decided > 0) log.info(`rate limits: ${limiters.decided} requests decided with ${limiters.windows.roundTrips} round trips to ${label}`);
    after();
  };
}

/**
 * The rate limits of a server process: in Redis when REDIS_URL is set, else in PostgreSQL when the
 * store is there (every process and instance on the database counts together), else in memory
 * (the file store is one process's).
 */
export async function startRateLimits(config: Config, store: Store, clock: Clock, log: Logger): Promise<RateLimits> {
  if (config.redisUrl) {
    // Loaded only when asked for: a server without Redis never loads the client.
    const { RedisWindows, describeRedisUrl } = await import('./redis-windows.ts');
    const redis = await RedisWindows.open(config.redisUrl, config.redisPrefix);
    const label = `Redis at ${describeRedisUrl(config.redisUrl)}`;
    // With RATE_LIMIT_ON_ERROR=open the instance serves while Redis is away (without limits): /ready says so and stays 200.
    const checks = [{ name: 'redis', probe: () => redis.ping(), optional: config.rateLimitOnError === 'open' }];
    const limiters = new SharedLimiters(new SharedWindows(redis, label, config.rateLimitOnError, log, REDIS_HIT_TIMEOUT_MS), clock, config.rateLimitOnError);
    return { make: limiters.make, label, checks, close: closing(limiters, label, log, () => redis.close()) };
  }
  if (store.windows) {
    // Always closed, and no timer of its own: the data is in the same database, so a request let
    // through uncounted would only wait on the store again before failing there; answering 503 at
    // once saves the rest of its DATABASE_TIMEOUT.
    const windows = new SharedWindows(store.windows, 'PostgreSQL', 'closed', log, null, 'the data is in the same database');
    const limiters = new SharedLimiters(windows, clock, 'closed');
    return { make: limiters.make, label: 'PostgreSQL', checks: [], close: closing(limiters, 'PostgreSQL', log, () => {}) };
  }
  return { make: memoryLimiters(clock), label: 'memory', checks: [], close: async () => {} };
}
