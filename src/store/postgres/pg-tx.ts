import { ConflictError, EVENTS_COLLECTION, FILES_COLLECTION, StoreUnavailableError } from '../store.ts';
import type { CountsDelta, Found, ListQuery, NewEvent, RecordChange, StoredRecord, Tx, Where } from '../store.ts';
import { putFileContentIn } from './file-contents.ts';
import { addCountsIn, dropCountsIn } from './pg-counters.ts';
import { countRecords, findRecords, firstDueRecord, getRecord, getRecords, lookupRecord, lookupRecords } from './reads.ts';
import type { Db } from './reads.ts';
import { STATS } from './tables.ts';
import type { TablePlan } from './tables.ts';
import { insertNeedsSavepoint, insertRecord, insertRecords, putRecords, removeRecord, removeWhere, updateRecord, updateRecords } from './writes.ts';

/**
 * A transaction on one pooled client. Its operations run one at a time (a savepoint must not
 * interleave with another statement). A write that a unique index may refuse runs under a
 * savepoint, so its ConflictError leaves the transaction usable, as in the file store; any other
 * failure aborts the transaction in PostgreSQL, so it is kept and rethrown at commit instead of
 * letting a COMMIT quietly turn into a ROLLBACK.
 */
export class PgTx implements Tx {
  /** Collections written, for the store's version counters. */
  readonly touched = new Set<string>();
  /** Whether users were removed: their records and counts went too (ON DELETE CASCADE). */
  usersRemoved = false;
  /** The first error that aborted the transaction, if any. */
  failed: unknown = null;
  /** Whether a write took effect (a failure after it must roll the transaction back, not commit around it). */
  wrote = false;
  /** The events appended, in order: stored and placed as the last statement before the COMMIT (placeEventsIn). */
  readonly appended: NewEvent[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private over = false;
  private closing = false;
  /** Statements that reached the database (a deadline that had passed sends none). */
  private sent = 0;
  private readonly db: Db;

  constructor(
    db: Db,
    private readonly plan: (collection: string) => TablePlan,
    /** Turns a PostgreSQL error into what callers see (ConflictError, StoreUnavailableError). */
    private readonly mapError: (err: unknown) => unknown,
  ) {
    // The connection's own errors are the driver's: a StoreUnavailableError from it is a deadline that sent nothing.
    this.db = (async (text: string, values?: unknown[]) => {
      try {
        const result = await db(text, values);
        this.sent++;
        return result;
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) this.sent++;
        throw err;
      }
    }) as Db;
  }

  /**
   * Ends the transaction's use: what was asked before runs, anything asked from now on (an
   * un-awaited operation of a `fn` that already failed or returned) fails instead of running
   * outside it, or inside a group commit's transaction after its own was given up.
   */
  async end(): Promise<void> {
    this.closing = true;
    await this.queue.catch(() => {});
    this.over = true;
  }

  private run<R>(op: () => Promise<R>, guarded = false): Promise<R> {
    const late = this.closing;
    const next = this.queue.then(async () => {
      if (this.over || late) throw new Error('the transaction is over');
      if (this.failed) throw this.failed;
      if (!guarded) {
        const sent = this.sent;
        try {
          return await op();
        } catch (err) {
          // Our own ConflictError (an insert that did nothing) aborted nothing in PostgreSQL, nor did a deadline that sent nothing.
          if (err instanceof ConflictError || (err instanceof StoreUnavailableError && this.sent === sent)) throw err;
          this.failed = this.mapError(err);
          throw this.failed;
        }
      }
      await this.db('SAVEPOINT store_write');
      try {
        const result = await op();
        await this.db('RELEASE SAVEPOINT store_write');
        return result;
      } catch (err) {
        const mapped = this.mapError(err);
        try {
          await this.db('ROLLBACK TO SAVEPOINT store_write');
        } catch {
          this.failed = mapped;
        }
        throw mapped;
      }
    });
    this.queue = next.catch(() => {});
    return next;
  }

  private write<R>(collection: string, op: (plan: TablePlan) => Promise<R>, guarded = (plan: TablePlan) => plan.hasUnique): Promise<R> {
    const plan = this.plan(collection);
    this.touched.add(collection);
    return this.run(() => this.written(op(plan)), guarded(plan));
  }

  /** `write`'s result, noting that it changed something (an update or removal that found nothing did not). */
  private async written<R>(write: Promise<R>): Promise<R> {
    const result = await write;
    if (result !== undefined && result !== null && result !== false && result !== 0) this.wrote = true;
    return result;
  }

  /** One record by id, as this transaction sees it. */
  get<T extends StoredRecord = StoredRecord>(collection: string, id: number): Promise<T | undefined> {
    return this.run(() => getRecord<T>(this.db, this.plan(collection), id));
  }

  /** One record by id, locked FOR UPDATE until the transaction ends. */
  getForUpdate<T extends StoredRecord = StoredRecord>(collection: string, id: number): Promise<T | undefined> {
    return this.run(() => getRecord<T>(this.db, this.plan(collection), id, true));
  }

  /** The records of these ids that exist, by id, locked FOR UPDATE (in id order) until the transaction ends. */
  getManyForUpdate<T extends StoredRecord = StoredRecord>(collection: string, ids: readonly number[]): Promise<Map<number, T>> {
    return this.run(() => getRecords<T>(this.db, this.plan(collection), ids, true));
  }

  /** The first due record of a queue, locked; rows other transactions hold are skipped. */
  takeDue<T extends StoredRecord = StoredRecord>(collection: string, index: string, upTo: string): Promise<T | undefined> {
    return this.run(() => firstDueRecord<T>(this.db, this.plan(collection), index, upTo));
  }

  /** The record whose index key is `key`. */
  lookup<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): Promise<T | undefined> {
    return this.run(() => lookupRecord<T>(this.db, this.plan(collection), index, key));
  }

  /** The records of these ids that exist, by id. */
  getMany<T extends StoredRecord = StoredRecord>(collection: string, ids: readonly number[]): Promise<Map<number, T>> {
    return this.run(() => getRecords<T>(this.db, this.plan(collection), ids));
  }

  /** The records of these index keys, by key. */
  lookupMany<T extends StoredRecord = StoredRecord>(collection: string, index: string, keys: readonly string[]): Promise<Map<string, T>> {
    return this.run(() => lookupRecords<T>(this.db, this.plan(collection), index, keys));
  }

  /** A page of what a query matches. */
  find<T extends StoredRecord = StoredRecord>(collection: string, query: ListQuery = {}): Promise<Found<T>> {
    return this.run(() => findRecords<T>(this.db, this.plan(collection), query));
  }

  /** How many records match. */
  count(collection: string, where: Where = {}): Promise<number> {
    return this.run(() => countRecords(this.db, this.plan(collection), where));
  }

  /** Adds a record with the collection's next id. */
  insert<T extends object>(collection: string, data: T): Promise<T & { id: number }> {
    return this.write(collection, (plan) => insertRecord(this.db, plan, data), (plan) => insertNeedsSavepoint(plan, data));
  }

  /**
   * Adds records in order: one statement under one savepoint when they can go together, then alone
   * (each under a savepoint of its own) those it did not store, and all of them when a trigger
   * refused the statement, so each refusal is told apart and leaves the others stored. The
   * statement first goes as a plain insert, which a key another row holds fails; it then goes
   * again skipping such records (insertRecords' `skipTaken`): a clash costs a statement, every
   * batch without one saves the probes of ON CONFLICT.
   */
  async insertMany<T extends object>(collection: string, data: readonly T[]): Promise<((T & { id: number }) | ConflictError)[]> {
    const plan = this.plan(collection);
    this.touched.add(collection);
    let together: ((T & { id: number }) | null)[] | null = null;
    for (const skipTaken of data.length > 1 ? (plan.hasUnique ? [false, true] : [true]) : []) {
      try {
        together = await this.run(() => this.written(insertRecords(this.db, plan, data, skipTaken)), plan.hasUnique);
        break;
      } catch (err) {
        // The plain insert's clash may be one no index of the map names (the primary key's, against a record
        // put under its own id meanwhile): ON CONFLICT, which skipped those too, has the next try.
        if (!(err instanceof ConflictError) && !(!skipTaken && (err as { code?: unknown }).code === '23505')) throw err;
      }
    }
    together ??= data.map(() => null);
    const out: ((T & { id: number }) | ConflictError)[] = [];
    for (const [i, stored] of together.entries()) {
      if (stored) {
        out.push(stored);
        continue;
      }
      try {
        out.push(await this.run(() => this.written(insertRecord(this.db, plan, data[i]!)), plan.hasUnique));
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        out.push(err);
      }
    }
    return out;
  }

  /** Replaces fields of a record; undefined when it is missing. */
  update<T extends StoredRecord>(collection: string, id: number, patch: Partial<T>): Promise<T | undefined> {
    return this.write(collection, (plan) => updateRecord<T>(this.db, plan, id, patch));
  }

  /** Replaces fields of several records: a locked read of them all, then one UPDATE. */
  updateMany<T extends StoredRecord>(collection: string, changes: readonly RecordChange<T>[]): Promise<(T | undefined)[]> {
    if (changes.length === 0) return Promise.resolve([]);
    return this.write(collection, async (plan) => {
      const out = await updateRecords<T>(this.db, plan, changes);
      // What `written` looks at: whether anything was changed.
      return out.some((r) => r !== undefined) ? out : undefined;
    }).then((out) => out ?? changes.map(() => undefined));
  }

  /** Removes a record (a user: with everything it owns, by cascade); false when it was missing. */
  remove(collection: string, id: number): Promise<boolean> {
    if (collection === 'users') this.usersRemoved = true;
    return this.write(collection, (plan) => removeRecord(this.db, plan, id));
  }

  /** Stores a record under its own id; later ids continue after it. */
  put<T extends StoredRecord>(collection: string, record: T): Promise<T> {
    return this.write(collection, async (plan) => {
      await putRecords(this.db, plan, [record]);
      return record;
    });
  }

  /** Removes every record `where` matches; how many. */
  removeWhere(collection: string, where: Where): Promise<number> {
    if (collection === 'users') this.usersRemoved = true;
    return this.write(collection, (plan) => removeWhere(this.db, plan, where));
  }

  /** Removes a subject's counters. */
  dropCounts(subject: string): Promise<void> {
    this.touched.add(STATS);
    return this.run(() => this.written(dropCountsIn(this.db, subject)));
  }

  /** Adds counts inside this transaction (imports). */
  addCounts(deltas: readonly CountsDelta[], maxLabels: number): Promise<void> {
    this.touched.add(STATS);
    return this.run(() => this.written(addCountsIn(this.db, deltas, maxLabels)));
  }

  /** Appends events: kept until the transaction's last statement, which stores them all (see `appended`). */
  async appendEvents(events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    this.touched.add(EVENTS_COLLECTION);
    await this.run(async () => {
      this.appended.push(...events);
    });
  }

  /** Keeps a file's bytes in this transaction. */
  putFileContent(fileId: number, bytes: Uint8Array): Promise<void> {
    return this.write(FILES_COLLECTION, () => putFileContentIn(this.db, fileId, bytes), () => false);
  }
}
