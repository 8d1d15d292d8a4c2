import type pg from 'pg';
import type { Logger } from '../../log.ts';
import { timeLeft } from '../deadline.ts';
import { codeOf, isRetryable, isTimeout, isUnavailable } from './errors.ts';
import type { LivePool } from './live-pool.ts';
import { prepared } from './prepared.ts';
import type { Db } from './reads.ts';

// Serialization failures and deadlocks: the whole transaction runs again, a few times.
const ATTEMPTS = 4;
// program_limit_exceeded: what a NOTIFY says when the notification queue is full.
const NOTIFY_QUEUE_FULL = '54000';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How the store talks to PostgreSQL: autocommit reads and transactions on the pool's proven
 * connections (live-pool.ts), every wait bounded by its own limit and by the caller's deadline
 * (deadline.ts: each statement waits only for what is left of it), a connection dropped while idle
 * replaced once, errors turned into what callers see (`mapError`: ConflictError,
 * StoreUnavailableError) and never the driver's own.
 */
export class PgConnections {
  private closed = false;

  constructor(
    private readonly pool: LivePool,
    private readonly mapError: (err: unknown) => unknown,
    private readonly log: Logger,
    /** The client's own bound on one answer (the server's statement timeout and a second). */
    private readonly answerMs: number,
  ) {}

  /** Throws once the store is closed. */
  open(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /**
   * An autocommit statement on a pooled connection. A connection the server dropped while it was
   * idle fails its next statement; such a failure is tried once more on a fresh connection (reads
   * only come here). A timeout is not tried again: the database is slow or silent, not gone, and a
   * second wait would take the request past its bound.
   */
  readonly read: Db = async (text, values) => {
    this.open();
    for (let attempt = 0; ; attempt++) {
      const client = await this.borrow();
      let query: pg.QueryConfig;
      try {
        query = this.bounded(prepared(text, values));
      } catch (err) {
        this.pool.release(client);
        throw this.mapError(err);
      }
      try {
        const result = await client.query(query);
        this.pool.release(client);
        return result as never;
      } catch (err) {
        const failed = isUnavailable(err);
        this.pool.release(client, failed ? err : undefined);
        if (attempt === 0 && failed && !isTimeout(err)) continue;
        throw this.mapError(err);
      }
    }
  };

  /**
   * Runs `work` in one transaction, again on a serialization failure or deadlock; errors as callers
   * see them. `afterCommit(result)`, a statement without parameters, follows the COMMIT in its message (see commit).
   */
  async inTransaction<R>(work: (db: Db) => Promise<R>, afterCommit?: AfterCommit<R>): Promise<R> {
    this.open();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(work, 'BEGIN', afterCommit);
      } catch (err) {
        if (attempt < ATTEMPTS && isRetryable(err)) {
          this.log.debug('PostgreSQL transaction retried', { code: codeOf(err), attempt });
          await sleep(5 * attempt + Math.random() * 20 * attempt);
          continue;
        }
        throw this.mapError(err);
      }
    }
  }

  /** Runs `work` in one transaction, once: the database's own errors, for a caller that decides what to do with them (group-commit.ts). */
  async inTransactionOnce<R>(work: (db: Db) => Promise<R>, afterCommit?: AfterCommit<R>): Promise<R> {
    this.open();
    return this.attempt(work, 'BEGIN', afterCommit);
  }

  /**
   * Runs `work` in one READ ONLY transaction at REPEATABLE READ: every statement sees the database
   * as it was at the first, whatever commits meanwhile (an export's counts and records agree). Such
   * a transaction cannot fail to serialize, so it is never retried. The idle-in-transaction bound is
   * lifted for it: between two statements an export waits on whoever reads its output.
   */
  async inSnapshot<R>(work: (db: Db) => Promise<R>): Promise<R> {
    this.open();
    try {
      return await this.attempt(async (db) => {
        await db("SET LOCAL idle_in_transaction_session_timeout = '1h'");
        return work(db);
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      throw this.mapError(err);
    }
  }

  /** Closes every connection; later calls throw. */
  async end(): Promise<void> {
    this.closed = true;
    await this.pool.end();
  }

  /** A proven pooled connection, errors as callers see them. */
  private async borrow(): Promise<pg.PoolClient> {
    try {
      return await this.pool.borrow();
    } catch (err) {
      throw this.mapError(err);
    }
  }

  /** A statement with the client's bound on its answer: its own, or what is left of the caller's deadline (throws when nothing is). */
  private bounded(query: string | pg.QueryConfig): pg.QueryConfig {
    const config = typeof query === 'string' ? { text: query } : query;
    return { ...config, query_timeout: timeLeft(this.answerMs) } as pg.QueryConfig;
  }

  /** A pooled connection inside BEGIN; a dropped idle connection is replaced once (a timed-out one is not: see read). */
  private async begin(statement: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.borrow();
      let query: pg.QueryConfig;
      try {
        query = this.bounded(statement);
      } catch (err) {
        this.pool.release(client);
        throw this.mapError(err);
      }
      try {
        await client.query(query);
        return client;
      } catch (err) {
        this.pool.release(client, err);
        if (attempt === 0 && isUnavailable(err) && !isTimeout(err)) continue;
        throw this.mapError(err);
      }
    }
  }

  /**
   * COMMIT, and `after` in the same message once it is done: a failed COMMIT skips it. A NOTIFY
   * sent inside the transaction would hold PostgreSQL's one lock on the notification queue from
   * its COMMIT's start to its end, WAL flush included, so that the commits of every process would
   * take turns; sent after, in a transaction of its own that writes nothing, it holds that lock
   * for no flush. The server runs it without waiting for this process, which may die meanwhile.
   * A COMMIT that rolled back (a transaction already failed) throws; a notification refused after
   * the COMMIT (a full queue: only a listener that stopped reading fills it) is logged, the
   * transaction stays done.
   */
  private async commit(db: Db, after: string | null): Promise<void> {
    let results: unknown;
    try {
      results = await db(after ? `COMMIT; ${after}` : 'COMMIT');
    } catch (err) {
      if (after === null || codeOf(err) !== NOTIFY_QUEUE_FULL) throw err;
      this.log.warn('PostgreSQL refused a change notification after a COMMIT: other processes may keep what they cached until the next one', { error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const first = (Array.isArray(results) ? results[0] : results) as { command?: string } | undefined;
    if (first?.command === 'ROLLBACK') throw new Error('the transaction was rolled back at its COMMIT (a statement of it had failed)');
  }

  private async attempt<R>(work: (db: Db) => Promise<R>, begin = 'BEGIN', afterCommit?: AfterCommit<R>): Promise<R> {
    const client = await this.begin(begin);
    let broken: unknown = null;
    let ended = false;
    const db: Db = async (text, values) => {
      // Work that outlived its transaction (given up at a deadline) must not reach a connection back in the pool.
      if (ended) throw new Error('the transaction is over');
      // Past the deadline nothing is sent: the connection and its transaction stay sound (a group's others go on).
      const query = this.bounded(prepared(text, values));
      try {
        return (await client.query(query)) as never;
      } catch (err) {
        if (isUnavailable(err)) broken = err;
        throw err;
      }
    };
    try {
      const result = await work(db);
      await this.commit(db, afterCommit?.(result) ?? null);
      return result;
    } catch (err) {
      ended = true;
      // Past the deadline the connection is dropped instead: the server rolls back a transaction whose session ends.
      if (!broken) await Promise.resolve().then(() => client.query(this.bounded('ROLLBACK'))).catch((e: unknown) => (broken = e));
      throw err;
    } finally {
      ended = true;
      this.pool.release(client, broken);
    }
  }
}

/** A statement (SQL text, no parameters) to run right after a transaction's COMMIT, in its message, given its result; null for none. */
export type AfterCommit<R> = (result: R) => string | null;

