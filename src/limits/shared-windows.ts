import type { LimitOnError } from '../config.ts';
import type { Logger } from '../log.ts';
import type { WindowCount, WindowCounter } from '../store/store.ts';
import { CoalescedHits } from './coalesced-hits.ts';

/** The bound on one count in Redis: past it the request is answered as if Redis were down. */
export const REDIS_HIT_TIMEOUT_MS = 500;
// How long hits of a key wait behind an unanswered round trip of a counter that bounds its own waits.
const STALE_WITHOUT_BOUND_MS = 1000;

/** Why a counter failed, in a few words safe to log (never a URL, which may hold a password). */
function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]+$/.test(code)) return code;
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\w+:\/\/\S*/g, '<url>').split('\n')[0]!.slice(0, 120);
}

/**
 * A WindowCounter shared with other processes, made safe to ask on every request: each hit ends
 * within `timeoutMs` (null: the counter bounds its own waits, as the PostgreSQL store does), and a
 * failure answers null (the limiter applies RATE_LIMIT_ON_ERROR).
 * One line is logged when the counter goes away and one when it is back, not one per request.
 * While it is away, one hit at a time tries it; the others get null at once, so a counter that
 * stopped answering costs at most one request a timeout at a time.
 */
export class SharedWindows {
  private down = false;
  private probing = false;
  /** The counter, busy keys' hits sent together (coalesced-hits.ts). */
  private readonly counter: CoalescedHits;

  constructor(
    counter: WindowCounter,
    /** What the counter is ("Redis at 127.0.0.1:6379"), for the log. */
    private readonly label: string,
    private readonly onError: LimitOnError,
    private readonly log: Logger,
    private readonly timeoutMs: number | null,
    /** Why the counter's outage is answered as it is, for the log line. */
    private readonly because = `RATE_LIMIT_ON_ERROR=${onError}`,
  ) {
    // A round trip unanswered past the request's own bound (PostgreSQL's is its statement timeout) is no longer waited for by the key's next hits.
    this.counter = new CoalescedHits(counter, timeoutMs ?? STALE_WITHOUT_BOUND_MS);
  }

  /** Round trips sent to the counter so far: hits, slices and slices handed back. */
  get roundTrips(): number {
    return this.counter.sent;
  }

  /** Counts `n` hits (a request, or a slice leased ahead) of `key` in the window ending at `endsAt`; null when the counter could not. */
  async hit(key: string, endsAt: number, n = 1): Promise<WindowCount | null> {
    if (this.down && this.probing) return null;
    const probe = this.down;
    if (probe) this.probing = true;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      const counting = this.counter.hit(key, endsAt, n);
      const limit = this.timeoutMs;
      const late = (reject: (err: Error) => void) => () => {
        timedOut = true;
        reject(new Error(`no answer within ${limit} ms`));
      };
      const got = limit === null ? await counting : await Promise.race([counting, new Promise<never>((_, reject) => (timer = setTimeout(late(reject), limit)))]);
      if (this.down) {
        this.down = false;
        this.log.warn(`rate limits: ${this.label} answers again; limits count across processes again`);
      }
      return got;
    } catch (err) {
      // Not waited for any longer: the key's next hit asks again instead of joining this round trip.
      if (timedOut) this.counter.giveUp(key);
      if (!this.down) {
        this.down = true;
        const then = this.onError === 'open' ? 'requests pass without rate limits' : 'rate-limited requests are refused with 503';
        this.log.warn(`rate limits: ${this.label} cannot be reached (${reasonOf(err)}); ${then} until it answers again (${this.because})`);
      }
      return null;
    } finally {
      clearTimeout(timer);
      if (probe) this.probing = false;
    }
  }

  /**
   * Hands back `n` unused hits of a slice, at most within the hit's bound; a failure is let go (the
   * window's count stays a little high until it ends: fewer requests pass, never more).
   */
  async giveBack(key: string, endsAt: number, n: number): Promise<void> {
    if (n <= 0 || this.down) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs ?? STALE_WITHOUT_BOUND_MS)));
    try {
      await Promise.race([this.counter.giveBack(key, endsAt, n).catch(() => {}), bound]);
    } finally {
      clearTimeout(timer);
    }
  }
}
