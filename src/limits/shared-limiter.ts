import type { Clock } from '../clock.ts';
import type { LimitOnError } from '../config.ts';
import type { Limiter, MakeLimiter, RateDecision } from '../http/rate-limit.ts';
import type { SharedWindows } from './shared-windows.ts';

/**
 * A fixed-window limiter counting where every process counts (Redis, PostgreSQL): windows aligned
 * to multiples of their length, as the memory limiter's, and the X-RateLimit headers taken from
 * the shared count and the shared window's end, so every process answers the same. One round trip per hit.
 */
export class SharedLimiter implements Limiter {
  constructor(
    /** Keeps this limiter's keys apart from other limiters' in the shared counts. */
    private readonly name: string,
    readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly windows: SharedWindows,
    private readonly onError: LimitOnError,
  ) {}

  /** Counts one request for `key` and says whether it may pass. */
  async hit(key: string): Promise<RateDecision> {
    const now = this.clock.now();
    const got = await this.windows.hit(`${this.name}:${key}`, now - (now % this.windowMs) + this.windowMs);
    if (!got) {
      // Nothing counted: open lets it pass, closed asks the client to come back in a second.
      return { allowed: this.onError === 'open', limit: this.limit, remaining: this.limit, reset: Math.floor(now / 1000) + 1, uncounted: true };
    }
    return { allowed: got.count <= this.limit, limit: this.limit, remaining: Math.max(0, this.limit - got.count), reset: Math.ceil(got.endsAt / 1000) };
  }
}

/** Limiters that all count in `windows`. */
export function sharedLimiters(windows: SharedWindows, clock: Clock, onError: LimitOnError): MakeLimiter {
  return (name, limit, windowMs) => (limit > 0 ? new SharedLimiter(name, limit, windowMs, clock, windows, onError) : null);
}
