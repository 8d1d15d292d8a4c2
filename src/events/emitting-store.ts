import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Resource, RowEvents } from '../resources/define.ts';
import type { NewEvent, Store, StoreReads, StoredRecord, Tx } from '../store/store.ts';
import { newEvent } from './event-types.ts';

/** What a transaction did to a watched record, noted as it happened and turned into an event at its end. */
interface Noted {
  type: string;
  record: StoredRecord;
  events: RowEvents;
}

const EMITTING = Symbol('emits events');

/**
 * The store with the rows' events (`row.events`) appended to the outbox by every transaction that
 * creates, updates or deletes their records, in that transaction: a rollback leaves no event and a
 * commit always has one. Whatever writes the record (a route, a bulk request, an importer, the
 * dashboard) fires the event without code of its own. Deletes by `removeWhere` (a user's records
 * going with the user) fire none, and neither do `put` (seeds, fixtures) nor `replaceAll` (test
 * resets, `import --all`), which restore data rather than change it.
 */
export function withEvents(store: Store, rows: readonly Resource[], deps: { config: Config; clock: Clock }): Store {
  if ((store as unknown as Record<symbol, unknown>)[EMITTING]) return store;
  const watched = new Map(rows.flatMap((r) => (r.events ? [[r.collection, r.events] as const] : [])));
  const transaction = <R>(fn: (tx: Tx) => Promise<R>): Promise<R> =>
    store.transaction(async (tx) => {
      const noted: Noted[] = [];
      // What was noted goes before an event the transaction appends itself (an import's import.finished).
      const flush = async () => {
        if (noted.length > 0) await tx.appendEvents(await eventsOf(noted.splice(0), tx, deps));
      };
      const result = await fn(recording(tx, watched, noted, flush));
      await flush();
      return result;
    });
  const bound = new Map<PropertyKey, unknown>();
  // A proxy rather than a class: every member of the store passes through as it is, those other
  // branches of the code add later included; only `transaction` is its own.
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'transaction') return transaction;
      if (prop === EMITTING) return true;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (!bound.has(prop)) bound.set(prop, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(prop);
    },
  });
}

/** The events of what a transaction noted, in the order it happened; a record without an owner reports to nobody. */
async function eventsOf(noted: readonly Noted[], tx: Tx, deps: { config: Config; clock: Clock }): Promise<NewEvent[]> {
  const out: NewEvent[] = [];
  // A bulk create of a thousand links on one branded domain reads that domain once.
  const kept = new Map<string, Promise<StoredRecord | undefined>>();
  const reads = {
    get: <T extends StoredRecord>(c: string, id: number) => {
      const key = `${c}:${id}`;
      if (!kept.has(key)) kept.set(key, tx.get(c, id));
      return kept.get(key) as Promise<T | undefined>;
    },
    lookup: (c: string, index: string, key: string) => tx.lookup(c, index, key),
    find: (c: string, query?: Parameters<Tx['find']>[1]) => tx.find(c, query),
    count: (c: string, where?: Parameters<Tx['count']>[1]) => tx.count(c, where),
  } as StoreReads;
  for (const n of noted) {
    if (typeof n.record.userId !== 'number') continue;
    // Awaited only when it is a promise: an await per event of a bulk create costs more than the event.
    const data = n.events.data(n.record, reads, deps.config);
    out.push(newEvent(n.record.userId, n.type, data instanceof Promise ? await data : data, deps.clock));
  }
  return out;
}

/** `tx` noting the creates, updates and deletes of watched collections. */
function recording(tx: Tx, watched: ReadonlyMap<string, RowEvents>, noted: Noted[], flush: () => Promise<void>): Tx {
  const note = (collection: string, kind: 'created' | 'updated' | 'deleted', record: StoredRecord) => {
    const events = watched.get(collection);
    const type = events?.[kind];
    if (events && type) noted.push({ type, record, events });
  };
  const own: Partial<Record<PropertyKey, unknown>> = {
    insert: async (c: string, data: object) => {
      const record = await tx.insert(c, data);
      note(c, 'created', record as StoredRecord);
      return record;
    },
    // A batch insert (bulk creates): each record stored fires, each refused one does not.
    insertMany: async (c: string, data: readonly object[]) => {
      const many = (tx as unknown as { insertMany(c: string, data: readonly object[]): Promise<unknown[]> }).insertMany(c, data);
      const results = await many;
      for (const r of results) if (r && typeof r === 'object' && !(r instanceof Error)) note(c, 'created', r as StoredRecord);
      return results;
    },
    update: async (c: string, id: number, patch: object) => {
      const record = await tx.update(c, id, patch);
      if (record) note(c, 'updated', record);
      return record;
    },
    updateMany: async (c: string, changes: Parameters<Tx['updateMany']>[1]) => {
      const records = await tx.updateMany(c, changes);
      for (const record of records) if (record) note(c, 'updated', record);
      return records;
    },
    appendEvents: async (events: Parameters<Tx['appendEvents']>[0]) => {
      await flush();
      await tx.appendEvents(events);
    },
    remove: async (c: string, id: number) => {
      const before = watched.get(c)?.deleted ? await tx.get(c, id) : undefined;
      const removed = await tx.remove(c, id);
      if (removed && before) note(c, 'deleted', before);
      return removed;
    },
  };
  // Bound once per transaction: a bulk create on the file store reads through here a few thousand times.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(tx, {
    get(target, prop) {
      if (prop in own && (prop !== 'insertMany' || 'insertMany' in target)) return own[prop];
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(prop);
      if (fn === undefined) bound.set(prop, (fn = (value as (...args: unknown[]) => unknown).bind(target)));
      return fn;
    },
  });
}
