import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { Logger } from '../../log.ts';
import { silentLogger } from '../../log.ts';
import { Turns } from '../../turns.ts';
import { AtomicJsonFile } from './atomic-file.ts';
import { Journal, isJournalSegment, journalLine } from './journal.ts';
import type { JournalEntry } from './journal.ts';
import { acquireLock, isLockFile } from './lock.ts';
import { prepareDataDir, tightenDataDir } from './permissions.ts';
import { ConflictError, FILES_COLLECTION, OUTBOX_COLLECTION, StoreNotEmptyError, withOutbox } from '../store.ts';
import type { CollectionSchema, CountsDelta, DayCounts, Found, LedgerState, ListQuery, NewEvent, NOT_AT_HAND, RealtimeCounts, RealtimeDelta, ReplaceOptions, SightingCheck, SnapshotView, Store, StoredRecord, Tx, Where } from '../store.ts';
import { FILES_DIR, FileContents } from './file-contents.ts';
import { Collection, collectionFileChunks } from './collection.ts';
import { readCollectionFile } from './collection-reader.ts';
import type { CollectionFile } from './collection.ts';
import { FileCounters, STATS_COLLECTION } from './file-counters.ts';
import { FileRealtime } from './file-realtime.ts';
import { loadLedgerFile, saveLedgerFile } from './ledger-file.ts';
import { KEPT_VALUES_FILE, loadKeptValues, saveKeptValues } from './kept-values.ts';
import { MemoryReads } from './memory-reads.ts';
import { recordingTx } from './transaction.ts';
import { appendEventsIn, FileOutbox } from './file-outbox.ts';
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
  private readonly collections = new Map<string, Collection>();
  private readonly changes = { count: 0 };
  private seq = 0;
  private sinceSnapshot = 0;
  private bytesAtSnapshot = 0;
  private snapshotting: Promise<void> | null = null;
  private releaseLock: (() => void) | null = null;
  private closed = false;
  private closers: (() => Promise<void> | void)[] = [];
  /** The transaction running now: the next one starts when it ends. */
  private queue: Promise<unknown> = Promise.resolve();
  private counters!: FileCounters;
  /** The realtime window, in memory only (file-realtime.ts). */
  private readonly realtime = new FileRealtime();
  private ledger: LedgerState | null = null;
  /** Named values kept for good (keptValue), and the write of their file in progress. */
  private kept: Record<string, string> = {};
  private keptWrite: Promise<void> = Promise.resolve();
  private reads!: MemoryReads;
  /** Uploaded files' bytes: in DATA_DIR/files, or in memory. */
  private contents!: FileContents;
  /** The event outbox, over the collections in memory. */
  outbox!: FileOutbox;

  private constructor(
    private readonly dir: string | null,
    private readonly journal: Journal | null,
    private readonly snapshotEvery: number,
    private readonly snapshotBytes: number,
    private readonly log: Logger,
  ) {
    this.backend = dir === null ? 'memory' : 'file';
  }

  /** Opens (or creates) a store: locks the directory, loads every file, replays the journal. */
  static async open(options: FileStoreOptions): Promise<FileStore> {
    const log = options.log ?? silentLogger;
    const every = options.snapshotEvery ?? 20000;
    const bytes = options.snapshotBytes ?? 64 * 1024 * 1024;
    const schemas = withOutbox(withStats(options.collections.map((c) => (typeof c === 'string' ? { name: c } : c))));
    if (options.dir === ':memory:') {
      const store = new FileStore(null, null, every, bytes, log);
      store.contents = new FileContents(null);
      for (const schema of schemas) {
        store.collections.set(schema.name, new Collection(schema.name, new Low<CollectionFile>(new Memory(), emptyFile(schema.name)), store.changes));
      }
      store.ready(schemas);
      return store;
    }
    const dir = options.dir;
    await prepareDataDir(dir);
    const release = await acquireLock(dir);
    try {
      await removeStaleTempFiles(dir);
      const own = new Set(schemas.map((c) => `${c.name}.json`));
      await tightenDataDir(dir, (name) => own.has(name) || isJournalSegment(name) || isLockFile(name) || name === LEDGER_FILE || name === KEPT_VALUES_FILE || name === FILES_DIR, log);
      const loaded = await Journal.open(dir);
      const store = new FileStore(dir, loaded.journal, every, bytes, log);
      store.contents = new FileContents(join(dir, FILES_DIR));
      for (const { name } of schemas) {
        const adapter = new AtomicJsonFile<CollectionFile>(join(dir, `${name}.json`), (data) => collectionFileChunks(data), readCollectionFile);
        const db = new Low<CollectionFile>(adapter, emptyFile(name));
        await db.read();
        const col = new Collection(name, db, store.changes);
        col.load();
        store.collections.set(name, col);
        store.seq = Math.max(store.seq, col.fileSeq);
      }
      store.replay(loaded.entries);
      await store.contents.sweep((id) => store.hasFile(id));
      await loaded.journal.start(store.seq + 1);
      store.ledger = await loadLedgerFile(join(dir, LEDGER_FILE), log);
      store.kept = await loadKeptValues(join(dir, KEPT_VALUES_FILE));
      store.ready(schemas);
      store.releaseLock = release;
      return store;
    } catch (err) {
      release();
      throw err;
    }
  }

  private replay(entries: JournalEntry[]): void {
    for (const entry of entries) {
      for (const op of entry.ops) {
        const col = this.collections.get(op.c);
        if (!col || entry.s <= col.fileSeq) continue;
        col.dirty = true; // the file lacks this change: the next snapshot must write it before the journal goes
        if (op.op === 'put') col.put(op.r);
        else col.delete(op.id);
      }
      this.seq = Math.max(this.seq, entry.s);
      this.sinceSnapshot++;
    }
  }

  private ready(schemas: readonly CollectionSchema[]): void {
    for (const schema of schemas) {
      for (const [name, index] of Object.entries(schema.indexes ?? {})) this.col(schema.name).addIndex(name, index.key, index.unique ?? false);
    }
    this.counters = new FileCounters(this.col(STATS_COLLECTION));
    this.reads = new MemoryReads((name) => this.col(name), this.counters);
    this.outbox = new FileOutbox(this.reads, (fn) => this.transaction(fn));
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
    return this.run((tx, undo) => fn(this.asyncTx(tx, undo)));
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
    const journalBytes = this.journal?.stats.bytes ?? 0;
    if (++this.sinceSnapshot >= this.snapshotEvery || journalBytes - this.bytesAtSnapshot >= this.snapshotBytes) this.snapshotSoon();
    return { result, durable };
  }

  private async dropContents(ids: readonly number[]): Promise<void> {
    for (const id of ids) {
      if (this.hasFile(id)) continue;
      await this.contents.remove(id).catch((err: unknown) => this.log.error('removing a file\'s bytes failed', { id, error: String(err) }));
    }
  }

  private asyncTx(tx: SyncTx, undo: (() => void)[]): Tx {
    return {
      get: (c, id) => this.get(c, id),
      // Transactions here run one at a time: nothing can change the record before this one ends.
      getForUpdate: (c, id) => this.get(c, id),
      // One transaction at a time: no other can hold a record, so the first due is the one taken.
      takeDue: async <T extends StoredRecord>(c: string, index: string, upTo: string) => this.reads.firstDue<T>(c, index, upTo),
      lookup: (c, index, key) => this.lookup(c, index, key),
      lookupAtHand: <T extends StoredRecord = StoredRecord>(c: string, index: string, key: string) => this.lookupAtHand<T>(c, index, key),
      getMany: (c, ids) => this.getMany(c, ids),
      lookupMany: (c, index, keys) => this.lookupMany(c, index, keys),
      find: (c, query) => this.find(c, query),
      count: (c, where) => this.count(c, where),
      insert: async (c, data) => tx.insert(c, data),
      // One at a time, in order: a refused record changes nothing (the clash is found before it is applied).
      insertMany: async (c, data) =>
        data.map((d) => {
          try {
            return tx.insert(c, d);
          } catch (err) {
            if (err instanceof ConflictError) return err;
            throw err;
          }
        }),
      update: async (c, id, patch) => tx.update(c, id, patch),
      remove: async (c, id) => tx.remove(c, id),
      put: async (c, record) => tx.put(c, record),
      removeWhere: async (c, where) => {
        const gone = this.reads.matching(c, where);
        for (const r of gone) tx.remove(c, r.id);
        return gone.length;
      },
      dropCounts: async (subject) => {
        this.counters.drop(tx, subject);
        this.realtime.drop(subject);
      },
      // Inside a transaction of its own (an import): no turns, so nothing it does is seen before it ends.
      addCounts: async (deltas, maxLabels) => this.counters.add(tx, deltas, maxLabels, (id) => this.col('users').records.has(id), new Turns(Infinity)),
      putFileContent: async (fileId, bytes) => {
        await this.contents.write(fileId, bytes);
        undo.push(() => void this.contents.remove(fileId).catch(() => {}));
      },
      appendEvents: (events) => appendEventsIn(tx, events, (id) => this.isUser(id)),
    };
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
    return this.ledger;
  }

  /** Keeps the visitor ledger: in a file of its own beside the collections (memory: until the process ends). */
  async saveLedger(state: LedgerState): Promise<void> {
    this.ledger = state;
    if (this.dir) await saveLedgerFile(join(this.dir, LEDGER_FILE), state);
  }

  /** The value kept under `name`: the first one proposed, in a file of its own beside the collections (memory: until the process ends). */
  async keptValue(name: string, proposed: string): Promise<string> {
    const held = this.kept[name];
    if (held !== undefined) return held;
    // One write at a time, each of the whole set: a value is answered only once it is durable,
    // and a caller that came during the write of the same name gets the value written.
    const write = this.keptWrite.catch(() => {}).then(async () => {
      if (this.kept[name] !== undefined) return;
      const values = { ...this.kept, [name]: proposed };
      if (this.dir) await saveKeptValues(join(this.dir, KEPT_VALUES_FILE), values);
      this.kept = values;
    });
    this.keptWrite = write;
    await write;
    return this.kept[name] ?? proposed;
  }

  private snapshotSoon(): void {
    if (this.snapshotting || !this.journal) return;
    this.snapshot().catch((err: unknown) => this.log.error('snapshot failed', { error: String(err) }));
  }

  /** Writes every changed collection to its JSON file and drops the journal those files now cover. */
  async snapshot(): Promise<void> {
    if (!this.journal) return;
    while (this.snapshotting) await this.snapshotting;
    const journal = this.journal;
    const run = async () => {
      const seq = this.seq;
      this.sinceSnapshot = 0;
      this.bytesAtSnapshot = journal.stats.bytes;
      const older = await journal.rotate(seq + 1);
      for (const col of this.collections.values()) {
        if (col.dirty) await col.save(seq);
      }
      await journal.remove(older);
    };
    this.snapshotting = run().finally(() => {
      this.snapshotting = null;
    });
    await this.snapshotting;
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

// A crash during a snapshot leaves its temp file behind; with the lock held, none is in use.
async function removeStaleTempFiles(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (/^\..+\.(json|bin)\.\d+\.tmp$/.test(name)) await unlink(join(dir, name)).catch(() => {});
  }
}

// Journal entries of more operations than this are made in slices (a statistics flush of a busy second puts thousands),
// and statistics flushes of at least this many days are added in turns.
const SLICED_ENTRY_OPS = 256;
const SLICED_FLUSH_DELTAS = 256;

/** The file beside the collections that keeps today's visitor ledger across restarts. */
const LEDGER_FILE = 'visitors.bin';

// The statistics days live in a collection of their own, whether or not the caller named it.
function withStats(schemas: readonly CollectionSchema[]): CollectionSchema[] {
  return schemas.some((c) => c.name === STATS_COLLECTION) ? [...schemas] : [...schemas, { name: STATS_COLLECTION }];
}

function emptyFile(name: string): CollectionFile {
  return { collection: name, seq: 0, nextId: 1, records: [] };
}
