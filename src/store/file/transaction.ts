import { ConflictError } from '../store.ts';
import type { RecordChange, StoredRecord } from '../store.ts';
import type { Collection } from './collection.ts';
import type { JournalOp } from './journal.ts';

/** The file store's transaction inside: applied to memory at once, journalled at commit. */
export interface SyncTx {
  /** Adds a record with the collection's next id and returns it. */
  insert<T extends object>(collection: string, data: T): T & { id: number };
  /** Replaces fields of an existing record and returns the new record, or undefined when it is missing. */
  update<T extends StoredRecord>(collection: string, id: number, patch: Partial<T>): T | undefined;
  /** `update` of each change in turn, all or none: a clash undoes the ones before it and throws. */
  updateMany<T extends StoredRecord>(collection: string, changes: readonly RecordChange<T>[]): (T | undefined)[];
  /** Removes a record; false when it was missing. */
  remove(collection: string, id: number): boolean;
  /** Stores a record under its own id (seeding and imports); later ids continue after it. */
  put<T extends StoredRecord>(collection: string, record: T): T;
}

/**
 * A transaction that applies each change to memory at once and records it twice: as a journal
 * operation (whole records, so replay is idempotent) and as an undo step, for when the
 * transaction throws before it is committed.
 */
export function recordingTx(col: (name: string) => Collection): { tx: SyncTx; ops: JournalOp[]; undo: (() => void)[] } {
  const ops: JournalOp[] = [];
  const undo: (() => void)[] = [];
  const unclashed = (c: Collection, record: StoredRecord) => {
    const index = c.clashOf(record);
    if (index !== null) throw new ConflictError(c.name, index);
  };
  const tx: SyncTx = {
    insert: (name, data) => {
      const c = col(name);
      const record = Object.assign({ id: c.nextId }, data, { id: c.nextId }) as StoredRecord;
      // A new id: no record to replace, so the clash check and the indexes take one key each (Collection.add).
      if (c.records.has(record.id)) {
        unclashed(c, record);
        c.put(record);
      } else {
        const clash = c.add(record);
        if (clash !== null) throw new ConflictError(c.name, clash);
      }
      undo.push(() => {
        c.delete(record.id);
        c.nextId = record.id;
      });
      ops.push({ c: name, op: 'put', r: record });
      return record as never;
    },
    update: (name, id, patch) => {
      const c = col(name);
      const before = c.records.get(id);
      if (!before) return undefined;
      const after = { ...before, ...patch, id } as StoredRecord;
      unclashed(c, after);
      c.put(after);
      undo.push(() => c.put(before));
      ops.push({ c: name, op: 'put', r: after });
      return after as never;
    },
    updateMany: (name, changes) => {
      const undone = undo.length;
      const journalled = ops.length;
      try {
        return changes.map(({ id, patch }) => tx.update(name, id, patch));
      } catch (err) {
        for (const u of undo.splice(undone).reverse()) u();
        ops.length = journalled;
        throw err;
      }
    },
    put: (name, record) => {
      const c = col(name);
      const before = c.records.get(record.id);
      const nextId = c.nextId;
      unclashed(c, record);
      c.put(record);
      undo.push(() => {
        if (before) c.put(before);
        else c.delete(record.id);
        c.nextId = nextId;
      });
      ops.push({ c: name, op: 'put', r: record });
      return record;
    },
    remove: (name, id) => {
      const c = col(name);
      const before = c.records.get(id);
      if (!before) return false;
      c.delete(id);
      undo.push(() => c.put(before));
      ops.push({ c: name, op: 'del', id });
      return true;
    },
  };
  return { tx, ops, undo };
}
