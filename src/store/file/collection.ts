import type { Low } from 'lowdb';
import type { StoredRecord } from '../store.ts';


/** The shape of one collection's JSON file. */
export interface CollectionFile {
  collection: string;
  /** The journal sequence number this file includes everything up to. */
  seq: number;
  /** The id the next record will get; ids are never reused. */
  nextId: number;
  records: StoredRecord[];
}

/** About this many characters per piece of a serialised collection file. */
export const FILE_CHUNK_CHARS = 1 << 20;

/**
 * The collection file, one record per line (readable and diffable at any size), in pieces of
 * about `chunkChars`: a snapshot writes them one by one, so a large collection never exists as
 * one string (100,000 records made a 30 MB one) and requests are served between the pieces.
 * `records` may be any iterable, so a seeder can write millions without holding them.
 */
export function* collectionFileChunks(data: Omit<CollectionFile, 'records'> & { records: Iterable<StoredRecord> }, chunkChars = FILE_CHUNK_CHARS): Generator<string> {
  let chunk = `{"collection":${JSON.stringify(data.collection)},"seq":${data.seq},"nextId":${data.nextId},"records":[`;
  let first = true;
  for (const record of data.records) {
    chunk += (first ? '\n' : ',\n') + JSON.stringify(record);
    first = false;
    if (chunk.length >= chunkChars) {
      yield chunk;
      chunk = '';
    }
  }
  yield first ? `${chunk}]}\n` : `${chunk}\n]}\n`;
}

/** The whole collection file as one string (what collectionFileChunks yields, joined). */
export function serializeCollectionFile(data: CollectionFile): string {
  return [...collectionFileChunks(data)].join('');
}

/** Accepts a parsed file only if it has the collection shape (its records are checked as they are read). */
export function checkCollectionFile(data: unknown): CollectionFile {
  const d = data as Partial<CollectionFile> | null;
  if (!d || typeof d !== 'object' || Array.isArray(d)) throw new Error('not a JSON object');
  if (!Number.isInteger(d.seq) || !Number.isInteger(d.nextId)) throw new Error('"seq" and "nextId" must be integers');
  if (!Array.isArray(d.records)) throw new Error('"records" must be an array');
  return d as CollectionFile;
}

/** One collection in memory: records by id, an index by owner, and its lowdb file. */
export class Collection {
  readonly records = new Map<number, StoredRecord>();
  readonly byOwner = new Map<number, Map<number, StoredRecord>>();
  nextId = 1;
  fileSeq = 0;
  dirty = false;
  /** Bumped on every change, so caches built from the collection know when to rebuild. */
  version = 0;
  /**
   * Bumped when a new record may come below the last id handed out: one stored under an id of its
   * own below it, or the next id moved down (a store replaced). Readers that count on new records
   * coming after the old ones (the outbox's claims) start over then.
   */
  renumbered = 0;
  /** Secondary indexes: name → (key of a record, key → id), kept up to date on every change. */
  readonly indexes = new Map<string, { keyOf: (r: StoredRecord) => string | null; unique: boolean; ids: Map<string, number> }>();

  constructor(
    readonly name: string,
    private readonly db: Low<CollectionFile>,
    /** Shared by a store's collections: bumped with every version, so one read tells whether anything changed. */
    private readonly changes: { count: number } = { count: 0 },
  ) {}

  /** Fills memory from what lowdb read. */
  load(): void {
    const data = this.db.data;
    this.fileSeq = data.seq;
    for (const r of data.records) this.put(r);
    this.nextId = Math.max(this.nextId, data.nextId);
    this.letGoOfFileData();
  }

  /** Inserts or replaces a record, keeping the owner index and the id counter right. */
  put(record: StoredRecord): void {
    if (record.id < this.nextId && !this.records.has(record.id)) this.renumbered++;
    this.version++;
    this.changes.count++;
    const before = this.records.get(record.id);
    if (before?.userId !== undefined && before.userId !== record.userId) this.byOwner.get(before.userId)?.delete(record.id);
    for (const index of this.indexes.values()) {
      const old = before ? index.keyOf(before) : null;
      if (old !== null && index.ids.get(old) === record.id) index.ids.delete(old);
      const key = index.keyOf(record);
      if (key !== null) index.ids.set(key, record.id);
    }
    this.hold(record);
  }

  /**
   * Adds a record under a new id (an insert), each index key computed once: the name of the unique
   * index whose key another record holds, and nothing added, or null once it is added.
   */
  add(record: StoredRecord): string | null {
    const keys: (string | null)[] = [];
    for (const [name, index] of this.indexes) {
      const key = index.keyOf(record);
      if (index.unique && key !== null && index.ids.has(key)) return name;
      keys.push(key);
    }
    this.version++;
    this.changes.count++;
    let i = 0;
    for (const index of this.indexes.values()) {
      const key = keys[i++]!;
      if (key !== null) index.ids.set(key, record.id);
    }
    this.hold(record);
    return null;
  }

  /** Holds `record` by id and by owner, and moves the id counter past it (its indexes are the caller's). */
  private hold(record: StoredRecord): void {
    this.records.set(record.id, record);
    if (record.userId !== undefined) {
      let mine = this.byOwner.get(record.userId);
      if (!mine) this.byOwner.set(record.userId, (mine = new Map()));
      mine.set(record.id, record);
    }
    if (record.id >= this.nextId) this.nextId = record.id + 1;
  }

  /** Adds (or replaces) a secondary index and fills it from the records already held. */
  addIndex(name: string, keyOf: (r: StoredRecord) => string | null, unique = false): void {
    const ids = new Map<string, number>();
    for (const r of this.records.values()) {
      const key = keyOf(r);
      if (key !== null) ids.set(key, r.id);
    }
    this.indexes.set(name, { keyOf, unique, ids });
  }

  /**
   * The unique index `record` would break: one whose key changes (or is new) to a key another
   * record holds. A key the record already had is let be, so data written before an index became
   * unique stays writable.
   */
  clashOf(record: StoredRecord): string | null {
    const before = this.records.get(record.id);
    for (const [name, index] of this.indexes) {
      if (!index.unique) continue;
      const key = index.keyOf(record);
      if (key === null || (before && index.keyOf(before) === key)) continue;
      const other = index.ids.get(key);
      if (other !== undefined && other !== record.id) return name;
    }
    return null;
  }

  /** Removes a record by id. */
  delete(id: number): void {
    const before = this.records.get(id);
    if (!before) return;
    this.version++;
    this.changes.count++;
    for (const index of this.indexes.values()) {
      const key = index.keyOf(before);
      if (key !== null && index.ids.get(key) === id) index.ids.delete(key);
    }
    this.records.delete(id);
    if (before.userId !== undefined) this.byOwner.get(before.userId)?.delete(id);
  }

  /** Writes the collection's current state, covering the journal up to `seq`, to its file. */
  async save(seq: number): Promise<void> {
    this.dirty = false;
    this.db.data = { collection: this.name, seq, nextId: this.nextId, records: [...this.records.values()] };
    try {
      await this.db.write();
    } catch (err) {
      this.dirty = true;
      throw err;
    } finally {
      this.letGoOfFileData();
    }
    this.fileSeq = seq;
  }

  // lowdb keeps `data` after a read or a write. The records live in `records`; an array of them
  // would hold every record a second time, and after a write also every version replaced since
  // (the statistics days, rewritten every second, would be kept twice until the next snapshot).
  private letGoOfFileData(): void {
    this.db.data = { ...this.db.data, records: [] };
  }
}
