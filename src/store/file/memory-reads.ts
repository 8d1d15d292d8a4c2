import { cappedTotal } from '../store.ts';
import type { Found, ListQuery, StoredRecord, Where } from '../store.ts';
import type { Collection } from './collection.ts';
import type { FileCounters } from './file-counters.ts';
import { matcher, sliceOf, sortRecords } from './query.ts';

/** The file store's reads: queries answered from the collections in memory, synchronously. */
export class MemoryReads {
  /** Per collection, the last id-ordered list asked for (all records, or one owner's), until the collection changes. */
  private readonly ordered = new Map<string, { owner: number | undefined; version: number; records: StoredRecord[] }>();

  constructor(
    private readonly col: (name: string) => Collection,
    private readonly counters: FileCounters,
  ) {}

  /** One record by id. */
  get<T extends StoredRecord>(collection: string, id: number): T | undefined {
    return this.col(collection).records.get(id) as T | undefined;
  }

  /** The record whose index key is `key`. */
  lookup<T extends StoredRecord>(collection: string, index: string, key: string): T | undefined {
    const col = this.col(collection);
    const found = col.indexes.get(index);
    if (!found) throw new Error(`unknown index ${collection}.${index}`);
    const id = found.ids.get(key);
    return id === undefined ? undefined : (col.records.get(id) as T | undefined);
  }

  /** The records of these ids that exist, by id. */
  getMany<T extends StoredRecord>(collection: string, ids: readonly number[]): Map<number, T> {
    const records = this.col(collection).records;
    const out = new Map<number, T>();
    for (const id of ids) {
      const r = records.get(id);
      if (r) out.set(id, r as T);
    }
    return out;
  }

  /** The records of these index keys, by key. */
  lookupMany<T extends StoredRecord>(collection: string, index: string, keys: readonly string[]): Map<string, T> {
    const out = new Map<string, T>();
    for (const key of keys) {
      const r = this.lookup<T>(collection, index, key);
      if (r) out.set(key, r);
    }
    return out;
  }

  /**
   * The records with an id of `from` or more, in id order: where they are a few of many, without
   * copying the collection (as inIdOrder does once it changed), one lookup per id up to the last
   * handed out; else (most of them, or ids far apart) from inIdOrder's list.
   */
  *fromId(collection: string, from: number): Generator<StoredRecord> {
    const col = this.col(collection);
    const start = Math.max(1, from);
    if (col.nextId - start > col.records.size / 2) {
      for (const r of this.inIdOrder(collection, undefined)) if (r.id >= start) yield r;
      return;
    }
    for (let id = start; id < col.nextId; id++) {
      const r = col.records.get(id);
      if (r) yield r;
    }
  }

  /** How often a collection's new records may have come below its last id (Collection.renumbered). */
  renumbered(collection: string): number {
    return this.col(collection).renumbered;
  }

  /** The record with the smallest `index` key at most `upTo` (then the smallest id), or undefined (a queue's next due record). */
  firstDue<T extends StoredRecord>(collection: string, index: string, upTo: string): T | undefined {
    const col = this.col(collection);
    const keyOf = col.indexes.get(index)?.keyOf;
    if (!keyOf) throw new Error(`unknown index ${collection}.${index}`);
    // A scan: queues hold few records (jobs), and a plain index keeps one id per key.
    let best: { key: string; record: StoredRecord } | undefined;
    for (const record of col.records.values()) {
      const key = keyOf(record);
      if (key === null || key > upTo) continue;
      if (!best || key < best.key || (key === best.key && record.id < best.record.id)) best = { key, record };
    }
    return best?.record as T | undefined;
  }

  /** The records a query matches, in its order and slice. */
  find<T extends StoredRecord>(collection: string, query: ListQuery): Found<T> {
    const sort = query.sort ?? { field: 'id', direction: 'desc' };
    if ('field' in sort && sort.field === 'id' && !matcher(query)) {
      // The hot list: a page of one owner's records, newest first, without copying the rest.
      const all = this.inIdOrder(collection, query.owner);
      const from = Math.max(0, query.offset ?? 0);
      const count = query.limit === undefined ? all.length : Math.max(0, query.limit);
      const items = sort.direction === 'asc' ? all.slice(from, from + count) : all.slice(Math.max(0, all.length - from - count), all.length - from).reverse();
      return { total: all.length, items: items as T[] };
    }
    let records = this.matching(collection, query);
    if ('counter' in sort) {
      const counter = sort.counter;
      records = sortRecords(records, sort, (r) => this.counters.totals(`${sort.subjectPrefix}${r.id}`, [counter])[counter]!);
    } else if (sort.field === 'id') {
      if (sort.direction === 'desc') records.reverse();
    } else {
      records = sortRecords(records, sort);
    }
    return { ...cappedTotal(records.length, query), items: sliceOf(records, query) as T[] };
  }

  /** How many records match. */
  count(collection: string, where: Where): number {
    if (!where.conditions && !where.search && !where.ids) {
      const col = this.col(collection);
      return where.owner === undefined ? col.records.size : (col.byOwner.get(where.owner)?.size ?? 0);
    }
    return this.matching(collection, where).length;
  }

  /** The records `where` covers, in id order, as a fresh array. */
  matching(collection: string, where: Where): StoredRecord[] {
    const inOrder = this.inIdOrder(collection, where.owner);
    const test = matcher(where);
    return test ? inOrder.filter(test) : [...inOrder];
  }

  /**
   * A collection's records (or one owner's), in id order, read only. The last one asked for per
   * collection is kept until the collection changes: a list polled page after page copies nothing but its page.
   */
  inIdOrder(collection: string, owner: number | undefined): readonly StoredRecord[] {
    const col = this.col(collection);
    const kept = this.ordered.get(collection);
    if (kept && kept.owner === owner && kept.version === col.version) return kept.records;
    const from = owner === undefined ? col.records : (col.byOwner.get(owner) ?? new Map<number, StoredRecord>());
    const records = [...from.values()];
    // Maps keep insertion order, which puts with explicit ids (seeds, imports) or a new owner can break.
    for (let i = 1; i < records.length; i++) {
      if (records[i - 1]!.id > records[i]!.id) {
        records.sort((a, b) => a.id - b.id);
        break;
      }
    }
    this.ordered.set(collection, { owner, version: col.version, records });
    return records;
  }
}
