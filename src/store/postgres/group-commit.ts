import { outOfTime, outsideStoreDeadline, storeDeadline, withStoreDeadlineAt } from '../deadline.ts';
import type { AfterCommit } from './connections.ts';
import type { NewEvent } from '../store.ts';
import type { Db } from './reads.ts';

/** What one of the store's transactions did: its result and what it wrote (for notifications and cache versions). */
export interface TxDone<R> {
  result: R;
  touched: ReadonlySet<string>;
  /** Whether users were removed, and with them everything they owned. */
  cascaded: boolean;
  /** The events it appended, stored by its COMMIT's last statement (`GroupDeps.placeEvents`). */
  events?: readonly NewEvent[];
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
  /** One transaction, run again on a serialization failure or deadlock; errors as callers see them. `afterCommit` goes with the COMMIT, after it. */
  inTransaction<R>(work: (db: Db) => Promise<R>, afterCommit: AfterCommit<R>): Promise<R>;
  /** One transaction, one attempt; the database's own errors. */
  inTransactionOnce<R>(work: (db: Db) => Promise<R>, afterCommit: AfterCommit<R>): Promise<R>;
  /** Stores the events of the transactions about to commit, in their order: the last statement before the COMMIT. */
  placeEvents(db: Db, events: readonly NewEvent[]): Promise<void>;
  /** The statement that tells other processes what a transaction wrote (sent with its COMMIT, after it), or null. */
  notice(touched: ReadonlySet<string>, cascaded: boolean): string | null;
  /** Whether an error means the database cannot be used now (a wait that ran out included). */
  isUnavailable(err: unknown): boolean;
  /** Whether an error means the connection or the database is gone (not merely a wait that ran out). */
  isLost(err: unknown): boolean;
  /** A database error as callers see it. */
  mapError(err: unknown): unknown;
}

type Work = (db: Db) => Promise<TxDone<unknown>>;

interface Queued {
  work: Work;
  resolve: (done: TxDone<unknown>) => void;
  reject: (err: unknown) => void;
  /** Taken back from a group that was rolled back: runs in a transaction of its own. */
  alone?: boolean;
  /** The caller's deadline (deadline.ts), if it has one: past it, it leaves the queue unrun, and its group's statements wait no longer. */
  deadline?: number;
  /** Ends its wait in the queue at the deadline. */
  timer?: NodeJS.Timeout;
}

/**
 * Transactions run together at most: each may hold a savepoint's subtransaction, and PostgreSQL
 * keeps 64 of them per transaction in shared memory before every other session's snapshots slow down.
 */
export const MAX_GROUP = 32;

/** A member of a group that has not finished after this long gives the group up (its others run alone). */
export const MEMBER_DEADLINE_MS = 10_000;

/**
 * Group commit for PostgreSQL: the transactions that arrive while `runners` others are in flight
 * wait, and then run one after another in one BEGIN…COMMIT, with one change notification and one
 * WAL flush for all of them, so a busy server sends a few statements per write instead of five
 * (BEGIN, its own statements, COMMIT with NOTIFY), each a socket write on both sides. No one waits for
 * a timer: on a quiet server every transaction runs alone, at once, exactly as before.
 *
 * Each resolves only after the COMMIT that holds it, so an acknowledged write is a committed one.
 * A transaction that fails before writing anything fails alone and the others commit. A group is
 * rolled back, and each of its transactions then runs again on its own (retried as usual), when
 * one fails after writing (Spoiled), on a deadlock or serialization failure, on a wait that ran
 * out (a statement or lock timeout: only the one that waited fails again), and when a member takes
 * longer than MEMBER_DEADLINE_MS. A lost connection fails them all, as it fails one, and so does
 * one lost while the COMMIT is under way, whose outcome is unknown (never run twice). A transaction
 * must not start another from inside its work: it may wait behind its own group.
 *
 * A caller's deadline (deadline.ts) holds here too: one still waiting for a runner when it passes
 * leaves the queue and fails (StoreUnavailableError, nothing run). In a group, each member's
 * statements wait until its own deadline only: one that would start past it fails that member
 * alone (its transaction untouched, the group goes on), and a member that returns past it after
 * writing has the group rolled back and its others run alone; the group's BEGIN and COMMIT wait
 * until the latest deadline of its members, so no member's deadline fails the others' COMMIT.
 * The runners themselves belong to no caller.
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
    private readonly deadlineMs = MEMBER_DEADLINE_MS,
  ) {}

  /** Runs `work` in a transaction, alone or with others; resolves after its COMMIT. */
  run<R>(work: (db: Db) => Promise<TxDone<R>>): Promise<TxDone<R>> {
    return new Promise<TxDone<R>>((resolve, reject) => {
      this.enqueue({ work, resolve: resolve as (d: TxDone<unknown>) => void, reject, deadline: storeDeadline() });
      outsideStoreDeadline(() => this.pump());
    });
  }

  /** Puts `items` at the end of the line, each leaving it unrun at its deadline. */
  private enqueue(...items: Queued[]): void {
    this.queue.push(...items);
    for (const q of items) this.arm(q);
  }

  private arm(q: Queued): void {
    if (q.deadline === undefined) return;
    q.timer = setTimeout(() => {
      const at = this.queue.indexOf(q);
      if (at < 0) return;
      this.queue.splice(at, 1);
      q.reject(outOfTime());
    }, Math.max(0, q.deadline - Date.now()));
  }

  /** Takes the first `n` in line. */
  private take(n: number): Queued[] {
    const taken = this.queue.splice(0, n);
    for (const q of taken) clearTimeout(q.timer);
    return taken;
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
      if (this.queue[0]!.alone) {
        await this.alone(this.take(1)[0]!);
        continue;
      }
      const end = this.queue.findIndex((q) => q.alone);
      const group = this.take(Math.min(MAX_GROUP, end === -1 ? this.queue.length : end));
      if (group.length === 1) await this.alone(group[0]!);
      else await this.together(group);
    }
  }

  /** One transaction with its own BEGIN, notification and COMMIT, retried as usual. */
  private async alone(q: Queued): Promise<void> {
    try {
      const done = await withStoreDeadlineAt(q.deadline, () =>
        this.deps.inTransaction(
          async (db) => {
            const done = await unspoiled(q.work, db);
            await this.deps.placeEvents(db, done.events ?? []);
            return done;
          },
          (d) => this.deps.notice(d.touched, d.cascaded),
        ),
      );
      q.resolve(done);
    } catch (err) {
      q.reject(err);
    }
  }

  /** Several transactions in one BEGIN…COMMIT; see the class. */
  private async together(group: Queued[]): Promise<void> {
    const outcomes: ({ done: TxDone<unknown> } | { error: unknown })[] = [];
    let committing = false;
    try {
      await withStoreDeadlineAt(groupDeadline(group), () => this.deps.inTransactionOnce(
        async (db) => {
          for (const q of group) {
            try {
              outcomes.push({ done: await withStoreDeadlineAt(q.deadline, () => ownPart(q, db, this.deadlineMs)) });
            } catch (err) {
              if (err instanceof Spoiled) throw err;
              outcomes.push({ error: err });
            }
          }
          await this.deps.placeEvents(db, outcomes.flatMap((o) => ('done' in o ? (o.done.events ?? []) : [])));
        },
        () => {
          committing = true;
          const done = outcomes.flatMap((o) => ('done' in o ? [o.done] : []));
          return this.deps.notice(new Set(done.flatMap((d) => [...d.touched])), done.some((d) => d.cascaded));
        },
      ));
    } catch (err) {
      const cause = err instanceof Spoiled ? err.reason : err;
      if (committing ? this.deps.isUnavailable(cause) : this.deps.isLost(cause)) {
        const mapped = this.deps.mapError(cause);
        for (const q of group) q.reject(mapped);
        return;
      }
      // Rolled back: each runs again in a transaction of its own, first in line, through the runners.
      for (const q of group) q.alone = true;
      this.queue.unshift(...group);
      for (const q of group) this.arm(q);
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

/**
 * The deadline of a group's own statements (BEGIN, COMMIT): the latest of its members', none when
 * one has none. A member's deadline bounds its own statements only: one that ran out must not
 * time out the COMMIT of the others, whose outcome would then be unknown to all of them.
 */
function groupDeadline(group: readonly Queued[]): number | undefined {
  let latest = -Infinity;
  for (const q of group) {
    if (q.deadline === undefined) return undefined;
    latest = Math.max(latest, q.deadline);
  }
  return latest;
}

/**
 * A member's work in its group, under its own deadline: a statement it would start past it fails
 * (outOfTime), and so does work that returns past it, as its COMMIT alone would; Spoiled when it
 * wrote, since that must go (the group is rolled back and its others run alone).
 */
async function ownPart(q: Queued, db: Db, ms: number): Promise<TxDone<unknown>> {
  const done = await within(q.work(db), ms);
  if (q.deadline !== undefined && Date.now() >= q.deadline) throw done.touched.size > 0 ? new Spoiled(outOfTime()) : outOfTime();
  return done;
}

/** `work`, or Spoiled once it has taken `ms`: the group it holds up is given up. */
async function within<R>(work: Promise<R>, ms: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Spoiled(new Error(`a transaction of the group took more than ${ms} ms`))), ms)))]);
  } finally {
    clearTimeout(timer);
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
