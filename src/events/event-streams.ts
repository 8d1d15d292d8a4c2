import { outsideStoreDeadline, withStoreDeadline } from '../store/deadline.ts';
import { EVENTS_COLLECTION } from '../store/store.ts';
import type { PlacedEvent, Store } from '../store/store.ts';

/** How event streams run. */
export interface EventStreamOptions {
  /** Streams one user may have open at once in this process. */
  perUser: number;
  /** DATABASE_TIMEOUT in ms: the bound on each read. */
  databaseMs: number;
  /** A comment line this often keeps proxies from closing a quiet stream, ms (default 15 s). */
  heartbeatMs?: number;
  /** How often the store's change counter is looked at (memory only), ms (default 200). */
  pollMs?: number;
  /** How often the store is read anyway (events of other processes whose news was missed), ms (default 1 s). */
  sweepMs?: number;
}

/** Where one stream writes. */
export interface StreamSink {
  event(placed: PlacedEvent): Promise<void>;
  heartbeat(): Promise<void>;
  /** True once the client is gone. */
  readonly gone: boolean;
  /** Aborted when the client goes: a stream waiting for news stops waiting. */
  readonly signal: AbortSignal;
}

/** Events read per page. */
const PAGE = 100;

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The live event streams of this process (`GET /api/events/stream`): each follows the outbox for its
 * user, from the event after `Last-Event-ID` while the outbox keeps it, or from now. It reads when
 * the store's `events` counter moves (this process's writes, and other processes' on PostgreSQL
 * through the change feed) and every second besides, so it works across processes.
 */
export class EventStreams {
  private readonly open = new Map<number, number>();
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly options: EventStreamOptions,
  ) {}

  /** Takes a place for a stream of `userId`: its release, or null at the per-user cap. */
  admit(userId: number): (() => void) | null {
    const n = this.open.get(userId) ?? 0;
    if (this.closed || n >= this.options.perUser) return null;
    this.open.set(userId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left > 0) this.open.set(userId, left);
      else this.open.delete(userId);
    };
  }

  /** Where a stream starts: after the event `lastEventId` if the outbox still has it, else after every event durable now. */
  async start(lastEventId: string | undefined): Promise<string> {
    return this.read(async () => (lastEventId ? await this.store.outbox.cursorOf(lastEventId) : null) ?? (await this.store.outbox.endCursor()));
  }

  /** Follows `userId`'s events after `cursor` into `sink` until the client goes or the streams close. */
  async follow(userId: number, cursor: string, sink: StreamSink): Promise<void> {
    const { heartbeatMs = 15_000, pollMs = 200, sweepMs = 1000 } = this.options;
    let version = Number.NaN;
    let readAt = 0;
    let beatAt = Date.now();
    while (!this.closed && !sink.gone) {
      const now = Date.now();
      const current = this.store.version(EVENTS_COLLECTION);
      if (current !== version || now - readAt >= sweepMs) {
        version = current;
        readAt = now;
        for (;;) {
          const page = await this.read(() => this.store.outbox.eventsAfter(cursor, PAGE, userId));
          for (const placed of page) {
            if (sink.gone) return;
            await sink.event(placed);
            cursor = placed.cursor;
          }
          if (page.length < PAGE) break;
        }
      }
      if (now - beatAt >= heartbeatMs) {
        beatAt = now;
        await sink.heartbeat();
      }
      await sleep(pollMs, sink.signal);
    }
  }

  /** Ends every stream (the server is closing: its connections must not hold it open). */
  close(): void {
    this.closed = true;
  }

  // A stream outlives its request's deadline: each read gets one of its own.
  private read<R>(fn: () => Promise<R>): Promise<R> {
    return outsideStoreDeadline(() => withStoreDeadline(this.options.databaseMs, fn));
  }
}
