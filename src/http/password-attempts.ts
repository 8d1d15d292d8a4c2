import { BusyError } from '../auth/semaphore.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { FixedWindowLimiter, clientBucket, retryAfter } from './rate-limit.ts';

/** What one password attempt came to; `retryAfter` in seconds. */
export type AttemptOutcome = { kind: 'right' } | { kind: 'wrong' } | { kind: 'blocked' | 'busy'; retryAfter: number };

/**
 * Wrong passwords on protected links and stats pages, counted per client (IPv6 per /64) and per
 * protected thing, in fixed windows of PASSWORD_ATTEMPT_WINDOW. Once either count is over its
 * limit, every attempt is refused until the window ends without checking it, the right password
 * too: answering "right" during a block would let guessing go on at full speed.
 */
export class PasswordAttempts {
  private readonly perClient: FixedWindowLimiter | null;
  private readonly perTarget: FixedWindowLimiter | null;

  constructor(
    config: Pick<Config, 'passwordAttemptLimit' | 'passwordAttemptLinkLimit' | 'passwordAttemptWindow'>,
    private readonly clock: Clock,
  ) {
    const windowMs = config.passwordAttemptWindow * 1000;
    this.perClient = config.passwordAttemptLimit > 0 ? new FixedWindowLimiter(config.passwordAttemptLimit, windowMs, clock) : null;
    this.perTarget = config.passwordAttemptLinkLimit > 0 ? new FixedWindowLimiter(config.passwordAttemptLinkLimit, windowMs, clock) : null;
  }

  /** Seconds until `ip` may try `target` again; 0 when it may try now. */
  blockedFor(ip: string, target: string): number {
    const over = [this.perClient?.blocked(clientBucket(ip)) ? this.perClient : null, this.perTarget?.blocked(target) ? this.perTarget : null];
    const until = Math.max(0, ...over.map((l) => l?.windowEnd() ?? 0));
    return until === 0 ? 0 : retryAfter(until, this.clock.now());
  }

  /** Counts one wrong attempt of `ip` on `target`. */
  failed(ip: string, target: string): void {
    this.perClient?.hit(clientBucket(ip));
    this.perTarget?.hit(target);
  }

  /** Checks a password with `verify`, unless `ip` or `target` is blocked; a wrong one is counted. */
  async attempt(ip: string, target: string, verify: () => Promise<boolean>): Promise<AttemptOutcome> {
    const wait = this.blockedFor(ip, target);
    if (wait > 0) return { kind: 'blocked', retryAfter: wait };
    // Counted before the check, so that concurrent guesses cannot all pass the limit while their
    // checks run; taken back when the password was right or never checked.
    this.failed(ip, target);
    const undo = () => {
      this.perClient?.undo(clientBucket(ip));
      this.perTarget?.undo(target);
    };
    let right: boolean;
    try {
      right = await verify();
    } catch (err) {
      undo();
      if (err instanceof BusyError) return { kind: 'busy', retryAfter: 1 };
      throw err;
    }
    if (!right) return { kind: 'wrong' };
    undo();
    return { kind: 'right' };
  }
}
