/** A record as every store keeps it, and how a collection is kept: the leaf of the storage interface (store.ts). */

/** A stored record: an integer id, an optional owner, and plain JSON fields. */
export interface StoredRecord {
  id: number;
  userId?: number;
  [field: string]: unknown;
}

/** How the store keeps one collection: its lookups by something other than the id. */
export interface CollectionSchema {
  name: string;
  /**
   * Secondary indexes: name → key of a record (null: not indexed). A unique index refuses a second
   * record with the same key (ConflictError); a plain one finds the record last written with that key.
   */
  indexes?: Record<string, { key: (record: StoredRecord) => string | null; unique?: boolean }>;
}
