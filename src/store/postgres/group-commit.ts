import type { LastWords } from './connections.ts';
import type { Db } from './reads.ts';

/** What one of the store's transactions did: its result and what it wrote (for notifications and cache versions). */
export interface TxDone<R> {
  result: R;
  touched: ReadonlySet<string>;
  /** Whether users were removed, and with them everything they owned. */
  cascaded: boolean;
}

/**
 * Thrown by a transaction's work that failed after a write of its own took effect, or after a
 * statement aborted the database transaction: whatever it ran in must be rolled back, not committed.
 * Work that failed before writing anything throws its error as it is, and leaves others' writes intact.
 */
export class Spoiled extends Error {
  constructor(readonly reason: unknown) {
    super('the transaction failed after writing');
  }
}

/** How the group reaches the database (connections.ts) and tells others of a commit (change-feed.ts). */
export interface GroupDeps {
  /** One transaction, run again on a serialization failure or deadlock; errors as callers see them. `lastWords` goes with the COMMIT. */
  inTransaction<R>(work: (db: Db) => Promise<R>, lastWords: LastWords<R>): Promise<R>;
  /** One transaction, one attempt; the database's own errors. */
  inTransactionOnce<R>(work: (db: Db) => Promise<R>, lastWords: LastWords<R>): Promise<R>;
  /** The statement that tells other processes what a transaction wrote (sent with its COMMIT), or null. */
  notice(touched: ReadonlySet<string>, cascaded: boolean): string | null;
  /** Whether an error means the connection or the database is gone (then nothing is run again). */
  isUnavailable(err: unknown): boolean;
  /** A database error as callers see it. */
  mapError(err: unknown): unknown;
}

type Work = (db: Db) => Promise<TxDone<unknown>>;

interface Queued {
  work: Work;
  resolve: (done: TxDone<unknown>) => void;
  reject: (err: unknown) => void;
}

/** Transactions run together at most. */
export const MAX_GROUP = 64;

/**
 * Group commit for PostgreSQL: the transactions that arrive while `runners` others are in flight
 * wait, and then run one after another in one BEGIN…COMMIT, with one change notification and one
 * WAL flush for all of them, so a busy server sends a few statements per write instead of five
 * (BEGIN, its own statements, NOTIFY with COMMIT), each a socket write on both sides. No one waits for
 * a timer: on a quiet server every transaction runs alone, at once, exactly as before.
 *
 * Each resolves only after the COMMIT that holds it, so an acknowledged write is a committed one.
 * A transaction that fails before writing anything fails alone and the others commit; one that
 * fails after writing (Spoiled), a deadlock or a serialization failure rolls the group back and
 * each of its transactions runs again alone (retried as usual); a lost connection fails them all,
 * as it fails one. A transaction must not start another from inside its work: it may wait behind
 * its own group.
 */
export class GroupCommit {
  private readonly queue: Queued[] = [];
  private running = 0;
  /** Groups of two or more committed so far (tests and benchmarks read it). */
  groups = 0;

  constructor(
    private readonly deps: GroupDeps,
    /** Groups in flight at most, each on one pooled connection (the rest of the pool serves reads). */
    private readonly runners: number,
  ) {}

  /** Runs `work` in a transaction, alone or with others; resolves after its COMMIT. */
  run<R>(work: (db: Db) => Promise<TxDone<R>>): Promise<TxDone<R>> {
    return new Promise<TxDone<R>>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (d: TxDone<unknown>) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.runners && this.queue.length > 0) {
      this.running++;
      void this.drain().finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, MAX_GROUP);
      if (group.length === 1) await this.alone(group[0]!);
      else await this.together(group);
    }
  }

  /** One transaction with its own BEGIN, notification and COMMIT, retried as usual. */
  private async alone(q: Queued): Promise<void> {
    try {
      const done = await this.deps.inTransaction(
        (db) => unspoiled(q.work, db),
        (d) => this.deps.notice(d.touched, d.cascaded),
      );
      q.resolve(done);
    } catch (err) {
      q.reject(err);
    }
  }

  /** Several transactions in one BEGIN…COMMIT; see the class. */
  private async together(group: Queued[]): Promise<void> {
    const outcomes: ({ done: TxDone<unknown> } | { error: unknown })[] = [];
    try {
      await this.deps.inTransactionOnce(
        async (db) => {
          for (const q of group) {
            try {
              outcomes.push({ done: await q.work(db) });
            } catch (err) {
              if (err instanceof Spoiled) throw err;
              outcomes.push({ error: err });
            }
          }
        },
        () => {
          const done = outcomes.flatMap((o) => ('done' in o ? [o.done] : []));
          return this.deps.notice(new Set(done.flatMap((d) => [...d.touched])), done.some((d) => d.cascaded));
        },
      );
    } catch (err) {
      const cause = err instanceof Spoiled ? err.reason : err;
      if (this.deps.isUnavailable(cause)) {
        const mapped = this.deps.mapError(cause);
        for (const q of group) q.reject(mapped);
        return;
      }
      // Rolled back: each runs again in a transaction of its own, beside this runner's next group.
      for (const q of group) void this.alone(q);
      return;
    }
    this.groups++;
    group.forEach((q, i) => {
      const o = outcomes[i]!;
      if ('done' in o) q.resolve(o.done);
      else q.reject(this.deps.mapError(o.error));
    });
  }
}

/** Runs `work`, its Spoiled failure as the error itself: alone, its transaction is rolled back anyway. */
async function unspoiled<R>(work: (db: Db) => Promise<R>, db: Db): Promise<R> {
  try {
    return await work(db);
  } catch (err) {
    throw err instanceof Spoiled ? err.reason : err;
  }
}
