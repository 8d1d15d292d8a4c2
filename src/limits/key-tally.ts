import type { WindowCount } from '../store/store.ts';

/** A slice covers about this long of a key's traffic in one process: about one round trip a second per busy key and process. */
export const LEASE_FOR_MS = 1000;
/** A key's rate in a process is measured over spans at least this long; a key younger than one span is counted exactly, unless busy. */
export const RATE_SPAN_MS = 1000;
/**
 * A key far from its limit with this many requests before its first span ends is busy (a burst
 * from one client IP, many clients behind one address): its slices follow its rate so far,
 * measured over at least EARLY_SPAN_MS, not a second later. A key near its limit waits for its
 * first span, as slices leased early would strand counts it may need.
 */
export const EARLY_HITS = 8;
const EARLY_SPAN_MS = 250;
/** A key with no request for this long hands back what is left of its slice, and is forgotten. */
export const IDLE_MS = 1000;
/** Below this a slice saves nothing worth the hits it may strand: the key is counted exactly. */
export const MIN_SLICE = 4;
// A process takes at most half of its share of what is left of the limit: with P processes each
// taking half of 1/P of the rest, what remains shrinks geometrically and slices fall to exact
// counting as the key nears its limit.
const HEADROOM_PART = 2;
// A process seen doing nearly nothing of a key's traffic still gets slices of a sensible size.
const MIN_SHARE = 1 / 64;
// A key too slow for a slice of its own rate still gets MIN_SLICE while this process's cap is at
// least FAR times that: the hits it may strand (until IDLE_MS, or the window's end) are then a
// small part of what this process may take.
const FAR = 32;

/**
 * How many hits to lease for a key: enough for LEASE_FOR_MS of this process's rate (no more than
 * the window has left), at most half of this process's share of the hits left under the limit;
 * MIN_SLICE for a key slower than that, or whose rate is not known yet, while the limit is far (a
 * client IP sending a few events a second against a limit of thousands: three of its four requests
 * are then answered without a round trip); 1 (exact counting, as every request counted once) when
 * the key is not far from its limit and its rate is unknown or too slow for MIN_SLICE.
 */
export function sliceSize(k: { rate: number | null; early?: number | null; share: number; headroom: number; msLeft: number }): number {
  const cap = Math.floor((k.share * Math.max(0, k.headroom)) / HEADROOM_PART);
  const far = cap >= FAR * MIN_SLICE;
  const rate = k.rate ?? (far ? (k.early ?? null) : null);
  if (rate === null) return far ? MIN_SLICE : 1;
  const want = Math.ceil((rate * Math.min(LEASE_FOR_MS, Math.max(0, k.msLeft))) / 1000);
  const size = Math.min(want, cap);
  if (size >= MIN_SLICE) return size;
  return far ? MIN_SLICE : 1;
}

/**
 * What one process knows of one key in the current window: the counts it leased and has not
 * handed out yet (only those under the limit), the highest shared count it saw, its own rate and
 * its share of the key's traffic (its hits against the count's growth, which is every process's).
 */
export class KeyTally {
  /** The window's end as asked (aligned on this process's clock). */
  endsAt = 0;
  /** The window's end as the shared counter answered it (a process whose clock is ahead may have opened it). */
  sharedEndsAt = 0;
  /** Leased counts not handed out yet: pairs of next and last. */
  private readonly ranges: number[] = [];
  /** How many leased counts are left. */
  left = 0;
  /** A slice being leased: hits that find nothing left wait for it. */
  inflight: Promise<void> | null = null;
  /** The last slice asked for got no answer (the counter is away). */
  leaseFailed = false;
  lastHitAt = 0;
  /** The highest count the shared counter answered in this window. */
  latestCount = 0;
  /** Hits this process has counted in the shared window (requests, slices, minus what it handed back). */
  taken = 0;
  /** The size of the last slice leased. */
  lastSlice = 0;
  /** Hits per second of this key in this process, once measured over a span. */
  rate: number | null = null;
  /** Its rate so far, once EARLY_HITS came before its first span ended. */
  early: number | null = null;
  /** This process's part of the key's traffic, 0-1. */
  share = 1;
  private spanStart = 0;
  private spanHits = 0;
  private spanCount = 0;
  private spanTaken = 0;

  constructor(now: number) {
    this.spanStart = now;
  }

  /** Moves to the window ending at `endsAt`: counts left of another window lapse with it; the rate and share carry over. */
  roll(endsAt: number): void {
    if (endsAt === this.endsAt) return;
    this.endsAt = endsAt;
    this.sharedEndsAt = endsAt;
    this.ranges.length = 0;
    this.left = 0;
    this.latestCount = 0;
    this.taken = 0;
    this.spanCount = 0;
    this.spanTaken = 0;
  }

  /** Notes one request at `now`; once a span has passed, measures the rate and the share. */
  request(now: number): void {
    this.lastHitAt = now;
    this.spanHits++;
    const span = now - this.spanStart;
    if (span < RATE_SPAN_MS) {
      if (this.rate === null && this.spanHits >= EARLY_HITS) this.early = (this.spanHits * 1000) / Math.max(span, EARLY_SPAN_MS);
      return;
    }
    this.rate = (this.spanHits * 1000) / span;
    const mine = this.taken - this.spanTaken;
    const others = Math.max(0, this.latestCount - this.spanCount - mine);
    if (mine + others > 0) this.share = Math.max(MIN_SHARE, mine / (mine + others));
    this.spanStart = now;
    this.spanHits = 0;
    this.spanCount = this.latestCount;
    this.spanTaken = this.taken;
  }

  /** The next leased count, or null when none is left. */
  take(): number | null {
    if (this.left === 0) return null;
    const next = this.ranges[0]!;
    const last = this.ranges[1]!;
    if (next === last) this.ranges.splice(0, 2);
    else this.ranges[0] = next + 1;
    this.left--;
    return next;
  }

  /**
   * Notes `n` hits counted in the shared window, answered `got` (the count of the last of them).
   * With `keep`, the counts under `limit` are kept to hand out; returns how many were over it.
   */
  counted(got: WindowCount, n: number, limit: number, keep: boolean): number {
    this.latestCount = Math.max(this.latestCount, got.count);
    this.sharedEndsAt = got.endsAt;
    this.taken += n;
    if (!keep) return 0;
    const first = got.count - n + 1;
    const last = Math.min(got.count, limit);
    if (last >= first) {
      this.ranges.push(first, last);
      this.left += last - first + 1;
    }
    return Math.max(0, got.count - Math.max(limit, first - 1));
  }

  /** Empties what is left to hand back; returns how many. */
  takeLeft(): number {
    const left = this.left;
    this.ranges.length = 0;
    this.left = 0;
    this.taken -= left;
    return left;
  }
}
