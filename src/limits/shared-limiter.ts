import type { Clock } from '../clock.ts';
import type { LimitOnError } from '../config.ts';
import type { Limiter, MakeLimiter, RateDecision } from '../http/rate-limit.ts';
import { IDLE_MS, KeyTally, sliceSize } from './key-tally.ts';
import type { SharedWindows } from './shared-windows.ts';

// How often keys are looked at for idleness (their leftovers handed back) while any is known.
const SWEEP_MS = 250;
// A slice is renewed in the background once this part of it is left, so a busy key never waits.
const RENEW_AT = 1 / 4;

/**
 * A fixed-window limiter counting where every process counts (Redis, PostgreSQL): windows aligned
 * to multiples of their length, as the memory limiter's, and the X-RateLimit headers taken from
 * the shared count and the shared window's end, so every process answers the same.
 *
 * A busy key leases a slice of its window (`n = n + s` in one round trip: the counts n-s+1 … n
 * are this process's to hand out) and counts locally; the slice's size follows the key's rate here
 * and this process's share of its traffic (key-tally.ts), so a key near its limit, or one whose
 * rate is not known yet, is counted exactly, one round trip per request (or per batch of them,
 * coalesced-hits.ts). No count over the limit is ever handed out, so no process lets through more
 * than its slices allow and the limit holds across processes. What a key leaves of its slice goes
 * back when it has been idle for IDLE_MS (the window's end drops it with the window).
 */
export class SharedLimiter implements Limiter {
  private readonly keys = new Map<string, KeyTally>();
  private sweeper: NodeJS.Timeout | null = null;
  /** Requests decided so far (tests and the shutdown line read it). */
  decided = 0;

  constructor(
    /** Keeps this limiter's keys apart from other limiters' in the shared counts. */
    private readonly name: string,
    readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly windows: SharedWindows,
    private readonly onError: LimitOnError,
  ) {}

  /** Counts one request for `key` and says whether it may pass: at once from a leased slice, else after a round trip. */
  hit(key: string): RateDecision | Promise<RateDecision> {
    const now = this.clock.now();
    this.decided++;
    const tally = this.tallyOf(key, now - (now % this.windowMs) + this.windowMs, now);
    tally.request(now);
    const count = tally.take();
    if (count === null) return this.counted(key, tally, now);
    if (!tally.inflight && tally.left <= tally.lastSlice * RENEW_AT) {
      const size = this.sliceFor(tally, now);
      if (size > 1) void this.lease(key, tally, size);
    }
    return this.decide(count, tally.sharedEndsAt);
  }

  /** How many keys are known now (for tests: an idle key is forgotten). */
  get size(): number {
    return this.keys.size;
  }

  /** Hands back what idle keys left of their slices and forgets them; drops keys of ended windows. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const giving: Promise<void>[] = [];
    for (const [key, tally] of this.keys) {
      if (now >= tally.endsAt) this.keys.delete(key);
      else if (now - tally.lastHitAt >= IDLE_MS) {
        // Forgotten now; a slice still under way is handed back once it lands.
        this.keys.delete(key);
        giving.push((tally.inflight ?? Promise.resolve()).then(() => this.giveBack(key, tally, tally.takeLeft())));
      }
    }
    if (this.keys.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
    await Promise.all(giving);
  }

  /** Hands back every key's leftovers (the server stops). */
  async release(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    const now = this.clock.now();
    const giving = [...this.keys].map(async ([key, tally]) => {
      await tally.inflight;
      if (now < tally.endsAt) await this.giveBack(key, tally, tally.takeLeft());
    });
    this.keys.clear();
    await Promise.all(giving);
  }

  private tallyOf(key: string, endsAt: number, now: number): KeyTally {
    let tally = this.keys.get(key);
    if (!tally) {
      tally = new KeyTally(now);
      this.keys.set(key, tally);
      this.sweeper ??= setInterval(() => void this.sweep(), SWEEP_MS).unref();
    }
    tally.roll(endsAt);
    return tally;
  }

  private sliceFor(tally: KeyTally, now: number): number {
    return sliceSize({ rate: tally.rate, early: tally.early, share: tally.share, headroom: this.limit - tally.latestCount, msLeft: tally.endsAt - now });
  }

  /** No leased count left: waits for a slice under way, or leases one, or counts this request alone (exactly). */
  private async counted(key: string, tally: KeyTally, now: number): Promise<RateDecision> {
    // Another request may lease the next slice while this one waits: wait for that one too.
    while (tally.inflight) {
      await tally.inflight;
      const count = tally.take();
      if (count !== null) return this.decide(count, tally.sharedEndsAt);
      // The counter did not answer that slice: not asked again for this request (it would wait twice).
      if (tally.leaseFailed) return this.uncounted(now);
    }
    const size = this.sliceFor(tally, now);
    if (size > 1) {
      const got = await this.lease(key, tally, size);
      const count = tally.take();
      if (count !== null) return this.decide(count, tally.sharedEndsAt);
      // The slice went to requests that waited for it, or lay over the limit: counted alone below.
      if (got === null) return this.uncounted(now);
    }
    const endsAt = tally.endsAt;
    const got = await this.windows.hit(`${this.name}:${key}`, endsAt);
    if (!got) return this.uncounted(now);
    if (tally.endsAt === endsAt) tally.counted(got, 1, this.limit, false);
    return this.decide(got.count, got.endsAt);
  }

  /** Leases `size` counts of `key`'s window; those over the limit are handed back at once. */
  private lease(key: string, tally: KeyTally, size: number): Promise<{ count: number } | null> {
    const endsAt = tally.endsAt;
    tally.lastSlice = size;
    const leasing = this.windows.hit(`${this.name}:${key}`, endsAt, size).then((got) => {
      tally.leaseFailed = got === null;
      // A slice of a window that ended meanwhile lapses with it.
      if (!got || tally.endsAt !== endsAt) return got;
      const over = tally.counted(got, size, this.limit, true);
      if (over > 0) {
        tally.taken -= over;
        void this.giveBack(key, tally, over);
      }
      return got;
    });
    const settled = leasing.then(() => {});
    tally.inflight = settled;
    void settled.then(() => {
      if (tally.inflight === settled) tally.inflight = null;
    });
    return leasing;
  }

  private async giveBack(key: string, tally: KeyTally, n: number): Promise<void> {
    if (n <= 0) return;
    await this.windows.giveBack(`${this.name}:${key}`, tally.sharedEndsAt, n);
  }

  private decide(count: number, endsAt: number): RateDecision {
    return { allowed: count <= this.limit, limit: this.limit, remaining: Math.max(0, this.limit - count), reset: Math.ceil(endsAt / 1000) };
  }

  /** Nothing counted: open lets it pass, closed asks the client to come back in a second. */
  private uncounted(now: number): RateDecision {
    return { allowed: this.onError === 'open', limit: this.limit, remaining: this.limit, reset: Math.floor(now / 1000) + 1, uncounted: true };
  }
}

/** The shared limiters of a server: made per name, all handing back their leftovers when it stops. */
export class SharedLimiters {
  private readonly made: SharedLimiter[] = [];
  /** Makes the limiter `name`, or null when `limit` is 0 (off). */
  readonly make: MakeLimiter;

  constructor(
    /** Where they count: its round trips are counted for the shutdown line. */
    readonly windows: SharedWindows,
    clock: Clock,
    onError: LimitOnError,
  ) {
    this.make = (name, limit, windowMs) => {
      if (limit <= 0) return null;
      const limiter = new SharedLimiter(name, limit, windowMs, clock, windows, onError);
      this.made.push(limiter);
      return limiter;
    };
  }

  /** Requests decided by every limiter so far. */
  get decided(): number {
    return this.made.reduce((sum, l) => sum + l.decided, 0);
  }

  /** Hands back every limiter's leftovers. */
  async release(): Promise<void> {
    await Promise.all(this.made.map((l) => l.release()));
  }
}

/** Limiters that all count in `windows`. */
export function sharedLimiters(windows: SharedWindows, clock: Clock, onError: LimitOnError): MakeLimiter {
  return new SharedLimiters(windows, clock, onError).make;
}
