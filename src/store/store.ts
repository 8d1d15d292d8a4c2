/**
 * The storage interface: the only way the rest of the server reads or writes data. Two backends
 * implement it, side by side: the JSON-file store (`./file/`, the embedded default, also `:memory:`)
 * and PostgreSQL (`./postgres/`). It speaks the domain (records, owners, indexes, counters,
 * transactions), never SQL, files or HTTP. Records handed out are read only.
 */
import type { CounterStore, CountsDelta, RealtimeStore } from './counter-store.ts';
import type { EventRecord, NewEvent, PlacedEvent } from './outbox-records.ts';
import type { StoredRecord } from './record.ts';
import type { ConflictError } from './store-errors.ts';

// What the interface is made of, from the modules that hold its parts: importers name store.ts only.
export type { CollectionSchema, StoredRecord } from './record.ts';
export { STATS_COLLECTION } from './counter-store.ts';
export type { CounterStore, CountsDelta, DayCounts, Labels, RealtimeCounts, RealtimeDelta, RealtimeStore, SightingCheck, StatsDay } from './counter-store.ts';
export { DELIVERIES_COLLECTION, EVENTS_COLLECTION, OUTBOX_COLLECTION, OUTBOX_SCHEMAS, withOutbox } from './outbox-records.ts';
export type { EventRecord, NewEvent, PlacedEvent } from './outbox-records.ts';
export { ConflictError, StoreNotEmptyError, StoreUnavailableError } from './store-errors.ts';

/** A value a condition compares a field with. */
export type FieldValue = string | number | boolean | null;

/** One condition on a record's top-level field. */
export type Condition =
  | { field: string; equals: FieldValue }
  /** Equal ignoring letter case (strings). */
  | { field: string; equalsIgnoringCase: string }
  /** An array field holding the value (a link's `channels`). */
  | { field: string; holds: number }
  /** A number field below the value (a time that has passed); a field that is no number never is. */
  | { field: string; below: number }
  /** A field that holds a value: neither absent nor null. */
  | { field: string; present: true };

/** Which records a read covers. */
export interface Where {
  /** Only the records whose `userId` is this. */
  owner?: number;
  /** Only these ids. */
  ids?: readonly number[];
  /** Every condition holds. */
  conditions?: readonly Condition[];
  /** The text appears, ignoring case, in at least one of the fields. */
  search?: { text: string; fields: readonly string[] };
}

/** How a list is ordered: by a field, or by a counter total (`clicks` of subject `link:<id>`); ties by id, same direction. */
export type Sort =
  | { field: string; direction: 'asc' | 'desc' }
  | { counter: string; subjectPrefix: string; direction: 'asc' | 'desc' };

/** A list read: which records, in which order, which slice. */
export interface ListQuery extends Where {
  /** Default: newest first (id descending). */
  sort?: Sort;
  offset?: number;
  limit?: number;
  /**
   * Count the matches of a narrowed list (`countCapped`) only up to this many: a screen that shows
   * "more than 10,000" needs no exact count of a million matches. Default: exact.
   */
  countUpTo?: number;
}

/** A page of records and how many the query matched in all. */
export interface Found<T> {
  /** How many matched; when `more`, `countUpTo` of them were counted and more are there. */
  total: number;
  items: T[];
  more?: true;
}

/**
 * Whether `countUpTo` caps a query's total: when conditions, ids or a search narrow it. The total of
 * a whole collection or owner is kept by both stores (PostgreSQL: migration 006), always exact.
 */
export function countCapped(where: Where): boolean {
  return (where.conditions?.length ?? 0) > 0 || where.ids !== undefined || Boolean(where.search?.text);
}

/** A total as a capped query answers it: above `countUpTo`, that number and `more`. */
export function cappedTotal(total: number, where: ListQuery): { total: number; more?: true } {
  const cap = where.countUpTo;
  return cap !== undefined && countCapped(where) && total > cap ? { total: Math.max(0, Math.floor(cap)), more: true } : { total };
}

/** Reads, outside or inside a transaction. */
export interface StoreReads {
  /** One record by id. */
  get<T extends StoredRecord = StoredRecord>(collection: string, id: number): Promise<T | undefined>;
  /** The record whose index key is `key`. */
  lookup<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): Promise<T | undefined>;
  /**
   * `lookup` answered without waiting when these reads hold the answer in memory (the file store's,
   * in a transaction too), else NOT_AT_HAND; absent where they never do. A bulk create's checks
   * then make no promise per link. The answer is the one `lookup` would give.
   */
  lookupAtHand?<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): T | undefined | typeof NOT_AT_HAND;
  /** Several records by id in one read: those that exist, by id. */
  getMany<T extends StoredRecord = StoredRecord>(collection: string, ids: readonly number[]): Promise<Map<number, T>>;
  /** The records of several index keys in one read: key → the record `lookup` would answer, for the keys that have one. */
  lookupMany<T extends StoredRecord = StoredRecord>(collection: string, index: string, keys: readonly string[]): Promise<Map<string, T>>;
  /** The records a query matches, in its order and slice, with the total it matched. */
  find<T extends StoredRecord = StoredRecord>(collection: string, query?: ListQuery): Promise<Found<T>>;
  /** How many records match. */
  count(collection: string, where?: Where): Promise<number>;
}

/** One change of `Tx.updateMany`: fields to replace in the record `id`. */
export interface RecordChange<T> {
  id: number;
  patch: Partial<T>;
}

/** What a transaction may do; every change goes through one of these. */
export interface Tx extends StoreReads {
  /**
   * One record by id, locked until the transaction ends: a change computed from it (a list it grows)
   * cannot be written over by a concurrent one, nor the record deleted meanwhile. The file store's
   * transactions run one at a time, so there it is `get`; PostgreSQL reads it `FOR UPDATE`.
   */
  getForUpdate<T extends StoredRecord = StoredRecord>(collection: string, id: number): Promise<T | undefined>;
  /** `getForUpdate` of several records in one read: those that exist, by id (PostgreSQL locks them in id order). */
  getManyForUpdate<T extends StoredRecord = StoredRecord>(collection: string, ids: readonly number[]): Promise<Map<number, T>>;
  /**
   * The record of a queue of work that is due first: among those whose `index` key is at most `upTo`
   * (keys compare as text: pad numbers to one width; a null key is never due), the smallest key, then
   * the smallest id, locked until the transaction ends. One that another transaction holds locked is
   * passed over (PostgreSQL: FOR UPDATE SKIP LOCKED), so that processes sharing the store each take a
   * different one at once (import jobs).
   */
  takeDue<T extends StoredRecord = StoredRecord>(collection: string, index: string, upTo: string): Promise<T | undefined>;
  /** Adds a record with the collection's next id and returns it. */
  insert<T extends object>(collection: string, data: T): Promise<T & { id: number }>;
  /**
   * Adds records in the order given, each with the collection's next id (one write for all on
   * PostgreSQL). Per record: the stored record, or the ConflictError of the unique index that
   * refused it (another record, or an earlier one of the same call, holds its key). The others are
   * stored all the same, and the transaction stays usable.
   */
  insertMany<T extends object>(collection: string, data: readonly T[]): Promise<((T & { id: number }) | ConflictError)[]>;
  /** Replaces fields of an existing record and returns the new record, or undefined when it is missing. */
  update<T extends StoredRecord>(collection: string, id: number, patch: Partial<T>): Promise<T | undefined>;
  /**
   * `update` of several records, in the order given (changes of one record apply one after another),
   * in two statements on PostgreSQL (a locked read of them all, one UPDATE). Per change, the new
   * record or undefined. A unique key another record holds fails the whole call (ConflictError).
   */
  updateMany<T extends StoredRecord>(collection: string, changes: readonly RecordChange<T>[]): Promise<(T | undefined)[]>;
  /** Removes a record; false when it was missing. */
  remove(collection: string, id: number): Promise<boolean>;
  /** Stores a record under its own id (seeding and imports); later ids continue after it. */
  put<T extends StoredRecord>(collection: string, record: T): Promise<T>;
  /** Removes every record of a collection that `where` matches; returns how many. */
  removeWhere(collection: string, where: Where): Promise<number>;
  /** Removes a subject's counters and realtime window (its record was deleted). */
  dropCounts(subject: string): Promise<void>;
  /** Adds counts inside the transaction (imports); see CounterStore.addCounts. */
  addCounts(deltas: readonly CountsDelta[], maxLabels: number): Promise<void>;
  /**
   * Keeps the bytes of the `files` record `fileId` (inserted in this transaction), all or nothing with
   * it. They go when the record goes (deleted, or its owner deleted): no other call removes them.
   */
  putFileContent(fileId: number, bytes: Uint8Array): Promise<void>;
  /** Appends events to the outbox (the `events` collection), all or nothing with the rest of the transaction; one write for all on PostgreSQL. */
  appendEvents(events: readonly NewEvent[]): Promise<void>;
}

/** The collection of uploaded files, whose records have their bytes kept beside them (`putFileContent`). */
export const FILES_COLLECTION = 'files';

/** Values every process sharing a store agrees on (PostgreSQL); a one-process store has none. */
export interface SharedValues {
  /** The value under `name`: the first one any process proposed (`proposed` when this is the first), forgotten after `forgetAfterDays` if given. */
  agree(name: string, proposed: string, forgetAfterDays?: number): Promise<string>;
}

/** Today's visitor ledger as it is kept across restarts: the day's salt and the filter's bits. */
export interface LedgerState {
  day: string;
  salt: string;
  bits: Uint8Array | null;
}

/** What `lookupAtHand` answers when only the asynchronous `lookup` can tell. */
export const NOT_AT_HAND: unique symbol = Symbol('not at hand');

/** One key's hits in a fixed window, as every process sharing the counts sees them. */
export interface WindowCount {
  /** Hits counted in the window so far, this one included. */
  count: number;
  /** When the window ends, Unix ms. */
  endsAt: number;
}

/** Fixed-window hit counts shared by every process that uses them (the rate limits of many processes). */
export interface WindowCounter {
  /**
   * Counts `n` hits (default 1) of `key` in the window ending at `endsAt` (Unix ms, from the
   * caller's clock), in one atomic step: the count returned includes them. A process whose clock is
   * behind counts in the later window another one opened already, so every process answers the
   * same count and the same end of the window.
   */
  hit(key: string, endsAt: number, n?: number): Promise<WindowCount>;
  /**
   * Takes back `n` hits of `key` counted in the window ending at `endsAt` that were leased but not
   * used (a process hands back the unused part of its slice); nothing when that window is no longer
   * the stored one. Never below 0.
   */
  giveBack(key: string, endsAt: number, n: number): Promise<void>;
}

/** A storage backend. */
/** How replaceAll fills the store. */
export interface ReplaceOptions {
  /** Refuse (StoreNotEmptyError) unless every collection is empty, checked in the same transaction. */
  onlyIfEmpty?: boolean;
  /** The bytes of the `files` records, by id. */
  fileContents?: ReadonlyMap<number, Uint8Array>;
}

export interface Store extends StoreReads, CounterStore, RealtimeStore {
  /** Which backend this is. */
  readonly backend: 'file' | 'memory' | 'postgres';
  /** Rate-limit windows kept where every process on this store sees them; null when the store is one process's (the file store). */
  readonly windows: WindowCounter | null;
  /**
   * Whether the store itself refuses a link or file whose alias (per domain) a link or file holds
   * already, across processes too, as a ConflictError on that collection's `alias` index
   * (PostgreSQL: the unique indexes and the triggers of migrations 005 and 009). Where it does, a
   * bulk create's first pass need not look up the aliases it makes up (HookContext.clashRetried).
   * The file store keeps only the links' own index: a file's alias is the checks' to refuse.
   */
  readonly refusesShortAliasClashes: boolean;
  /**
   * `lookup` answered without waiting when the store holds the answer in memory (the file store
   * always; PostgreSQL when its lookup cache keeps it), else NOT_AT_HAND. For the redirect, whose
   * answer without a promise is measurably cheaper; the answer is the one `lookup` would give.
   */
  lookupAtHand<T extends StoredRecord = StoredRecord>(collection: string, index: string, key: string): T | undefined | typeof NOT_AT_HAND;
  /**
   * Runs `fn` as one transaction: all of it or nothing, and its checks see no concurrent change
   * (file: one transaction at a time; PostgreSQL: constraints, locks and retries). Resolves once
   * the changes are durable. Throws ConflictError when a unique index refuses a change.
   */
  transaction<R>(fn: (tx: Tx) => Promise<R>): Promise<R>;
  /**
   * A number that changes whenever a collection changes (caches compare it): through this store,
   * or, on PostgreSQL, through any other process sharing the schema, within a second (LISTEN/NOTIFY;
   * the file store has one process only). Every per-process cache of records keys on it.
   */
  version(collection: string): number;
  /** A number that changes whenever anything changes (as `version`, for every collection at once). */
  revision(): number;
  /**
   * Replaces every collection's content, counters included (test mode, fixtures, `import --all`),
   * and the files' bytes by `files` id (`fileContents`). `onlyIfEmpty`: the same transaction first
   * checks that every collection is empty and throws StoreNotEmptyError (changing nothing) when one
   * is not, so no write can come between the check and the fill.
   */
  replaceAll(data: Record<string, StoredRecord[]>, options?: ReplaceOptions): Promise<void>;
  /** The bytes of a `files` record, or undefined when it has none (or is gone). */
  readFileContent(fileId: number): Promise<Uint8Array | undefined>;
  /** Every record of a collection, in id order, a batch at a time (exports). */
  scan<T extends StoredRecord = StoredRecord>(collection: string, batch?: number): AsyncIterable<T[]>;
  /**
   * Runs `fn` over one consistent picture of every collection (`export --all`): what is committed
   * while it reads is not seen, so counts and records agree (PostgreSQL: one REPEATABLE READ, READ ONLY transaction).
   */
  readSnapshot<R>(fn: (view: SnapshotView) => Promise<R>): Promise<R>;
  /** The visitor ledger kept for the day, if any. */
  loadLedger(): Promise<LedgerState | null>;
  /** Keeps the visitor ledger (on flush and close). */
  saveLedger(state: LedgerState): Promise<void>;
  /**
   * The value kept under `name` for good: the first one proposed (`proposed` when none was), the
   * same after a restart and in every process sharing the store. For server secrets that must not
   * change (the one behind users' ownership tokens).
   */
  keptValue(name: string, proposed: string): Promise<string>;
  /** Present when several processes share the store: what each would choose alone (a salt, a secret) is agreed through it, and unique visitors are checked in it at each flush. */
  readonly shared?: SharedValues;
  /**
   * Resolves once the store answered (PostgreSQL: a statement on a connection proven alive, within
   * the caller's deadline), for readiness checks; StoreUnavailableError when it could not.
   */
  ping(): Promise<void>;
  /** The read replicas this store sends reads to (PostgreSQL with DATABASE_READ_URL), as they stand now; absent or empty without any. */
  replicas?(): ReplicaState[];
  /** Registers work to finish before the store closes (flushing counters buffered in memory). */
  beforeClose(fn: () => Promise<void> | void): void;
  /** Flushes and releases what the store holds (files, lock, connections). */
  close(): Promise<void>;
  /** The event outbox: its events in order, their routing to webhooks, the deliveries' queue. */
  readonly outbox: Outbox;
}

/** A read replica as this process last found it: serving reads (`ok`), skipped for its lag or its silence, or not asked yet. */
export interface ReplicaState {
  /** host:port/database, never the password. */
  name: string;
  state: 'starting' | 'ok' | 'lagging' | 'down';
  /** How far behind the primary it was when last asked (ms); null when it did not answer. */
  lagMs: number | null;
  /** Reads it answered for this process. */
  reads: number;
}

/**
 * The event outbox (`events`, `deliveries`, `outbox`). Events are appended in the transaction of
 * the change they report, so a rollback leaves none and a commit always has one. Their order is the
 * order in which they became durable; a reader only ever gets events that no transaction still
 * running can come before (PostgreSQL numbers ids before commits, so ids alone would let one slip
 * past a reader). Deliveries are records of the `deliveries` collection: `webhookId`, `queue` (one
 * queue per webhook, delivered in id order; a manual delivery has a queue of its own), `state`
 * ('pending' until 'delivered' or 'failed'), `nextAt` (epoch ms, the app's clock), `manual`.
 */
export interface Outbox {
  /** Events after `cursor` (null: from the oldest kept), in order, at most `limit`; one owner's when given. */
  eventsAfter(cursor: string | null, limit: number, owner?: number): Promise<PlacedEvent[]>;
  /** The cursor of the event `eventId`, or null when it is not kept (never was, or pruned). */
  cursorOf(eventId: string): Promise<string | null>;
  /** A cursor after every event durable now: reading after it gives what comes later. */
  endCursor(): Promise<string>;
  /**
   * Hands `fn` the events since the last routing (at most `limit`, in order) inside one transaction
   * that also records them as routed: what `fn` writes (deliveries) and the routing commit together.
   * One process routes at a time; null when another one is routing now, else how many were routed.
   */
  route(limit: number, fn: (tx: Tx, events: readonly EventRecord[]) => Promise<void>): Promise<number | null>;
  /**
   * Leases the due heads of up to `limit` queues (due at `now`, epoch ms of the app's clock): the
   * first pending delivery of each queue, whose webhook is active (a manual one: whatever its
   * webhook), not leased already; each with up to `run - 1` of the pending deliveries behind it in
   * its queue, due too (a run, sent in id order). All come back in id order with `lease`, a token
   * the result of each must present; a lease ends after `leaseMs` (real time), so a delivery whose
   * process died is taken up again.
   */
  claimDeliveries(now: number, leaseMs: number, limit: number, run?: number): Promise<StoredRecord[]>;
  /** Removes events and deliveries created before `before` (ISO 8601), delivered or not; writes nothing when there are none. */
  prune(before: string): Promise<void>;
}

/** What `readSnapshot` reads: every collection as it was when the snapshot began. */
export interface SnapshotView {
  /** How many records a collection held. */
  count(collection: string): Promise<number>;
  /** Its records, in id order, a batch at a time. */
  scan<T extends StoredRecord = StoredRecord>(collection: string, batch?: number): AsyncIterable<T[]>;
  /** The bytes of a `files` record, or undefined when it has none. */
  readFileContent(fileId: number): Promise<Uint8Array | undefined>;
}
