import type pg from 'pg';
import type { Logger } from '../../log.ts';
import { silentLogger } from '../../log.ts';
import { EVENTS_COLLECTION, NOT_AT_HAND } from '../store.ts';
import type { CollectionSchema, CountsDelta, ReplicaState, DayCounts, Found, LedgerState, ListQuery, NewEvent, RealtimeCounts, RealtimeDelta, ReplaceOptions, SharedValues, SightingCheck, SnapshotView, Store, StoredRecord, Tx, Where, WindowCounter } from '../store.ts';
import { honourStoreDeadlines } from '../deadline.ts';
import { PgOutbox, placeEventsIn } from './pg-outbox.ts';
import { readCatalog } from './catalog.ts';
import { ChangeFeed } from './change-feed.ts';
import { readFileContentIn } from './file-contents.ts';
import type { ConstraintMap } from './errors.ts';
import { describeUrl, isLost, isRetryable, isUnavailable, storeError } from './errors.ts';
import { GroupCommit, Spoiled } from './group-commit.ts';
import type { TxDone } from './group-commit.ts';
import { loadLedgerIn, saveLedgerIn } from './ledger.ts';
import { foldKeptCounts, KeptCountFolds } from './kept-counts.ts';
import { CACHED_LOOKUPS, LookupCache } from './lookup-cache.ts';
import { migrateDatabase } from './migrate.ts';
import { addCountsIn, claimBatchIn, countedDaysIn, countTotalsIn, pruneBatchesIn } from './pg-counters.ts';
import { PgConnections } from './connections.ts';
import { LivePool } from './live-pool.ts';
import { agreeIn, claimSightingsIn, pruneSightingsIn } from './pg-sightings.ts';
import { addRealtimeIn, pruneRealtimeIn, realtimeCountsIn } from './pg-realtime.ts';
import { pruneDaysIn, pruneDimensionsIn } from './pg-retention.ts';
import { PgTx } from './pg-tx.ts';
import { answerTimeout, checkSchemaName, createPool } from './pool.ts';
import type { ConnectionSettings } from './pool.ts';
import { PgRateWindows } from './rate-windows.ts';
import { ReplicaSet } from './replicas.ts';
import { countRecords, findRecords, getRecord, getRecords, lookupRecord, lookupRecords, scanRecords } from './reads.ts';
import type { Db } from './reads.ts';
import { mismatchOf, planTables, STATS, withCounted } from './tables.ts';
import type { TablePlan } from './tables.ts';
import { replaceAllIn } from './replace-all.ts';

/** How to open a PostgreSQL store. */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  collections: readonly CollectionSchema[];
  log?: Logger;
  /** The PostgreSQL schema of the tables (default public): tests use a fresh one each. */
  schema?: string;
  /** Shown in pg_stat_activity (default shortlink-server, with the schema when not public). */
  applicationName?: string;
  /** Bound on opening a connection (default 2000 ms). */
  connectTimeoutMs?: number;
  /** Bound on one statement (default 5000 ms: DATABASE_TIMEOUT); the client gives up a second later. A request's deadline (deadline.ts) may end a wait sooner. */
  statementTimeoutMs?: number;
  /**
   * Whether to hear other processes' writes (default true: one listening connection of its own).
   * Only a store that is known to be the one process on its schema (an in-process test) may say
   * false and save that connection; its writes still notify the others.
   */
  listen?: boolean;
  /** Transaction groups in flight at once (group-commit.ts; default 2, 1 on a pool of 2 or less). */
  groupRunners?: number;
  /** Streaming replicas of the database (DATABASE_READ_URL): plain reads go there when one is known to hold what they must see (replicas.ts). */
  readUrls?: readonly string[];
  /** A replica further behind than this is skipped (default 1000 ms: DATABASE_READ_MAX_LAG). */
  readMaxLagMs?: number;
}

/**
 * Groups in flight by default. Two: one group runs while the next gathers, so a busy process's
 * transactions share commits (measured on 2 cores, durable creates: 1 runner 1,764/s, 2 runners
 * 2,962/s, 4 runners 2,103/s; more runners make smaller groups and more statements). Each worker
 * process has its own two, and the rest of the pool serves reads.
 */
const defaultRunners = (poolSize: number) => Math.max(1, Math.min(2, poolSize - 1));

// Old counter batch ids are forgotten at most this often, by each process.
const PRUNE_EVERY_MS = 60_000;

/**
 * The PostgreSQL backend: every read is a query (nothing held in memory), every transaction one
 * BEGIN…COMMIT on one pooled connection at READ COMMITTED, uniqueness kept by unique indexes
 * (ConflictError), serialization failures and deadlocks retried. A database that is down answers
 * StoreUnavailableError; once it is back, the pool opens fresh connections by itself.
 */
export class PostgresStore implements Store {
  readonly backend = 'postgres' as const;
  /** The alias's unique index per table, and triggers between links and files (migrations 005, 009). */
  readonly refusesShortAliasClashes = true;
  private readonly versions = new Map<string, number>();
  private changes = 0;
  private closers: (() => Promise<void> | void)[] = [];
  private closed = false;
  private readonly db: PgConnections;
  /** The redirect's lookups kept in memory (what, how invalidated and how many: lookup-cache.ts). */
  private readonly lookups = new Map<string, LookupCache>();
  /** When this process last forgot old counter batch ids. */
  private prunedAt = 0;
  /** The first minute of the realtime window this process kept when it last forgot older ones. */
  private realtimeKeptFrom = -Infinity;
  /** Other processes' writes, heard through LISTEN/NOTIFY: they bump the versions as this process's own do. */
  private readonly feed: ChangeFeed;
  /** Rate-limit windows in the UNLOGGED rate_windows table, shared by every server on the schema. */
  readonly windows: WindowCounter;
  /** Transactions that arrive together commit together. */
  readonly group: GroupCommit;
  /** The kept counts of the tables this process writes, folded a second after (kept-counts.ts). */
  private readonly folds: KeptCountFolds;
  /** The event outbox (pg-outbox.ts). */
  readonly outbox: PgOutbox;
  /** Where plain reads go when there are replicas (replicas.ts); null without any. */
  private readonly replicaSet: ReplicaSet | null;

  private constructor(
    pool: LivePool,
    private readonly plans: ReadonlyMap<string, TablePlan>,
    private readonly constraints: ConstraintMap,
    /** host:port/database, for messages. */
    private readonly where: string,
    log: Logger,
    settings: ConnectionSettings,
    groupRunners: number,
    replicas: { urls: readonly string[]; poolSize: number; maxLagMs: number },
  ) {
    this.db = new PgConnections(pool, (err) => this.mapError(err), log, answerTimeout(settings));
    this.group = new GroupCommit(
      {
        inTransaction: (work, afterCommit) => this.db.inTransaction(work, afterCommit),
        inTransactionOnce: (work, afterCommit) => this.db.inTransactionOnce(work, afterCommit),
        placeEvents: async (db, events) => {
          await placeEventsIn(db, this.plan(EVENTS_COLLECTION), events);
        },
        notice: (touched, cascaded) => this.feed.notifySql(cascaded ? 'all' : [...touched]),
        isUnavailable,
        isLost,
        mapError: (err) => this.mapError(err),
      },
      groupRunners,
    );
    this.feed = new ChangeFeed(settings, (changed) => this.bump(changed === 'all' ? this.plans.keys() : changed.filter((c) => this.plans.has(c))), log);
    this.windows = new PgRateWindows(this.db.read);
    this.folds = new KeptCountFolds((tables) => foldKeptCounts(this.db.read, tables), log);
    this.outbox = new PgOutbox({
      read: this.db.read,
      inTransaction: (work) => {
        this.db.open();
        return this.db.inTransaction(work);
      },
      withTx: async (db, fn) => {
        const done = await this.runTx(db, fn);
        await placeEventsIn(db, this.plan(EVENTS_COLLECTION), done.events ?? []);
        return { result: done.result, touched: done.touched };
      },
      publishIn: (db, touched) => this.feed.publishIn(db, touched),
      wrote: (touched) => {
        this.bump(touched);
        this.folds.wrote(this.countedTables(touched));
      },
    });
    this.replicaSet = replicas.urls.length > 0 ? new ReplicaSet(replicas.urls, settings, replicas.poolSize, this.db.read, () => this.versions, replicas.maxLagMs, log) : null;
    for (const [collection, { maxEntries }] of Object.entries(CACHED_LOOKUPS)) {
      if (plans.has(collection)) this.lookups.set(collection, new LookupCache(maxEntries, () => this.version(collection)));
    }
  }

  /**
   * Opens the store: migrates the schema (once, whoever starts first), checks that it has a table
   * and column for every collection and index of `collections`, and keeps a pool. Throws
   * StoreUnavailableError (naming host:port/database, never the password) when the database cannot be reached.
   */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    // Its waits read the callers' deadlines (DATABASE_TIMEOUT), which the process carries from now on.
    honourStoreDeadlines();
    const log = options.log ?? silentLogger;
    const schema = checkSchemaName(options.schema ?? 'public');
    const settings: ConnectionSettings = {
      url: options.url,
      schema,
      applicationName: options.applicationName ?? (schema === 'public' ? 'shortlink-server' : `shortlink-server/${schema}`),
      connectTimeoutMs: options.connectTimeoutMs ?? 2000,
      statementTimeoutMs: options.statementTimeoutMs ?? 5000,
    };
    const where = describeUrl(options.url);
    const planned = planTables(options.collections);
    const migrated = await migrateDatabase(settings);
    if (migrated.applied.length > 0) log.info('PostgreSQL schema migrated', { schema, from: migrated.from, to: migrated.to, applied: migrated.applied });
    const pool = createPool(settings, options.poolSize ?? 10, log);
    try {
      const db: Db = (text, values) => pool.query(text, values) as never;
      const { facts, constraints } = await readCatalog(db, planned);
      const plans = withCounted(planned, facts);
      const mismatch = mismatchOf(plans, facts);
      if (mismatch) throw new Error(`The database schema does not fit this server: ${mismatch}.`);
      const replicas = { urls: options.readUrls ?? [], poolSize: options.poolSize ?? 10, maxLagMs: options.readMaxLagMs ?? 1000 };
      const store = new PostgresStore(new LivePool(pool, settings.connectTimeoutMs), plans, constraints, where, log, settings, options.groupRunners ?? defaultRunners(options.poolSize ?? 10), replicas);
      if (options.listen !== false) await store.feed.start();
      // The versions the replicas are compared with count from here (writes before the feed listened are all in the first round).
      await store.replicaSet?.start();
      // Counts left scattered by another process (a seed, an import, a crash before its fold).
      store.folds.wrote(store.countedTables(store.plans.keys()));
      return store;
    } catch (err) {
      await pool.end().catch(() => {});
      throw storeError(err, where, new Map());
    }
  }

  /**
   * Where a plain read of `collection` goes: a replica known to hold the collection's current
   * version (every write this process made or heard of), else the primary (replicas.ts).
   */
  private reader(collection: string): Db {
    return this.replicaSet ? this.replicaSet.reader([collection]) : this.db.read;
  }

  /** The read replicas as this process last found them (none without DATABASE_READ_URL). */
  replicas(): ReplicaState[] {
    return this.replicaSet?.states() ?? [];
  }

  /** Reads the primary answered that a replica could have (no replica fit): for tests. */
  get primaryReads(): number {
    return this.replicaSet?.primaryReads ?? 0;
  }

  /** Runs one round of the replicas' check now (tests; a timer runs them every REPLICA_CHECK_MS). */
  async checkReplicas(): Promise<void> {
    await this.replicaSet?.check();
  }

  private plan(collection: string): TablePlan {
    const plan = this.plans.get(collection);
    if (!plan) throw new Error(`unknown collection ${collection}`);
    return plan;
  }

  private mapError(err: unknown): unknown {
    return storeError(err, this.where, this.constraints);
  }

  /** Counts a committed change of `collections` (here or elsewhere); removing users cascades, so it changes everything they own. */
  private bump(collections: Iterable<string>, cascaded = false): void {
    const touched = new Set(collections);
    if (cascaded) for (const name of this.plans.keys()) touched.add(name);
    for (const name of touched) this.versions.set(name, (this.versions.get(name) ?? 0) + 1);
    if (touched.size > 0) this.changes++;
  }

  /** The tables of these collections whose counts are kept. */
  private countedTables(collections: Iterable<string>): string[] {
    return [...collections].filter((c) => this.plans.get(c)?.counted);
  }

  /** One record by id. */
  async get<T extends StoredRecord = StoredRecord>(collection: string, id: number): Promise<T | undefined> {
    return getRecord<T>(this.reader(collection), this.plan(collection), id);
  }

  /** The record whose index key is `key` (a plain index: the highest id with it). */
  async lookup<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): Promise<T | undefined> {
    const cache = CACHED_LOOKUPS[collection]?.index === index ? this.lookups.get(collection) : undefined;
    if (!cache) return lookupRecord<T>(this.reader(collection), this.plan(collection), index, key);
    return (await cache.through(key, () => lookupRecord(this.reader(collection), this.plan(collection), index, key))) as T | undefined;
  }

  /** The records of these ids that exist, by id, in one statement. */
  async getMany<T extends StoredRecord = StoredRecord>(collection: string, ids: readonly number[]): Promise<Map<number, T>> {
    return getRecords<T>(this.reader(collection), this.plan(collection), ids);
  }

  /** The records of these index keys, by key, in one statement (the lookup cache is neither read nor filled). */
  async lookupMany<T extends StoredRecord = StoredRecord>(collection: string, index: string, keys: readonly string[]): Promise<Map<string, T>> {
    return lookupRecords<T>(this.reader(collection), this.plan(collection), index, keys);
  }

  /** The record whose index key is `key` when the lookup cache keeps the answer, else NOT_AT_HAND. */
  lookupAtHand<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): T | undefined | typeof NOT_AT_HAND {
    const cache = CACHED_LOOKUPS[collection]?.index === index ? this.lookups.get(collection) : undefined;
    const kept = cache?.get(key);
    return kept === undefined ? NOT_AT_HAND : ((kept ?? undefined) as T | undefined);
  }

  /** The records a query matches, in its order and slice, with the total. */
  async find<T extends StoredRecord = StoredRecord>(collection: string, query: ListQuery = {}): Promise<Found<T>> {
    return findRecords<T>(this.reader(collection), this.plan(collection), query);
  }

  /** How many records match. */
  async count(collection: string, where: Where = {}): Promise<number> {
    return countRecords(this.reader(collection), this.plan(collection), where);
  }

  /**
   * Runs `fn` as one transaction (BEGIN…COMMIT on one connection), again on a serialization failure
   * or deadlock; on a busy server, together with others in one commit (group-commit.ts).
   */
  async transaction<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    this.db.open();
    const { result, touched, cascaded } = await this.group.run((db) => this.runTx(db, fn));
    this.bump(touched, cascaded);
    this.folds.wrote(this.countedTables(cascaded ? this.plans.keys() : touched));
    return result;
  }

  /** `fn` on a transaction's connection; its failure is Spoiled when what ran it must roll back. */
  private async runTx<R>(db: Db, fn: (tx: Tx) => Promise<R>): Promise<TxDone<R>> {
    const tx = new PgTx(db, (c) => this.plan(c), (err) => (isRetryable(err) ? err : this.mapError(err)));
    try {
      const result = await fn(tx);
      await tx.end();
      if (tx.failed) throw tx.failed;
      return { result, touched: tx.touched, cascaded: tx.usersRemoved, events: tx.appended };
    } catch (err) {
      await tx.end();
      throw tx.wrote || tx.failed || isRetryable(err) ? new Spoiled(err) : err;
    }
  }

  /**
   * Bumped by every committed write to the collection: this process's at once, other processes'
   * when their notification arrives (within milliseconds), and every 0.5 s while notifications
   * cannot be heard (change-feed.ts).
   */
  version(collection: string): number {
    this.plan(collection);
    return this.versions.get(collection) ?? 0;
  }

  /** Bumped by every committed write of this process. */
  revision(): number {
    return this.changes;
  }

  /**
   * Adds counter deltas in one transaction; a `batch` already stored is skipped (see
   * CounterStore.addCounts). The sightings are claimed in it, and the counts of visitors another
   * process had seen first taken back, so counts and sightings commit (or not) together.
   */
  async addCounts(deltas: readonly CountsDelta[], maxLabels: number, batch?: string, _applied?: () => void, sightings?: SightingCheck, events: readonly NewEvent[] = []): Promise<void> {
    if (deltas.length === 0) return;
    const prune = batch !== undefined && Date.now() - this.prunedAt > PRUNE_EVERY_MS;
    const touched = events.length > 0 ? [STATS, EVENTS_COLLECTION] : [STATS];
    await this.db.inTransaction(
      async (db) => {
        if (batch !== undefined && !(await claimBatchIn(db, batch))) return false;
        const corrections = sightings ? sightings.correct(await claimSightingsIn(db, sightings.keys)) : [];
        await addCountsIn(db, [...deltas, ...corrections], maxLabels);
        if (prune) {
          await pruneBatchesIn(db);
          await pruneSightingsIn(db);
        }
        // Last, as every transaction's events (placeEventsIn). Owners of the deltas are share-locked by addCountsIn: an event's user cannot go before the commit.
        await placeEventsIn(db, this.plan(EVENTS_COLLECTION), events);
        return true;
      },
      // After the COMMIT, as a group commit's (connections.ts, commit): every process flushes its counters.
      (counted) => (counted ? this.feed.notifySql(touched) : null),
    );
    if (prune) this.prunedAt = Date.now();
    this.bump(touched);
  }

  /** One retention step in its own transaction, when this process has the schema's turn (pg-retention.ts); others hear of the change. */
  private async pruneStep(step: (db: Db) => Promise<number | null>): Promise<number | null> {
    this.db.open();
    const removed = await this.db.inTransaction(async (db) => {
      const n = await step(db);
      if (n) await this.feed.publishIn(db, [STATS]);
      return n;
    });
    if (removed) this.bump([STATS]);
    return removed;
  }

  /** Removes up to `limit` statistics days dated before `before`; null when another process prunes now. */
  pruneDays(before: string, limit: number): Promise<number | null> {
    return this.pruneStep((db) => pruneDaysIn(db, before, limit));
  }

  /** Removes up to `limit` labels of `dimensions` from days dated before `before`; null when another process prunes now. */
  pruneDimensions(before: string, dimensions: readonly string[], limit: number): Promise<number | null> {
    return this.pruneStep((db) => pruneDimensionsIn(db, before, dimensions, limit));
  }

  /**
   * Adds a flush's minutes to the realtime window in one transaction (idempotent per batch: see
   * pg-realtime.ts); when `keepFrom` moved on (once a minute of the clock) the same transaction forgets the minutes before it.
   */
  async addRealtime(batch: string, deltas: readonly RealtimeDelta[], keepFrom: number): Promise<void> {
    if (deltas.length === 0) return;
    const prune = keepFrom > this.realtimeKeptFrom;
    await this.db.inTransaction(async (db) => {
      await addRealtimeIn(db, batch, deltas);
      if (prune) await pruneRealtimeIn(db, keepFrom);
    });
    if (prune) this.realtimeKeptFrom = keepFrom;
  }

  /** A subject's realtime window from minute `from` on, every process's flushes together. */
  async realtimeCounts(subject: string, from: number, extra: readonly string[]): Promise<RealtimeCounts> {
    return realtimeCountsIn(this.db.read, subject, from, extra);
  }

  /** A subject's stored days, oldest first. */
  async countedDays(subject: string, from?: string, to?: string): Promise<{ day: string; counts: DayCounts }[]> {
    return countedDaysIn(this.reader(STATS), subject, from, to);
  }

  /** Totals of `names` per subject. */
  async countTotals(subjects: readonly string[], names: readonly string[]): Promise<Map<string, Record<string, number>>> {
    return countTotalsIn(this.reader(STATS), subjects, names);
  }

  /** Replaces every collection's content (counters included) in one transaction; ids continue after the new largest (replace-all.ts). */
  async replaceAll(data: Record<string, StoredRecord[]>, options: ReplaceOptions = {}): Promise<void> {
    for (const name of Object.keys(data)) this.plan(name);
    await this.db.inTransaction(async (db) => {
      await replaceAllIn(db, this.plans, data, options);
      await this.feed.publishIn(db, 'all');
    });
    this.bump(this.plans.keys());
    this.folds.wrote(this.countedTables(this.plans.keys()));
  }

  /** A file's bytes (file_contents), or undefined. */
  async readFileContent(fileId: number): Promise<Uint8Array | undefined> {
    return readFileContentIn(this.db.read, fileId);
  }

  /** Every record of a collection in id order, a batch at a time (keyset pages on the primary key; each batch its own statement). */
  scan<T extends StoredRecord = StoredRecord>(collection: string, batch = 1000): AsyncIterable<T[]> {
    return scanRecords<T>(this.db.read, this.plan(collection), batch);
  }

  /** Runs `fn` in one REPEATABLE READ, READ ONLY transaction: every count and scan sees the same committed state. */
  async readSnapshot<R>(fn: (view: SnapshotView) => Promise<R>): Promise<R> {
    return this.db.inSnapshot((db) =>
      fn({
        count: (c) => countRecords(db, this.plan(c), {}),
        scan: <T extends StoredRecord>(c: string, batch = 1000) => scanRecords<T>(db, this.plan(c), batch),
        readFileContent: (id) => readFileContentIn(db, id),
      }),
    );
  }

  /** The visitor ledger kept for the day, if any. */
  async loadLedger(): Promise<LedgerState | null> {
    return loadLedgerIn(this.db.read);
  }

  /** Keeps the visitor ledger. */
  async saveLedger(state: LedgerState): Promise<void> {
    this.db.open();
    await saveLedgerIn(this.db.read, state);
  }

  /** The value kept under `name` (`shared_values`, never forgotten): the first one any process proposed. */
  keptValue(name: string, proposed: string): Promise<string> {
    this.db.open();
    return agreeIn(this.db.read, name, proposed);
  }

  /** Salts and secrets agreed in the database (`shared_values`): every process sharing it uses the same. */
  readonly shared: SharedValues = {
    agree: (name, proposed, forgetAfterDays) => {
      this.db.open();
      return agreeIn(this.db.read, name, proposed, forgetAfterDays);
    },
  };

  /** Resolves once the database answered a statement (on a connection proven alive), within the caller's deadline; StoreUnavailableError when it did not. */
  async ping(): Promise<void> {
    await this.db.read('SELECT 1');
  }

  /** Registers work to finish before the store closes. */
  beforeClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  /** Runs the registered work, then closes the pool's connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const fn of this.closers.splice(0)) await fn();
    this.closed = true;
    await this.folds.close();
    await this.feed.close();
    await this.replicaSet?.close();
    await this.db.end();
  }
}
