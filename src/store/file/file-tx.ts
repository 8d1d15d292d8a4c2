import { Turns } from '../../turns.ts';
import { ConflictError } from '../store.ts';
import type { NOT_AT_HAND, StoredRecord, Tx } from '../store.ts';
import type { FileContents } from './file-contents.ts';
import type { FileCounters } from './file-counters.ts';
import { appendEventsIn } from './file-outbox.ts';
import type { FileRealtime } from './file-realtime.ts';
import type { MemoryReads } from './memory-reads.ts';
import type { SyncTx } from './transaction.ts';

/** What a file store transaction reads and writes besides its records. */
export interface FileTxParts {
  reads: MemoryReads;
  counters: FileCounters;
  realtime: FileRealtime;
  contents: FileContents;
  isUser(id: number): boolean;
}

/**
 * The store's Tx over one of its synchronous transactions (transaction.ts): reads answer from
 * memory, writes are recorded in `tx`, and what cannot be recorded there (a file's bytes) pushes
 * its own undo. Transactions run one at a time, so nothing else changes a record meanwhile.
 */
export function fileTx(parts: FileTxParts, tx: SyncTx, undo: (() => void)[]): Tx {
  const { reads, counters, realtime, contents, isUser } = parts;
  return {
    get: async <T extends StoredRecord>(c: string, id: number) => reads.get<T>(c, id),
    // Transactions here run one at a time: nothing can change the record before this one ends.
    getForUpdate: async <T extends StoredRecord>(c: string, id: number) => reads.get<T>(c, id),
    getManyForUpdate: async (c, ids) => reads.getMany(c, ids),
    // One transaction at a time: no other can hold a record, so the first due is the one taken.
    takeDue: async <T extends StoredRecord>(c: string, index: string, upTo: string) => reads.firstDue<T>(c, index, upTo),
    lookup: async <T extends StoredRecord>(c: string, index: string, key: string) => reads.lookup<T>(c, index, key),
    lookupAtHand<T extends StoredRecord = StoredRecord>(c: string, index: string, key: string): T | undefined | typeof NOT_AT_HAND {
      return reads.lookup<T>(c, index, key);
    },
    getMany: async (c, ids) => reads.getMany(c, ids),
    lookupMany: async (c, index, keys) => reads.lookupMany(c, index, keys),
    find: async (c, query = {}) => reads.find(c, query),
    count: async (c, where = {}) => reads.count(c, where),
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
    updateMany: async (c, changes) => tx.updateMany(c, changes),
    remove: async (c, id) => tx.remove(c, id),
    put: async (c, record) => tx.put(c, record),
    removeWhere: async (c, where) => {
      const gone = reads.matching(c, where);
      for (const r of gone) tx.remove(c, r.id);
      return gone.length;
    },
    dropCounts: async (subject) => {
      counters.drop(tx, subject);
      realtime.drop(subject);
    },
    // Inside a transaction of its own (an import): no turns, so nothing it does is seen before it ends.
    addCounts: async (deltas, maxLabels) => counters.add(tx, deltas, maxLabels, isUser, new Turns(Infinity)),
    putFileContent: async (fileId, bytes) => {
      await contents.write(fileId, bytes);
      undo.push(() => void contents.remove(fileId).catch(() => {}));
    },
    appendEvents: (events) => appendEventsIn(tx, events, isUser),
  };
}
