import type { Store, StoredRecord, StoreReads, Tx } from './store.ts';

/**
 * Whether a store's reads gain from batching: PostgreSQL's cost a round trip each; the file
 * store answers from memory, where a promise and a flush per read cost more than they save
 * (a bulk create of a thousand links: about 10% of its CPU).
 */
export const readsWorthBatching = (store: Pick<Store, 'backend'>): boolean => store.backend === 'postgres';

interface Waiter<T> {
  resolve: (value: T | undefined) => void;
  reject: (err: unknown) => void;
}

// Asked keys per collection and index ('' for ids), gathered until the next flush. Nested maps, not
// one map under a joined name: a bulk request asks a thousand times, and each name would be a new string.
// A key asked once (nearly all of them) keeps its one waiter; a list only for a key asked again.
type Asked<K> = Map<K, Waiter<StoredRecord> | Waiter<StoredRecord>[]>;
type Pending<K> = Map<string, Map<string, Asked<K>>>;

/**
 * `get` and `lookup` of many concurrent callers (the items of a bulk request, each running the
 * hooks a single request runs) sent as one `getMany`/`lookupMany` per collection and index: what is
 * asked before the event loop next turns (setImmediate) goes in one read. On PostgreSQL that is one
 * round trip for a thousand items instead of a thousand; the answers are the ones `get` and
 * `lookup` give. Other reads go straight through.
 */
export function batchedReads<R extends StoreReads>(base: R): Pick<R, 'get' | 'lookup'> {
  let ids: Pending<number> = new Map();
  let keys: Pending<string> = new Map();
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const [gets, lookups] = [ids, keys];
    ids = new Map();
    keys = new Map();
    for (const [collection, byIndex] of gets) for (const asked of byIndex.values()) settle(asked, base.getMany(collection, [...asked.keys()]));
    for (const [collection, byIndex] of lookups) for (const [index, asked] of byIndex) settle(asked, base.lookupMany(collection, index, [...asked.keys()]));
  };
  const wait = <K>(pending: Pending<K>, collection: string, index: string, key: K): Promise<StoredRecord | undefined> =>
    new Promise((resolve, reject) => {
      let byIndex = pending.get(collection);
      if (!byIndex) pending.set(collection, (byIndex = new Map()));
      let asked = byIndex.get(index);
      if (!asked) byIndex.set(index, (asked = new Map()));
      const waiter = { resolve, reject };
      const before = asked.get(key);
      if (before === undefined) asked.set(key, waiter);
      else if (Array.isArray(before)) before.push(waiter);
      else asked.set(key, [before, waiter]);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });

  return {
    get: ((collection: string, id: number) => wait(ids, collection, '', id)) as R['get'],
    lookup: ((collection: string, index: string, key: string) => wait(keys, collection, index, key)) as R['lookup'],
  };
}

function settle<K>(asked: Asked<K>, read: Promise<Map<K, StoredRecord>>): void {
  read.then(
    (found) => {
      for (const [key, w] of asked) {
        if (Array.isArray(w)) for (const one of w) one.resolve(found.get(key));
        else w.resolve(found.get(key));
      }
    },
    (err: unknown) => {
      for (const w of asked.values()) {
        if (Array.isArray(w)) for (const one of w) one.reject(err);
        else w.reject(err);
      }
    },
  );
}

/** The store's reads with `get` and `lookup` batched (see batchedReads). */
export function batchedStoreReads(base: StoreReads): StoreReads {
  return {
    ...batchedReads(base),
    getMany: (c, ids) => base.getMany(c, ids),
    lookupMany: (c, index, k) => base.lookupMany(c, index, k),
    find: (c, query) => base.find(c, query),
    count: (c, where) => base.count(c, where),
  };
}

/** A transaction whose `get` and `lookup` are batched (see batchedReads); every write goes straight to it. */
export function batchedTx(tx: Tx): Tx {
  return { ...forwardingTx(tx), ...batchedReads(tx) };
}

/** An object that hands every call to `tx` (for wrappers that replace a few of them: a PgTx keeps its methods on its prototype). */
export function forwardingTx(tx: Tx): Tx {
  return {
    get: (c, id) => tx.get(c, id),
    lookup: (c, index, key) => tx.lookup(c, index, key),
    getMany: (c, ids) => tx.getMany(c, ids),
    lookupMany: (c, index, keys) => tx.lookupMany(c, index, keys),
    find: (c, query) => tx.find(c, query),
    count: (c, where) => tx.count(c, where),
    getForUpdate: (c, id) => tx.getForUpdate(c, id),
    getManyForUpdate: (c, ids) => tx.getManyForUpdate(c, ids),
    takeDue: (c, index, upTo) => tx.takeDue(c, index, upTo),
    insert: (c, data) => tx.insert(c, data),
    insertMany: (c, data) => tx.insertMany(c, data),
    update: (c, id, patch) => tx.update(c, id, patch),
    updateMany: (c, changes) => tx.updateMany(c, changes),
    remove: (c, id) => tx.remove(c, id),
    put: (c, record) => tx.put(c, record),
    removeWhere: (c, where) => tx.removeWhere(c, where),
    dropCounts: (subject) => tx.dropCounts(subject),
    addCounts: (deltas, maxLabels) => tx.addCounts(deltas, maxLabels),
    appendEvents: (events) => tx.appendEvents(events),
    putFileContent: (fileId, bytes) => tx.putFileContent(fileId, bytes),
  };
}
