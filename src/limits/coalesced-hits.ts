import { outsideStoreDeadline, storeDeadline, withStoreDeadlineAt } from '../store/deadline.ts';
import type { WindowCount, WindowCounter } from '../store/store.ts';

interface Waiter {
  endsAt: number;
  /** Hits it counts: 1 for a request, more for a slice leased ahead (shared-limiter.ts). */
  n: number;
  /** Its request's deadline (deadline.ts): the round trip sent for it waits no longer. */
  deadline: number | undefined;
  resolve: (count: WindowCount) => void;
  reject: (err: unknown) => void;
}

/** A key's round trip under way, and the hits of that key that arrived meanwhile. */
interface Flight {
  since: number;
  waiting: Waiter[];
}

/**
 * Hits of one key that arrive while a round trip for that key is under way wait for it, then go
 * together as one hit of n (`n = n + k` in one statement or script): a busy key (one API key, one
 * client IP) costs one round trip at a time instead of one per request, and no longer queues every
 * request on one locked row. Counting stays exact: the k waiters get the counts total-k+1 … total,
 * in the order they arrived, so exactly as many pass as the limit allows (a waiter of n hits, a
 * leased slice, gets the count of its last one).
 *
 * A round trip that has not answered within `staleMs` is no longer waited for: the next hit goes
 * at once, taking the waiting ones with it (a silent counter must not hold a key forever).
 */
export class CoalescedHits implements WindowCounter {
  private readonly flights = new Map<string, Flight>();

  constructor(
    private readonly counter: WindowCounter,
    private readonly staleMs: number,
  ) {}

  /** Round trips sent to the counter so far (tests and the shutdown line read it). */
  sent = 0;

  /** Counts `n` hits of `key` in the window ending at `endsAt`, alone or with others; the count answered is that of its last hit. */
  hit(key: string, endsAt: number, n = 1): Promise<WindowCount> {
    return new Promise<WindowCount>((resolve, reject) => {
      const waiter: Waiter = { endsAt, n, deadline: storeDeadline(), resolve, reject };
      const flight = this.flights.get(key);
      if (!flight) return this.launch(key, [waiter]);
      flight.waiting.push(waiter);
      if (Date.now() - flight.since >= this.staleMs) {
        this.flights.delete(key);
        this.launchWaiting(key, flight.waiting);
      }
    });
  }

  /** Takes back `n` unused hits of `key` (one round trip, never joined with others). */
  giveBack(key: string, endsAt: number, n: number): Promise<void> {
    this.sent++;
    return this.counter.giveBack(key, endsAt, n);
  }

  /**
   * The caller stopped waiting for `key`'s round trip (its own timeout): the next hit goes at once,
   * with the hits waiting now, whatever staleMs says (a timer and a clock read of the same moment
   * can disagree by a millisecond).
   */
  giveUp(key: string): void {
    const flight = this.flights.get(key);
    if (!flight) return;
    this.flights.delete(key);
    this.launchWaiting(key, flight.waiting);
  }

  private launch(key: string, batch: Waiter[]): void {
    const flight: Flight = { since: Date.now(), waiting: [] };
    this.flights.set(key, flight);
    const n = batch.reduce((sum, w) => sum + w.n, 0);
    this.sent++;
    this.counter
      .hit(key, batch[0]!.endsAt, n)
      .then(
        (got) => {
          let before = got.count - n;
          for (const w of batch) w.resolve({ count: (before += w.n), endsAt: got.endsAt });
        },
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        // Taken over after it went stale: its waiters left with the round trip that took over.
        if (this.flights.get(key) !== flight) return;
        this.flights.delete(key);
        this.launchWaiting(key, flight.waiting);
      });
  }

  /** Sends the waiting hits of the first one's window together; hits of another window wait for that round trip. */
  private launchWaiting(key: string, waiting: Waiter[]): void {
    if (waiting.length === 0) return;
    const endsAt = waiting[0]!.endsAt;
    // Sent for the first one in line, with its deadline, not the one of the round trip that just ended.
    outsideStoreDeadline(() => withStoreDeadlineAt(waiting[0]!.deadline, () => this.launch(key, waiting.filter((w) => w.endsAt === endsAt))));
    this.flights.get(key)!.waiting.push(...waiting.filter((w) => w.endsAt !== endsAt));
  }
}
