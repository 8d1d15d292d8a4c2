import { withOutbox } from '../store.ts';
import type { CollectionSchema, StoredRecord } from '../store.ts';
import type { ConstraintMap } from './errors.ts';

/** The collection whose records are statistics days, kept in stat_days and stat_counts (read through the `stats` view). */
export const STATS = 'stats';

// The users table's real columns, each unique: an index of that name in the schema gives its key.
const USER_COLUMNS: Record<string, { column: string; key: (r: StoredRecord) => string | null }> = {
  username: { column: 'username', key: (r) => (typeof r.username === 'string' ? r.username.toLowerCase() : null) },
  email: { column: 'email', key: (r) => (typeof r.email === 'string' ? r.email.toLowerCase() : null) },
  keyHash: { column: 'key_hash', key: (r) => (typeof r.keyHash === 'string' ? r.keyHash : null) },
};

/** One computed column of a table: the index it serves and how its key is computed from a record. */
export interface KeyColumn {
  index: string;
  column: string;
  unique: boolean;
  key: (record: StoredRecord) => string | null;
}

/** How a collection is kept: its table (quoted) and its computed key columns. */
export interface TablePlan {
  collection: string;
  /** The quoted table (or view) name. */
  table: string;
  keys: KeyColumn[];
  /** Index name → column, for lookups. */
  byIndex: ReadonlyMap<string, KeyColumn>;
  /** Whether a write can break a unique constraint (writes then run under a savepoint, so the error can be caught). */
  hasUnique: boolean;
  /** Whether the table's triggers keep its counts in kept_counts (migration 006; read from the catalog at open). */
  counted: boolean;
  /** A counter total kept per record in a table of its own, which a sort by that counter reads. */
  keptTotal?: KeptTotal;
  /** Searched fields whose joined text a trigram index serves (where pg_trgm is). */
  searchIndex?: readonly string[];
  /** Fields with an index of their own, by the condition it serves (migration 015); the SQL names them as the index does. */
  fieldIndexes?: Readonly<Record<string, 'equals' | 'holds'>>;
}

/** A counter's all-time total per record, kept by triggers in `table` (key → the record's id, user_id, total). */
export interface KeptTotal {
  counter: string;
  subjectPrefix: string;
  table: string;
  key: string;
  total: string;
}

// Migration 014: link_clicks, and the trigram index over these fields of links (in this order).
const KEPT_TOTALS: Readonly<Record<string, KeptTotal>> = { links: { counter: 'clicks', subjectPrefix: 'link:', table: 'link_clicks', key: 'link_id', total: 'clicks' } };
const SEARCH_INDEXES: Readonly<Record<string, readonly string[]>> = { links: ['url', 'alias', 'title'] };
// Migration 015: the fields of links that lists and reference clean-ups filter on, each indexed where it holds a value
// (url only on protected links: the one look-up by url, the same-link check of a protected create, also asks for a password).
const FIELD_INDEXES: Readonly<Record<string, Readonly<Record<string, 'equals' | 'holds'>>>> = {
  links: { url: 'equals', campaign: 'equals', domainId: 'equals', splashId: 'equals', overlayId: 'equals', channels: 'holds', pixels: 'holds' },
};

// Table names and key columns come from our own code, but they still end up in SQL text.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** `name` as a quoted identifier, after checking it is a plain one. */
export function ident(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** k_<index> in snake case: `keyHash` → k_key_hash. */
function keyColumnName(index: string): string {
  return `k_${index.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

/** The plan of every collection the server names, stats and the outbox's included. */
export function planTables(collections: readonly CollectionSchema[]): Map<string, TablePlan> {
  const plans = new Map<string, TablePlan>();
  const schemas = withOutbox(collections.some((c) => c.name === STATS) ? collections : [...collections, { name: STATS }]);
  for (const schema of schemas) {
    const keys: KeyColumn[] = Object.entries(schema.indexes ?? {}).map(([index, def]) => {
      const fixed = schema.name === 'users' ? USER_COLUMNS[index] : undefined;
      return { index, column: fixed?.column ?? keyColumnName(index), unique: (def.unique ?? false) || fixed !== undefined, key: def.key };
    });
    if (schema.name === 'users') {
      // The users table keeps these columns unique whether or not the server indexes them.
      for (const [index, fixed] of Object.entries(USER_COLUMNS)) {
        if (!keys.some((k) => k.index === index)) keys.push({ index, column: fixed.column, unique: true, key: fixed.key });
      }
    }
    if (schema.name === STATS && keys.length > 0) throw new Error('the stats collection cannot have indexes in PostgreSQL');
    for (const k of keys) ident(k.column);
    const kept = { ...(KEPT_TOTALS[schema.name] ? { keptTotal: KEPT_TOTALS[schema.name] } : {}), ...(SEARCH_INDEXES[schema.name] ? { searchIndex: SEARCH_INDEXES[schema.name] } : {}), ...(FIELD_INDEXES[schema.name] ? { fieldIndexes: FIELD_INDEXES[schema.name] } : {}) };
    plans.set(schema.name, { collection: schema.name, table: ident(schema.name), keys, byIndex: new Map(keys.map((k) => [k.index, k])), hasUnique: keys.some((k) => k.unique), counted: false, ...kept });
  }
  return plans;
}

/** Unique constraint name (`<table>_<column>_key`, as the migrations name them) → what it guards. */
export function constraintsOf(plans: ReadonlyMap<string, TablePlan>): ConstraintMap {
  const out = new Map<string, { collection: string; index: string }>();
  for (const plan of plans.values()) {
    for (const k of plan.keys) if (k.unique) out.set(`${plan.collection}_${k.column}_key`, { collection: plan.collection, index: k.index });
  }
  return out;
}

/** What the database has of our tables: columns per table, and the single columns under a unique constraint. */
export interface CatalogFacts {
  columns: Map<string, Set<string>>;
  uniqueColumns: Map<string, Set<string>>;
  /** Tables with all three kept-count triggers (insert, delete, move). */
  counted: Set<string>;
}

/** The plans, each marked with whether the database keeps its table's counts. */
export function withCounted(plans: ReadonlyMap<string, TablePlan>, facts: CatalogFacts): Map<string, TablePlan> {
  return new Map([...plans].map(([name, plan]) => [name, { ...plan, counted: facts.counted.has(plan.collection) }]));
}

/**
 * Why the migrated database cannot keep these collections (a missing migration), or null. Checked
 * at open, so a server whose resources gained an index refuses to start instead of failing later.
 */
export function mismatchOf(plans: ReadonlyMap<string, TablePlan>, facts: CatalogFacts): string | null {
  for (const plan of plans.values()) {
    const columns = facts.columns.get(plan.collection);
    if (!columns) return `the database has no table for the collection "${plan.collection}": a migration is missing`;
    for (const k of plan.keys) {
      if (!columns.has(k.column)) return `the table "${plan.collection}" has no column ${k.column} for the index "${k.index}": a migration is missing`;
      if (k.unique && !facts.uniqueColumns.get(plan.collection)?.has(k.column)) {
        return `the index "${plan.collection}.${k.index}" is unique in this server but not in the database: a migration is missing`;
      }
    }
  }
  return null;
}
