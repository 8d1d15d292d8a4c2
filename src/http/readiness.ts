import { outsideStoreDeadline, withStoreDeadline } from '../store/deadline.ts';

/** One thing an instance needs to serve requests, and how to ask it (resolves when it answers). */
export interface ReadinessCheck {
  /** Its name in /ready's body: `store`, `redis`, `replica host:port/database`. */
  name: string;
  /** Resolves when it answers; `lagging`: it answers, but too far behind to be used (a read replica). */
  probe: () => Promise<void | 'lagging'>;
  /**
   * Whether the instance can serve while this one is down: the Redis of RATE_LIMIT_ON_ERROR=open
   * (requests pass without limits) is reported, and keeps the instance ready; so are read replicas
   * (their reads go to the primary meanwhile).
   */
  optional?: boolean;
}

/** One check's answer in /ready. */
export type CheckAnswer = 'ok' | 'lagging' | 'unavailable';

/** What /ready answers. */
export interface ReadyState {
  ready: boolean;
  /** Each check's answer. */
  checks: Record<string, CheckAnswer>;
  /** When the probe behind this answer ended (Unix ms). */
  at: number;
}

/** How long one probe's answer is reused: /ready is asked by every proxy and orchestrator, often, and costs at most one probe per second per process. */
export const READY_FRESH_MS = 1000;

/**
 * The answer of /ready: every check probed at once, each within `timeoutMs`, the result reused
 * for READY_FRESH_MS. A request that finds it older waits for a new probe (one at a time, shared
 * by every request that arrives meanwhile), so an answer is never more than about a second stale
 * and a busy proxy costs the database one trivial statement a second, not one a request.
 */
export class Readiness {
  private last: ReadyState | null = null;
  private probing: Promise<ReadyState> | null = null;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    /** Bound on one probe (DATABASE_TIMEOUT, at most a few seconds: proxies give up on a slow health check). */
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current state: the last probe's when fresh, else a new probe's. */
  async state(): Promise<ReadyState> {
    if (this.last && this.now() - this.last.at < READY_FRESH_MS) return this.last;
    // Shared by every request waiting: no caller's deadline is lent to it.
    this.probing ??= outsideStoreDeadline(() => this.probe()).finally(() => (this.probing = null));
    return this.probing;
  }

  private async probe(): Promise<ReadyState> {
    const answers = await Promise.all(
      this.checks.map((c) =>
        withStoreDeadline(this.timeoutMs, () => within(Promise.resolve().then(c.probe), this.timeoutMs)).then(
          (said): CheckAnswer => (said === 'lagging' ? 'lagging' : 'ok'),
          (): CheckAnswer => 'unavailable',
        ),
      ),
    );
    const checks: ReadyState['checks'] = {};
    this.checks.forEach((c, i) => (checks[c.name] = answers[i]!));
    const ready = this.checks.every((c, i) => answers[i] === 'ok' || c.optional);
    this.last = { ready, checks, at: this.now() };
    return this.last;
  }
}

/** `work`, or a rejection once it took `ms` (a probe that does not bound its own wait still ends). */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer in time')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
