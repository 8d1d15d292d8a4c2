import type { StoredRecord } from '../store.ts';
import type { TablePlan } from './tables.ts';
import { encodeJson, encodeText, storableJson } from './text-codec.ts';

/** A collection row as read: the id and owner columns and the other fields. */
export interface Row {
  id: number;
  user_id: number | null;
  data: Record<string, unknown>;
}

/** The columns every read selects, from a table aliased `t`. */
export const ROW_COLUMNS = 't.id, t.user_id, t.data';

/** The record a row holds: id, owner (when set), fields. */
export function recordOf<T extends StoredRecord>(row: Row): T {
  const record: StoredRecord = { id: row.id, ...(row.user_id === null ? {} : { userId: row.user_id }) };
  for (const [k, v] of Object.entries(row.data)) if (k !== 'id') record[k] = v;
  return record as T;
}

/** What a write stores of a record: owner column, the rest as jsonb text, each index key (computed here, in JavaScript). */
export interface RowValues {
  userId: number | null;
  data: string;
  keys: (string | null)[];
}

/** An index key as its column holds it (null: not indexed). */
export function keyText(key: string | null | undefined): string | null {
  return key === null || key === undefined ? null : encodeText(String(key));
}

/**
 * `values` as a PostgreSQL array literal, as the driver would write it for a JS array (null and
 * undefined: NULL), but without its two regular expressions per element: a bulk create sends
 * arrays of a thousand keys several times.
 */
export function arrayLiteral(values: readonly (string | number | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else out += v.includes('"') || v.includes('\\') ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return `${out}}`;
}

/**
 * A new record of `fields` under id 0 (the caller numbers it), its owner right after the id as a
 * read gives it back (recordOf), and its column values: the data column is the record's own JSON
 * with the id and owner cut off, so no second object is made to be stringified (a thousand per
 * bulk create). Records JSON would not store as it is (NUL, lone surrogates) go rowValues' way.
 */
export function newRow(plan: TablePlan, fields: object): { record: StoredRecord; values: RowValues } {
  const userId = (fields as { userId?: unknown }).userId;
  const owned = Number.isSafeInteger(userId);
  const record = (owned ? Object.assign({ id: 0, userId }, fields, { id: 0 }) : Object.assign({ id: 0 }, fields, { id: 0 })) as StoredRecord;
  const json = JSON.stringify(record);
  const head = owned ? `{"id":0,"userId":${userId as number}` : '{"id":0';
  const data = json.length === head.length + 1 ? '{}' : `{${json.slice(head.length + 1)}`;
  if (!json.startsWith(head) || (json.length > head.length + 1 && json[head.length] !== ',') || !storableJson(data)) return { record, values: rowValues(plan, record) };
  return { record, values: { userId: owned ? (userId as number) : null, data, keys: plan.keys.map((k) => keyText(k.key(record))) } };
}

/** The column values of `record` in `plan`'s table. */
export function rowValues(plan: TablePlan, record: StoredRecord): RowValues {
  // An owner that is no integer (null) stays a field, so it reads back as it was written.
  const owned = Number.isSafeInteger(record.userId);
  // Not Object.entries: it makes a [key, value] array per field, a thousand records' worth per bulk create.
  const data: Record<string, unknown> = {};
  for (const k in record) if (k !== 'id' && !(owned && k === 'userId') && Object.hasOwn(record, k)) data[k] = record[k];
  const keys = plan.keys.map((k) => keyText(k.key(record)));
  return { userId: owned ? (record.userId as number) : null, data: encodeJson(data), keys };
}
