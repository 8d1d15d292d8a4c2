import type { Logger } from '../../log.ts';
import { silentLogger } from '../../log.ts';
import { Turns } from '../../turns.ts';
import { journalLine } from './journal.ts';
import type { Journal, JournalEntry } from './journal.ts';
import { FILES_COLLECTION, OUTBOX_COLLECTION, StoreNotEmptyError, withOutbox } from '../store.ts';
import type { CollectionSchema, CountsDelta, DayCounts, Found, LedgerState, ListQuery, NewEvent, NOT_AT_HAND, RealtimeCounts, RealtimeDelta, ReplaceOptions, SightingCheck, SnapshotView, Store, StoredRecord, Tx, Where } from '../store.ts';
import type { Collection } from './collection.ts';
import { loadDataDir, loadInMemory } from './data-dir.ts';
import type { LoadedData } from './data-dir.ts';
import type { FileContents } from './file-contents.ts';
import { FileCounters, STATS_COLLECTION } from './file-counters.ts';
import { appendEventsIn, FileOutbox } from './file-outbox.ts';
import { FileRealtime } from './file-realtime.ts';
import { fileTx } from './file-tx.ts';
import type { FileTxParts } from './file-tx.ts';
import type { KeptValues } from './kept-values.ts';
import type { KeptLedger } from './ledger-file.ts';
import { MemoryReads } from './memory-reads.ts';
import { Snapshots } from './snapshots.ts';
import type { SnapshotPolicy } from './snapshots.ts';
import { recordingTx } from './transaction.ts';
import type { SyncTx } from './transaction.ts';

/** How to open a file store. */
export interface FileStoreOptions {
  /** Directory of the JSON files, or ':memory:'. */
  dir: string;
  /** The collections, with their indexes (a bare name: no index). */
  collections: readonly (CollectionSchema | string)[];
  /** Journal entries between two snapshots of the JSON files. */
  snapshotEvery?: number;
  /** Journal bytes between two snapshots: large entries (statistics days) reach this first. */
  snapshotBytes?: number;
  log?: Logger;
}

/**
 * The JSON-file backend: every collection in memory, made durable by an append-only journal
 * (group-committed) and periodic atomic snapshots into one human-readable JSON file per collection.
 * Transactions run one at a time, against memory, and resolve once journalled; reads answer from
 * memory. `:memory:` keeps everything in memory only (the fake backend, tests).
 */
export class FileStore implements Store {
  readonly backend: 'file' | 'memory';
  /** One process's store: its rate limits are counted in memory. */
  readonly windows = null;
  /** Links and files have an alias index each, with nothing between them: shortAliasTaken looks in both. */
  readonly refusesShortAliasClashes = false;
  private readonly collections: Map<string, Collection>;
  private readonly changes: { count: number };
  private seq: number;
  /** Snapshots of the JSON files (none in memory). */
  private readonly snapshots: Snapshots | null;
  private readonly journal: Journal | null;
  private releaseLock: (() => void) | null;
  private closed = false;
  private closers: (() => Promise<void> | void)[] = [];
  /** The transaction running now: the next one starts when it ends. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly counters: FileCounters;
  /** The realtime window, in memory only (file-realtime.ts). */
  private readonly realtime = new FileRealtime();
  private readonly ledger: KeptLedger;
  /** Named values kept for good (keptValue). */
  private readonly kept: KeptValues;
  private readonly reads: MemoryReads;
  /** Uploaded files' bytes: in DATA_DIR/files, or in memory. */
  private readonly contents: FileContents;
  /** The event outbox, over the collections in memory. */
  readonly outbox: FileOutbox;
  /** What a transaction's Tx reads and writes besides records (file-tx.ts). */
  private readonly txParts: FileTxParts;

  private constructor(
    private readonly dir: string | null,
    loaded: LoadedData,
    schemas: readonly CollectionSchema[],
    changes: { count: number },
    policy: SnapshotPolicy,
    private readonly log: Logger,
  ) {
    this.backend = dir === null ? 'memory' : 'file';
    ({ collections: this.collections, journal: this.journal, seq: this.seq, contents: this.contents, ledger: this.ledger, kept: this.kept, release: this.releaseLock } = loaded);
    this.changes = changes;
    this.snapshots = this.journal && new Snapshots(this.journal, this.collections, policy, () => this.seq, log);
    this.snapshots?.replayed(loaded.replayed);
    for (const schema of schemas) {
      for (const [name, index] of Object.entries(schema.indexes ?? {})) this.col(schema.name).addIndex(name, index.key, index.unique ?? false);
    }
    this.counters = new FileCounters(this.col(STATS_COLLECTION));
    this.reads = new MemoryReads((name) => this.col(name), this.counters);
    this.outbox = new FileOutbox(this.reads, (fn) => this.transaction(fn));
    this.txParts = { reads: this.reads, counters: this.counters, realtime: this.realtime, contents: this.contents, isUser: (id) => this.isUser(id) };
  }

  /** Opens (or creates) a store: locks the directory, loads every file, replays the journal (data-dir.ts). */
  static async open(options: FileStoreOptions): Promise<FileStore> {
    const log = options.log ?? silentLogger;
    const policy = { every: options.snapshotEvery ?? 20000, bytes: options.snapshotBytes ?? 64 * 1024 * 1024 };
    const schemas = withOutbox(withStats(options.collections.map((c) => (typeof c === 'string' ? { name: c } : c))));
    const changes = { count: 0 };
    const dir = options.dir === ':memory:' ? null : options.dir;
    const loaded = dir === null ? await loadInMemory(schemas, changes, log) : await loadDataDir(dir, schemas, changes, log);
    try {
      return new FileStore(dir, loaded, schemas, changes, policy, log);
    } catch (err) {
      loaded.release();
      throw err;
    }
  }

  private isUser(id: number): boolean {
    return this.collections.get('users')?.records.has(id) ?? false;
  }

  private hasFile(id: number): boolean {
    return this.collections.get(FILES_COLLECTION)?.records.has(id) ?? false;
  }

  private col(name: string): Collection {
    const col = this.collections.get(name);
    if (!col) throw new Error(`unknown collection ${name}`);
    return col;
  }

  // Reads answer from memory; they are async only because the interface is.

  /** One record by id. */
  async get<T extends StoredRecord = StoredRecord>(collection: string, id: number): Promise<T | undefined> {
    return this.reads.get<T>(collection, id);
  }

  /** The record whose index key is `key`. */
  async lookup<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): Promise<T | undefined> {
    return this.reads.lookup<T>(collection, index, key);
  }

  /** The records of these ids that exist, by id. */
  async getMany<T extends StoredRecord = StoredRecord>(collection: string, ids: readonly number[]): Promise<Map<number, T>> {
    return this.reads.getMany<T>(collection, ids);
  }

  /** The records of these index keys, by key. */
  async lookupMany<T extends StoredRecord = StoredRecord>(collection: string, index: string, keys: readonly string[]): Promise<Map<string, T>> {
    return this.reads.lookupMany<T>(collection, index, keys);
  }

  /** The record whose index key is `key`, from memory: always at hand. */
  lookupAtHand<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): T | undefined | typeof NOT_AT_HAND {
    return this.reads.lookup<T>(collection, index, key);
  }

  /** The records a query matches, in its order and slice. */
  async find<T extends StoredRecord = StoredRecord>(collection: string, query: ListQuery = {}): Promise<Found<T>> {
    return this.reads.find<T>(collection, query);
  }

  /** How many records match. */
  async count(collection: string, where: Where = {}): Promise<number> {
    return this.reads.count(collection, where);
  }

  /** A file's bytes, or undefined. */
  async readFileContent(fileId: number): Promise<Uint8Array | undefined> {
    return this.hasFile(fileId) ? this.contents.read(fileId) : undefined;
  }

  /** Every record of a collection, in id order, a batch at a time. */
  scan<T extends StoredRecord = StoredRecord>(collection: string, batch = 1000): AsyncIterable<T[]> {
    return inBatches(this.reads.inIdOrder(collection, undefined) as readonly T[], batch);
  }

  /**
   * Runs `fn` over every collection as it is now: each one's id-ordered list is taken at once (no
   * transaction can run in between, they change memory synchronously), and those lists are never
   * changed in place, so later writes are not seen. Records are read only: nothing is copied but the lists.
   * One exception: a counter flush folds into a stored statistics day in place, so a day's counts may
   * run ahead; `export --all` meets none, as the directory's lock keeps any server out while it runs.
   */
  async readSnapshot<R>(fn: (view: SnapshotView) => Promise<R>): Promise<R> {
    const lists = new Map([...this.collections.keys()].map((name) => [name, this.reads.inIdOrder(name, undefined)]));
    const list = (c: string): readonly StoredRecord[] => {
      const found = lists.get(c);
      if (!found) throw new Error(`unknown collection ${c}`);
      return found;
    };
    return fn({
      count: async (c) => list(c).length,
      scan: <T extends StoredRecord>(c: string, batch = 1000) => inBatches(list(c) as readonly T[], batch),
      // Bytes are written before their record and removed after it: a listed file's are there.
      readFileContent: (id) => this.readFileContent(id),
    });
  }

  /** The fake backend's view of memory: synchronous reads, as its public `store` has always offered them. */
  peekView(): { get(c: string, id: number): StoredRecord | undefined; all(c: string): StoredRecord[]; owned(c: string, userId: number): StoredRecord[]; count(c: string): number } {
    return {
      get: (c, id) => this.col(c).records.get(id),
      all: (c) => [...this.reads.inIdOrder(c, undefined)],
      owned: (c, userId) => [...this.reads.inIdOrder(c, userId)],
      count: (c) => this.col(c).records.size,
    };
  }

  /** A number that changes whenever the collection does. */
  version(collection: string): number {
    return this.col(collection).version;
  }

  /** A number that changes whenever any collection does. */
  revision(): number {
    return this.changes.count;
  }

  /**
   * Runs `fn` against memory (so the next request sees its effect), one transaction at a time, and
   * resolves once its changes are journalled. If `fn` throws, everything it did is undone.
   */
  transaction<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return this.run((tx, undo) => fn(fileTx(this.txParts, tx, undo)));
  }

  private run<R>(fn: (tx: SyncTx, undo: (() => void)[]) => Promise<R> | R): Promise<R> {
    const turn = this.queue.then(() => this.apply(fn));
    // The next transaction waits for this one's changes to be applied, not for its fsync.
    this.queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn.then((r) => r.durable.then(() => r.result));
  }

  private async apply<R>(fn: (tx: SyncTx, undo: (() => void)[]) => Promise<R> | R): Promise<{ result: R; durable: Promise<void> }> {
    if (this.closed) throw new Error('store is closed');
    const { tx, ops, undo } = recordingTx((name) => this.col(name));
    let result: R;
    try {
      result = await fn(tx, undo);
    } catch (err) {
      for (const u of undo.reverse()) u();
      // A snapshot taken while `fn` waited may have saved what was undone: the next one writes these again.
      for (const op of ops) this.col(op.c).dirty = true;
      throw err;
    }
    if (ops.length === 0) return { result, durable: Promise.resolve() };
    const entry: JournalEntry = { s: this.seq + 1, ops };
    // A big entry's line is made in slices (journalLine) before it takes its number: no other write
    // runs meanwhile (the queue), and a snapshot taken meanwhile is one taken while `fn` ran.
    const line = this.journal && ops.length > SLICED_ENTRY_OPS ? await journalLine(entry) : undefined;
    this.seq = entry.s;
    for (const op of ops) this.col(op.c).dirty = true;
    const journalled = this.journal ? this.journal.append(entry, line) : Promise.resolve();
    const gone = ops.flatMap((op) => (op.c === FILES_COLLECTION && op.op === 'del' ? [op.id] : []));
    // A file's bytes go once its removal is durable (a crash before leaves bytes the next open sweeps).
    // Ids are not handed out again, but replaceAll may store a record of that id anew: then they stay.
    const durable = gone.length === 0 ? journalled : journalled.then(() => this.dropContents(gone));
    this.snapshots?.journalled();
    return { result, durable };
  }

  private async dropContents(ids: readonly number[]): Promise<void> {
    for (const id of ids) {
      if (this.hasFile(id)) continue;
      await this.contents.remove(id).catch((err: unknown) => this.log.error('removing a file\'s bytes failed', { id, error: String(err) }));
    }
  }

  /**
   * Adds counter deltas in one transaction; no batch id needed: a write here fails before it is
   * applied, never in doubt. No sightings either: one process, whose ledger knows every visitor.
   */
  async addCounts(deltas: readonly CountsDelta[], maxLabels: number, _batch?: string, applied?: () => void, _sightings?: SightingCheck, events: readonly NewEvent[] = []): Promise<void> {
    if (deltas.length === 0) return;
    const users = this.col('users');
    await this.run(async (tx) => {
      // A busy flush's days are added in turns of the event loop (FileCounters.add); its events after
      // them in one piece, so that no event is seen before the counts are all in. A small one (about
      // a millisecond of work) goes in one piece, all of it seen at once as it always was.
      await this.counters.add(tx, deltas, maxLabels, (id) => users.records.has(id), new Turns(deltas.length >= SLICED_FLUSH_DELTAS ? undefined : Infinity));
      await appendEventsIn(tx, events, (id) => users.records.has(id));
      // Reads answer from memory: the counts are visible now, before the journal's fsync.
      applied?.();
    });
  }

  /** A subject's stored days, oldest first. */
  async countedDays(subject: string, from?: string, to?: string): Promise<{ day: string; counts: DayCounts }[]> {
    return this.counters.days(subject, from, to);
  }

  /** Removes up to `limit` statistics days dated before `before`, in one journalled transaction. */
  async pruneDays(before: string, limit: number): Promise<number> {
    return this.run((tx) => this.counters.pruneDays(tx, before, limit));
  }

  /** Removes `dimensions` from up to `limit` statistics days dated before `before`, in one journalled transaction. */
  async pruneDimensions(before: string, dimensions: readonly string[], limit: number): Promise<number> {
    return this.run((tx) => this.counters.pruneDimensions(tx, before, dimensions, limit));
  }

  /** Adds a flush's minutes to the realtime window (memory only: see FileRealtime). */
  async addRealtime(batch: string, deltas: readonly RealtimeDelta[], keepFrom: number): Promise<void> {
    this.realtime.add(batch, deltas, keepFrom);
  }

  /** A subject's realtime window from minute `from` on. */
  async realtimeCounts(subject: string, from: number, extra: readonly string[]): Promise<RealtimeCounts> {
    return this.realtime.counts(subject, from, extra);
  }

  /** Totals of `names` per subject. */
  async countTotals(subjects: readonly string[], names: readonly string[]): Promise<Map<string, Record<string, number>>> {
    return new Map(subjects.map((s) => [s, this.counters.totals(s, names)]));
  }

  /** The visitor ledger kept for the day, if any. */
  async loadLedger(): Promise<LedgerState | null> {
    return this.ledger.load();
  }

  /** Keeps the visitor ledger: in a file of its own beside the collections (memory: until the process ends). */
  async saveLedger(state: LedgerState): Promise<void> {
    await this.ledger.save(state);
  }

  /** The value kept under `name`: the first one proposed, in a file of its own beside the collections (memory: until the process ends). */
  async keptValue(name: string, proposed: string): Promise<string> {
    return this.kept.value(name, proposed);
  }

  /** Writes every changed collection to its JSON file and drops the journal those files now cover. */
  async snapshot(): Promise<void> {
    await this.snapshots?.take();
  }

  /**
   * Replaces every collection's content (test mode and fixtures); durable like any write. Ids
   * continue after the new content's largest, so a reset to the same content hands out the same ids.
   */
  async replaceAll(data: Record<string, StoredRecord[]>, options: ReplaceOptions = {}): Promise<void> {
    const fileContents = options.fileContents ?? new Map<number, Uint8Array>();
    await this.run(async (tx) => {
      if (options.onlyIfEmpty) {
        // Where routing stands (the outbox's one record) is no data of anyone's.
        const held = Object.fromEntries([...this.collections].map(([name, col]) => [name, name === OUTBOX_COLLECTION ? 0 : col.records.size]).filter(([, n]) => n));
        if (Object.keys(held).length > 0) throw new StoreNotEmptyError(held);
      }
      // The new bytes first (a failure after leaves bytes no record names, which the next open
      // sweeps); the old ones go with their records once the change is durable (apply).
      for (const [id, bytes] of fileContents) await this.contents.write(id, bytes);
      for (const [name, col] of this.collections) {
        for (const id of [...col.records.keys()]) tx.remove(name, id);
      }
      for (const [name, records] of Object.entries(data)) {
        for (const r of records) tx.put(name, r);
      }
      for (const col of this.collections.values()) {
        let max = 0;
        for (const id of col.records.keys()) max = Math.max(max, id);
        if (max + 1 < col.nextId) col.renumbered++;
        col.nextId = max + 1;
      }
    });
    this.realtime.clear();
    // A new file of an old file's id that came without bytes must not keep the old one's.
    for (const r of data[FILES_COLLECTION] ?? []) if (!fileContents.has(r.id)) await this.contents.remove(r.id);
  }

  /** Resolves at once while the store is open: the files are this process's own, with no connection to lose. */
  async ping(): Promise<void> {
    if (this.closed) throw new Error('store is closed');
  }

  /** Registers work to finish before the store closes (flushing counters buffered in memory). */
  beforeClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  /** Flushes, snapshots and releases the directory. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const fn of this.closers.splice(0)) await fn();
    await this.queue;
    await this.snapshot();
    this.closed = true;
    await this.journal?.close();
    this.releaseLock?.();
    this.releaseLock = null;
  }

  /** Journal counters: entries written and the fsynced flushes that carried them. */
  get journalStats(): { entries: number; flushes: number } {
    return { ...(this.journal?.stats ?? { entries: 0, flushes: 0 }) };
  }

  /** Where the data lives, or null in memory. */
  get directory(): string | null {
    return this.dir;
  }
}

async function* inBatches<T>(all: readonly T[], batch: number): AsyncIterable<T[]> {
  for (let i = 0; i < all.length; i += batch) yield all.slice(i, i + batch);
}

// Journal entries of more operations than this are made in slices (a statistics flush of a busy second puts thousands),
// and statistics flushes of at least this many days are added in turns.
const SLICED_ENTRY_OPS = 256;
const SLICED_FLUSH_DELTAS = 256;

// The statistics days live in a collection of their own, whether or not the caller named it.
function withStats(schemas: readonly CollectionSchema[]): CollectionSchema[] {
  return schemas.some((c) => c.name === STATS_COLLECTION) ? [...schemas] : [...schemas, { name: STATS_COLLECTION }];
}
