import * as v from 'valibot';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { RandomSource } from '../random.ts';
import type { DailyCounters } from '../stats/daily-counters.ts';
import type { Condition, Sort, StoredRecord, Store, StoreReads, Tx, Where } from '../store/store.ts';
import type { ApiError } from '../errors.ts';
import type { RowShapes } from './shapes.ts';
import type { MakeLimiter } from '../http/rate-limit.ts';
import type { ApiKeyRecord } from '../auth/api-key-record.ts';
import type { KeyUses } from '../auth/key-uses.ts';
import type { DisabledUsers } from '../auth/disabled-users.ts';
import type { ScopeAreaName } from '../auth/scopes.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { QrRenderer } from '../qr/renderer.ts';
import type { OwnershipProofs } from '../ownership/proofs.ts';
import type { EventStreams } from '../events/event-streams.ts';
import type { Geolocator } from '../geo/geolocator.ts';

/** A value, or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** The field schemas of a resource: request field name → Valibot schema with its constraints. */
export type Fields = Record<string, v.GenericSchema>;

/** A signed-in user as stored (secrets included: never returned as is). */
export interface UserRecord extends StoredRecord {
  email: string;
  username: string;
  password: string;
  avatar: string;
  status: 'free' | 'pro';
  planid: number | null;
  expires: string | null;
  registered: string;
  admin: boolean;
  keyHash: string;
  keyExpires: string | null;
  /** The hash of a pending one-time sign-in link's secret, and when it ends (ms); absent or null when there is none. */
  loginHash?: string | null;
  loginExpires?: number | null;
  /** Set by the admin: the account's keys, sessions, sign-ins and links stop (src/auth/disabled-users.ts); absent or false when enabled. */
  disabled?: boolean;
  /** When it was disabled (`YYYY-MM-DD HH:MM:SS` UTC) and why (the admin's note, never shown to the user); null when enabled. */
  disabledAt?: string | null;
  disabledReason?: string | null;
}

/** The parts of the app every handler and hook may use. */
export interface Services {
  store: Store;
  config: Config;
  clock: Clock;
  random: RandomSource;
  log: Logger;
  resources: readonly Resource[];
  /** Daily statistics of links, QR codes, campaigns and websites, buffered in memory and batched to the store. */
  counters: DailyCounters;
  /** Signs the pages' cookies (derive a key per kind with cookieKey). */
  secret: Uint8Array;
  /** Makes the rate limiters: counting in memory, or where every process counts (Redis, PostgreSQL). */
  limits: MakeLimiter;
  /** The audit log of writes, buffered in memory and batched to the store. */
  audit: AuditLog;
  /** When each scoped key was last used, noted in memory and written once a minute. */
  keyUses: KeyUses;
  /** Whether the owners of visited links are disabled, kept per process (src/auth/disabled-users.ts). */
  disabledUsers: DisabledUsers;
  /** The threads that draw QR images and check what fits in one. */
  renderer: QrRenderer;
  /** Users' ownership tokens and the proofs that carry them (DNS TXT records, token files). */
  proofs: OwnershipProofs;
  /** The webhook deliveries of this process (src/webhooks/dispatcher.ts): told when there is work to do now. */
  webhooks: { kick(): void };
  /** The live event streams of this process. */
  streams: EventStreams;
  /** Where visitors are: the country header, the bundled country database, the City database. */
  geo: Geolocator;
}

/** What a hook knows about the request it serves. */
export interface HookContext extends Services {
  user: UserRecord;
  /** The request's `Host` header as sent (compare it through hostnameOf), the name this server is reached by; absent outside a request. */
  requestHost?: string;
  /** Where `prepare` reads outside a transaction: a bulk request's batched reads (batched-reads.ts); absent: the store. */
  reads?: StoreReads;
  /** The scoped key the request came with; null or absent: the account key (every scope). */
  apiKey?: ApiKeyRecord | null;
  /**
   * Set for `check` in a bulk create's first pass (create-many.ts): an item whose insert a unique
   * index refuses runs again alone afterwards, `check` included, without this flag. A key `check`
   * makes up (a link's alias) may skip its look-ups then, where the store itself refuses a clash
   * (Store.refusesShortAliasClashes): a clash costs a retry, never an error the user did not cause.
   */
  clashRetried?: true;
}

/** What hooks read through outside a transaction (see HookContext.reads). */
export const readsOf = (ctx: HookContext): StoreReads => ctx.reads ?? ctx.store;
/**
 * The envelope of a link-management list, as the real product answers each list:
 * - `paged`: `{error: "0", data: {result, perpage, currentpage, nextpage, maxpage, <listKey>: [...]}}` (the reference's lists);
 * - `plain`: `{error: "0", data: [...]}`, one page without the page fields (the admin users list);
 * - `flat`: `{error: 0, result, perpage, currentpage, nextpage, maxpage, <listKey>: [...]}`, the page fields beside `error` (the files list).
 */
export type ListShape = 'paged' | 'plain' | 'flat';

/** Which API a resource belongs to: the link-management API, its admin part, or the analytics API. */
export type Api = 'link' | 'admin' | 'analytics';

/**
 * One row of the resource table. Schemas, types, routes, OpenAPI and tests are derived from it;
 * the hooks carry what is special about a resource.
 */
export interface Resource<F extends Fields = Fields, R extends StoredRecord = StoredRecord> {
  /** Singular name, for messages and docs ("qr"). */
  name: string;
  /** Store collection and data file name ("qrs"). */
  collection: string;
  api: Api;
  /** Records belong to the user who created them (a `userId` field). */
  owned: boolean;
  /** Not in the reference: ours, marked as an extension in the docs. */
  extension?: boolean;
  /**
   * The scope area of its routes and of every other route under the same `/api/<segment>`
   * (src/auth/route-scopes.ts): a key needs `<area>:read` to read and `<area>:write` to write; `*`
   * for admin rows. Absent: a row without routes.
   */
  scope?: ScopeAreaName | '*';
  /** Records of the server about an account (keys, audit), carried by `export --all` but never by one user's export or import. */
  wholeStoreOnly?: boolean;
  /** Kept only for a while (the event outbox): no export carries its records, nor does an import bring any. */
  transient?: boolean;
  /** The events its records' writes append to the outbox, whatever writes them (src/events/emitting-store.ts). */
  events?: RowEvents<R>;
  fields: F;
  /** Fields required on create; the others are optional, with `defaults` applied. Absent: no create route. */
  create?: { required: readonly (keyof F & string)[]; defaults?: { [K in keyof F]?: v.InferOutput<F[K]> } };
  /** Fields required on update. Absent: no update route. */
  update?: {
    required: readonly (keyof F & string)[];
    fields?: readonly (keyof F & string)[];
    /** Optional fields an update that leaves them out resets (the row's `prepare` does it); the others keep their values. */
    resets?: readonly (keyof F & string)[];
  };
  /** Route paths of the generic operations; an absent path means no such route. */
  paths: { list?: string; get?: string; create?: string; update?: string; remove?: string };
  /** The array key in list responses. */
  listKey: string;
  /** How the list answers a page (default `paged`); see ListShape. */
  listShape?: ListShape;
  /** What `entry`/`single`/`created`/`updated` answer, for the OpenAPI document (rows without routes need none). */
  shapes?: RowShapes;
  /**
   * Fields holding ids of the user's other records (`pixels: [ids]`, `campaign: id`). On create and
   * update each id must exist and belong to the user; deleting a target removes it from here.
   */
  references?: Record<string, { collection: string; many?: boolean; /** The request field it comes from, when named otherwise. */ from?: string }>;
  /** Secondary indexes the store keeps for this collection: name → key of a record (null: not indexed). */
  indexes?: Record<string, (record: R) => string | null>;
  /**
   * The indexes whose keys the store keeps unique, each with the error a request gets when a
   * concurrent one took the key first (the store's ConflictError, past the row's own `check`).
   */
  unique?: Record<string, () => ApiError>;
  /**
   * A unique key the server makes up for each new record (a random alias): set by `make` before the
   * insert without looking it up first (a round trip per create on PostgreSQL), and made again when
   * the unique index `index` refuses it.
   */
  madeUp?: { index: string; make(fields: Record<string, unknown>, ctx: HookContext): void };
  /** A valid create body, different for each `n`: drives the table tests and the docs' examples. */
  example(n: number): Record<string, unknown>;
  /** Fields the list's `q` search looks in, and fields lists may be sorted by. */
  searchable?: readonly string[];
  sortable?: readonly string[];
  messages: { notFound: string; created?: string; updated: string; deleted: string };
  /** The public shape of a record in lists. */
  entry(record: R, ctx: HookContext): Awaitable<Record<string, unknown>>;
  /** The public shapes of a page of records at once (one read for all of them); default: `entry` of each. */
  entries?(records: readonly R[], ctx: HookContext): Promise<Record<string, unknown>[]>;
  /** The body of a single-record response (without `error`); default `{data: entry}`. */
  single?(record: R, ctx: HookContext): Awaitable<Record<string, unknown>>;
  /** The body of a create response (without `error`); default `{id}`. */
  created?(record: R, ctx: HookContext, extra: Record<string, unknown>): Awaitable<Record<string, unknown>>;
  /** The body of an update response (without `error`); default `{message}`. */
  updated?(record: R, ctx: HookContext): Awaitable<Record<string, unknown>>;
  /**
   * What a list's query asks beyond `q` and paging: conditions, an order, a search (`q` takes its
   * place), and for an owned row another owner's records or every owner's (an admin's filter)
   * instead of the user's (throws ApiError on a bad value).
   */
  listQuery?(query: Record<string, string | undefined>, ctx: HookContext): { conditions?: Condition[]; sort?: Sort; search?: Where['search']; owner?: number | 'any' };
  /**
   * Checks what the schema cannot (uniqueness, references) and turns validated input into the
   * fields to store. `existing` is set on update. Throws ApiError. `extra` carries values only
   * for the response (a generated key).
   */
  prepare?(input: Record<string, unknown>, ctx: HookContext, existing?: R): Promise<Prepared> | Prepared;
  /**
   * For a row whose `prepare` answers an equal record instead of a new one (`existing`): the key
   * two create inputs share when the second would be answered with the first's record, or null.
   * A bulk create answers an item that an earlier item of the same request has the key of with that
   * item's record, as two creates one after the other would.
   */
  duplicateKey?(input: Record<string, unknown>, fields: Record<string, unknown>, ctx: HookContext): string | null;
  /**
   * Checks that must see the very latest data (uniqueness), run inside the write transaction so
   * two concurrent requests cannot both pass. Throws ApiError.
   */
  check?(fields: Record<string, unknown>, ctx: HookContext, tx: Tx, existing?: R): Awaitable<void>;
  /** Removes what refers to a deleted record (cascade), inside the same transaction. */
  onDelete?(tx: Tx, record: R, ctx: HookContext): Awaitable<void>;
  /** Runs once a delete is committed, before it is answered (a revoked key waits until no process can trust it). */
  deleted?(record: R, ctx: HookContext): Awaitable<void>;
}

/** The event types of a row's creates, updates and deletes, and what an event says of the record. */
export interface RowEvents<R extends StoredRecord = StoredRecord> {
  created?: string;
  updated?: string;
  deleted?: string;
  /** The event's `data`: the record as receivers see it (no secrets), read inside the write's transaction. */
  data(record: R, reads: StoreReads, config: Config): Awaitable<Record<string, unknown>>;
}

/** What `prepare` returns: fields to store and values for the response only. */
export interface Prepared {
  fields: Record<string, unknown>;
  extra?: Record<string, unknown>;
  /** On create: an equal record that already exists, answered instead of storing a duplicate. */
  existing?: StoredRecord;
}

/** Declares a row of the resource table: hooks are typed with the row's own record type inside, the table sees a plain row. */
export function defineResource<F extends Fields, R extends StoredRecord = StoredRecord>(row: Resource<F, R>): Resource {
  // Hooks take R where the table passes StoredRecord; the store only hands a row its own collection's records.
  return row as unknown as Resource;
}

/** The create schema of a row: required fields as they are, the others optional with their defaults. */
export function createSchema(row: Resource): v.GenericSchema<unknown, Record<string, unknown>> {
  const required = new Set<string>(row.create?.required ?? []);
  const defaults = (row.create?.defaults ?? {}) as Record<string, unknown>;
  const entries = Object.entries(row.fields).map(([k, s]) => [k, required.has(k) ? s : v.optional(s, defaults[k] as never)]);
  return v.object(Object.fromEntries(entries)) as never;
}

/** The update schema of a row: the update fields, all optional but the required ones, no defaults. */
export function updateSchema(row: Resource): v.GenericSchema<unknown, Record<string, unknown>> {
  const required = new Set<string>(row.update?.required ?? []);
  const names = row.update?.fields ?? Object.keys(row.fields);
  const entries = names.map((k) => {
    const s = row.fields[k] as v.GenericSchema;
    return [k, required.has(k) ? s : v.optional(s)];
  });
  return v.object(Object.fromEntries(entries)) as never;
}

// Each row's required names per kind, made once (a bulk request asks a thousand times).
const requiredNames = new WeakMap<Resource, Record<'create' | 'update', ReadonlySet<string>>>();
function requiredOf(row: Resource, kind: 'create' | 'update'): ReadonlySet<string> {
  let names = requiredNames.get(row);
  if (!names) requiredNames.set(row, (names = { create: new Set(row.create?.required ?? []), update: new Set(row.update?.required ?? []) }));
  return names[kind];
}

/** The TypeScript type of a row's create input. */
export type CreateInput<F extends Fields> = { [K in keyof F]?: v.InferOutput<F[K]> };

// What PHP clients send for a field they leave out ("domain": false).
const EMPTY: ReadonlySet<unknown> = new Set([false, '', null]);

/**
 * A link-API body with "empty means absent" applied, as the real product reads it: an optional
 * field holding `false`, `""` or `null` that its own schema refuses is dropped, as if not sent.
 * A value the field takes (`public: false`, `password: ""`) is kept, and required fields are left
 * alone, so a wrong type where a value is needed is still an error.
 */
export function withoutEmptyOptionals(row: Resource, kind: 'create' | 'update', body: Record<string, unknown>): Record<string, unknown> {
  const required = requiredOf(row, kind);
  let out = body;
  // for…in, not Object.entries: no [key, value] array per field of every item of a bulk request.
  for (const k in body) {
    const value = body[k];
    if (!EMPTY.has(value) || !Object.hasOwn(body, k)) continue;
    const field = row.fields[k];
    if (!field || required.has(k) || v.is(field, value)) continue;
    if (out === body) out = { ...body };
    delete out[k];
  }
  return out;
}
