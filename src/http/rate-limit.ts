import type { Context } from 'hono';
import type { Clock } from '../clock.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import { ipToBigInt } from '../visits/ip-range.ts';
import { presetHeader } from './preset-header.ts';

/** The outcome of one request against a limiter. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  reset: number;
  /**
   * Set when the shared counts could not be reached, so nothing was counted: the request passes
   * without X-RateLimit headers (RATE_LIMIT_ON_ERROR=open) or is refused with 503 (closed).
   */
  uncounted?: true;
}

/** Counts requests per key in fixed windows: in this process's memory (synchronous), or where every process counts (a promise). */
export interface Limiter {
  readonly limit: number;
  /** Counts one request for `key` and says whether it may pass. */
  hit(key: string): RateDecision | Promise<RateDecision>;
}

/** Makes the limiter `name` (its keys apart from other limiters'), or null when `limit` is 0 (off). */
export type MakeLimiter = (name: string, limit: number, windowMs: number) => Limiter | null;

/** Limiters counting in this process's memory: the file store's, and in-process tests'. */
export function memoryLimiters(clock: Clock): MakeLimiter {
  return (_name, limit, windowMs) => (limit > 0 ? new FixedWindowLimiter(limit, windowMs, clock) : null);
}

/** The X-RateLimit headers of a counted request (none when nothing could be counted). */
export function limitHeaders(c: Context, d: RateDecision): void {
  if (d.uncounted) return;
  presetHeader(c, 'X-RateLimit-Limit', String(d.limit));
  presetHeader(c, 'X-RateLimit-Remaining', String(d.remaining));
  presetHeader(c, 'X-RateLimit-Reset', String(d.reset));
}

/** Throws what a refused decision means, with Retry-After: 429, or 503 when the shared counts could not be reached (RATE_LIMIT_ON_ERROR=closed). */
export function refuseOver(c: Context, d: RateDecision | null | undefined, nowMs: number): void {
  if (!d || d.allowed) return;
  c.header('Retry-After', String(retryAfter(d.reset, nowMs)));
  throw new ApiError(d.uncounted ? 503 : 429, d.uncounted ? MESSAGES.unavailable : MESSAGES.tooMany);
}

/**
 * A fixed-window counter per key, in memory. Windows are aligned to multiples of the window
 * length, so every key's window ends at the same instant and all counters of a finished window
 * can be dropped at once: memory is bounded by the keys active in one window.
 */
export class FixedWindowLimiter implements Limiter {
  private windowStart = -1;
  private counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one request for `key` and says whether it may pass. */
  hit(key: string): RateDecision {
    const start = this.roll();
    const used = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, used);
    return {
      allowed: used <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      reset: Math.ceil((start + this.windowMs) / 1000),
    };
  }

  /** Whether `key` is already over the limit in this window, without counting. */
  blocked(key: string): boolean {
    this.roll();
    return (this.counts.get(key) ?? 0) >= this.limit;
  }

  /** Takes back one request counted for `key` in this window (one that turned out not to count). */
  undo(key: string): void {
    this.roll();
    const used = this.counts.get(key);
    if (used === undefined) return;
    if (used <= 1) this.counts.delete(key);
    else this.counts.set(key, used - 1);
  }

  /** Unix seconds at which the current window ends. */
  windowEnd(): number {
    return Math.ceil((this.roll() + this.windowMs) / 1000);
  }

  /** How many keys are tracked now (for tests of the memory bound). */
  get size(): number {
    return this.counts.size;
  }

  private roll(): number {
    const now = this.clock.now();
    const start = now - (now % this.windowMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts = new Map();
    }
    return start;
  }
}

/**
 * The key a client's failures are counted under: its IPv4 address, or the /64 of an IPv6 one (one
 * host usually holds a whole /64, so counting single addresses would let it rotate past any limit).
 */
export function clientBucket(ip: string): string {
  const value = ipToBigInt(ip);
  if (value === null) return ip;
  if (value >> 32n === 0xffffn) return [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join('.'); // IPv4, or IPv4-mapped
  return `${[112n, 96n, 80n, 64n].map((shift) => ((value >> shift) & 0xffffn).toString(16)).join(':')}::/64`;
}

/** Seconds a client should wait (Retry-After) until a window that ends at `resetSeconds` (Unix seconds) is over; at least 1. */
export function retryAfter(resetSeconds: number, nowMs: number): number {
  return Math.max(1, resetSeconds - Math.floor(nowMs / 1000));
}
