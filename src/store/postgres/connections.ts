import type pg from 'pg';
import type { Logger } from '../../log.ts';
import { codeOf, isRetryable, isTimeout, isUnavailable } from './errors.ts';
import { prepared } from './prepared.ts';
import type { Db } from './reads.ts';

// Serialization failures and deadlocks: the whole transaction runs again, a few times.
const ATTEMPTS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How the store talks to PostgreSQL: autocommit reads and transactions on the pool, every wait
 * bounded, a connection dropped while idle replaced once, errors turned into what callers see
 * (`mapError`: ConflictError, StoreUnavailableError) and never the driver's own.
 */
export class PgConnections {
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly mapError: (err: unknown) => unknown,
    private readonly log: Logger,
  ) {}

  /** Throws once the store is closed. */
  open(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /**
   * An autocommit statement on any pooled connection. A connection the server dropped while it was
   * idle fails its next statement; such a failure is tried once more on a fresh connection (reads
   * only come here). A timeout is not tried again: the database is slow or silent, not gone, and a
   * second wait would take the request past its bound (query timeout, then a connect timeout).
   */
  readonly read: Db = async (text, values) => {
    this.open();
    try {
      return (await this.pool.query(prepared(text, values) as never)) as never;
    } catch (err) {
      if (!isUnavailable(err) || isTimeout(err)) throw this.mapError(err);
      try {
        return (await this.pool.query(prepared(text, values) as never)) as never;
      } catch (again) {
        throw this.mapError(again);
      }
    }
  };

  /**
   * Runs `work` in one transaction, again on a serialization failure or deadlock; errors as callers
   * see them. `lastWords(result)`, a statement without parameters, goes in one round trip with the COMMIT.
   */
  async inTransaction<R>(work: (db: Db) => Promise<R>, lastWords?: LastWords<R>): Promise<R> {
    this.open();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(work, 'BEGIN', lastWords);
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
  async inTransactionOnce<R>(work: (db: Db) => Promise<R>, lastWords?: LastWords<R>): Promise<R> {
    this.open();
    return this.attempt(work, 'BEGIN', lastWords);
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

  /** A pooled connection inside BEGIN; a dropped idle connection is replaced once (a timed-out one is not: see read). */
  private async begin(statement: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (err) {
        throw this.mapError(err);
      }
      // Checked out, a client's connection errors have no other listener: without one they would crash the process.
      client.on('error', onClientError);
      try {
        await client.query(statement);
        return client;
      } catch (err) {
        release(client, err);
        if (attempt === 0 && isUnavailable(err) && !isTimeout(err)) continue;
        throw this.mapError(err);
      }
    }
  }

  private async attempt<R>(work: (db: Db) => Promise<R>, begin = 'BEGIN', lastWords?: LastWords<R>): Promise<R> {
    const client = await this.begin(begin);
    let broken: unknown = null;
    let ended = false;
    const db: Db = async (text, values) => {
      // Work that outlived its transaction (given up at a deadline) must not reach a connection back in the pool.
      if (ended) throw new Error('the transaction is over');
      try {
        return (await client.query(prepared(text, values) as never)) as never;
      } catch (err) {
        if (isUnavailable(err)) broken = err;
        throw err;
      }
    };
    try {
      const result = await work(db);
      const last = lastWords?.(result);
      // A failing last statement skips the COMMIT after it: the transaction is then rolled back below.
      await db(last ? `${last}; COMMIT` : 'COMMIT');
      return result;
    } catch (err) {
      ended = true;
      if (!broken) await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      throw err;
    } finally {
      ended = true;
      release(client, broken);
    }
  }
}

/** A statement (SQL text, no parameters) to run just before a transaction's COMMIT, given its result; null for none. */
export type LastWords<R> = (result: R) => string | null;

// A checked-out connection that breaks is reported by the statement that fails; this only keeps the event from crashing the process.
function onClientError(): void {}

/** Returns a client to the pool, or drops it when its connection failed. */
function release(client: pg.PoolClient, err: unknown): void {
  client.removeListener('error', onClientError);
  client.release(err ? (err instanceof Error ? err : true) : undefined);
}
