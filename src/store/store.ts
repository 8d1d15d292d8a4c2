import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import { AtomicJsonFile } from './atomic-file.ts';
import { Journal, isJournalSegment } from './journal.ts';
import type { JournalEntry } from './journal.ts';
import { acquireLock, isLockFile } from './lock.ts';
import { DIR_MODE, tightenDataDir } from './permissions.ts';
import { Collection, collectionFileChunks } from './collection.ts';
import { readCollectionFile } from './collection-reader.ts';
import type { CollectionFile, StoredRecord } from './collection.ts';
import { recordingTx } from './transaction.ts';

import type { Tx } from './transaction.ts';

export type { Tx } from './transaction.ts';

export type { StoredRecord } from './collection.ts';

/** How to open a store. */
export interface StoreOptions {
  /** Directory of the JSON files, or ':memory:'. */
  dir: string;
  collections: readonly string[];
  /** Journal entries between two snapshots of the JSON files. */
  snapshotEvery?: number;
  /** Journal bytes between two snapshots: large entries (statistics days) reach this first. */
  snapshotBytes?: number;
  log?: Logger;
}

/**
 * Every collection in memory, made durable by an append-only journal (group-committed) and
 * periodic atomic snapshots into one human-readable JSON file per collection. Knows nothing of HTTP.
 */
export class Store {
  private readonly collections = new Map<string, Collection>();
  private readonly changes = { count: 0 };
  private seq = 0;
  private sinceSnapshot = 0;
  private bytesAtSnapshot = 0;
  private snapshotting: Promise<void> | null = null;
  private releaseLock: (() => void) | null = null;
  private closed = false;
  private closers: (() => Promise<void> | void)[] = [];

  private constructor(
    private readonly dir: string | null,
    private readonly journal: Journal | null,
    private readonly snapshotEvery: number,
    private readonly snapshotBytes: number,
    private readonly log: Logger,
  ) {}

  /** Opens (or creates) a store: locks the directory, loads every file, replays the journal. */
  static async open(options: StoreOptions): Promise<Store> {
    const log = options.log ?? silentLogger;
    const every = options.snapshotEvery ?? 20000;
    const bytes = options.snapshotBytes ?? 64 * 1024 * 1024;
    if (options.dir === ':memory:') {
      const store = new Store(null, null, every, bytes, log);
      for (const name of options.collections) {
        store.collections.set(name, new Collection(name, new Low<CollectionFile>(new Memory(), emptyFile(name)), store.changes));
      }
      return store;
    }
    const dir = options.dir;
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const release = await acquireLock(dir);
    try {
      await removeStaleTempFiles(dir);
      const own = new Set(options.collections.map((name) => `${name}.json`));
      await tightenDataDir(dir, (name) => own.has(name) || isJournalSegment(name) || isLockFile(name), log);
      const loaded = await Journal.open(dir);
      const store = new Store(dir, loaded.journal, every, bytes, log);
      for (const name of options.collections) {
        const adapter = new AtomicJsonFile<CollectionFile>(join(dir, `${name}.json`), (data) => collectionFileChunks(data), readCollectionFile);
        const db = new Low<CollectionFile>(adapter, emptyFile(name));
        await db.read();
        const col = new Collection(name, db, store.changes);
        col.load();
        store.collections.set(name, col);
        store.seq = Math.max(store.seq, col.fileSeq);
      }
      store.replay(loaded.entries);
      await loaded.journal.start(store.seq + 1);
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

  private col(name: string): Collection {
    const col = this.collections.get(name);
    if (!col) throw new Error(`unknown collection ${name}`);
    return col;
  }

  /** One record by id. */
  get<T extends StoredRecord = StoredRecord>(collection: string, id: number): T | undefined {
    return this.col(collection).records.get(id) as T | undefined;
  }

  /** Every record of a collection, in id order. */
  all<T extends StoredRecord = StoredRecord>(collection: string): T[] {
    return [...this.col(collection).records.values()] as T[];
  }

  /** The records whose `userId` is `userId`, in id order. */
  owned<T extends StoredRecord = StoredRecord>(collection: string, userId: number): T[] {
    const mine = this.col(collection).byOwner.get(userId);
    return mine ? ([...mine.values()] as T[]) : [];
  }

  /** Keeps a map from `keyOf(record)` to the record, for lookups by something other than the id (aliases, slugs). */
  addIndex(collection: string, name: string, keyOf: (r: StoredRecord) => string | null): void {
    this.col(collection).addIndex(name, keyOf);
  }

  /** The record whose index key is `key`. */
  lookup<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): T | undefined {
    const col = this.col(collection);
    const id = col.indexes.get(index)?.ids.get(key);
    return id === undefined ? undefined : (col.records.get(id) as T | undefined);
  }

  /** A number that changes whenever the collection does. */
  version(collection: string): number {
    return this.col(collection).version;
  }

  /** A number that changes whenever any collection does. */
  revision(): number {
    return this.changes.count;
  }

  /** How many records a collection holds. */
  count(collection: string): number {
    return this.col(collection).records.size;
  }

  /**
   * Runs `fn` against memory at once (so the next request sees its effect) and resolves once
   * its changes are durable. If `fn` throws, everything it did is undone.
   */
  async write<R>(fn: (tx: Tx) => R): Promise<R> {
    if (this.closed) throw new Error('store is closed');
    const { tx, ops, undo } = recordingTx((name) => this.col(name));
    let result: R;
    try {
      result = fn(tx);
    } catch (err) {
      for (const u of undo.reverse()) u();
      throw err;
    }
    if (ops.length === 0) return result;
    const entry: JournalEntry = { s: ++this.seq, ops };
    for (const op of ops) this.col(op.c).dirty = true;
    if (this.journal) await this.journal.append(entry);
    const journalBytes = this.journal?.stats.bytes ?? 0;
    if (++this.sinceSnapshot >= this.snapshotEvery || journalBytes - this.bytesAtSnapshot >= this.snapshotBytes) this.snapshotSoon();
    return result;
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
  async replaceAll(data: Record<string, StoredRecord[]>): Promise<void> {
    await this.write((tx) => {
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
  }

  /** Registers work to finish before the store closes (flushing counters buffered in memory). */
  beforeClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  /** Flushes, snapshots and releases the directory. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const fn of this.closers.splice(0)) await fn();
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

// A crash during a snapshot leaves its temp file behind; with the lock held, none is in use.
async function removeStaleTempFiles(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (/^\..+\.json\.\d+\.tmp$/.test(name)) await unlink(join(dir, name)).catch(() => {});
  }
}

function emptyFile(name: string): CollectionFile {
  return { collection: name, seq: 0, nextId: 1, records: [] };
}
