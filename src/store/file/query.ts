import type { Condition, ListQuery, Sort, StoredRecord, Where } from '../store.ts';

/** Whether a record meets one condition. */
function meets(record: StoredRecord, c: Condition): boolean {
  const value = record[c.field];
  if ('equals' in c) return (value ?? null) === c.equals;
  if ('equalsIgnoringCase' in c) return typeof value === 'string' && value.toLowerCase() === c.equalsIgnoringCase.toLowerCase();
  if ('below' in c) return typeof value === 'number' && value < c.below;
  if ('present' in c) return value !== undefined && value !== null;
  return Array.isArray(value) && value.includes(c.holds);
}

/** A predicate for the records `where` covers (owner and ids are narrowed by the caller's maps first). */
export function matcher(where: Where): ((record: StoredRecord) => boolean) | null {
  const conditions = where.conditions ?? [];
  const text = where.search?.text.toLowerCase();
  const fields = where.search?.fields ?? [];
  const ids = where.ids ? new Set(where.ids) : null;
  if (conditions.length === 0 && !text && !ids) return null;
  return (r) => {
    if (ids && !ids.has(r.id)) return false;
    for (const c of conditions) if (!meets(r, c)) return false;
    if (text) return fields.some((f) => String(r[f] ?? '').toLowerCase().includes(text));
    return true;
  };
}

/** Orders records (in place) by a field, or by a number per record (counter totals); ties by id in the same direction. */
export function sortRecords(records: StoredRecord[], sort: Sort, counted?: (r: StoredRecord) => number): StoredRecord[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  const keyOf = 'field' in sort ? (r: StoredRecord) => r[sort.field] : (r: StoredRecord) => counted?.(r) ?? 0;
  const keys = new Map(records.map((r) => [r.id, keyOf(r)]));
  return records.sort((a, b) => sign * (compareValues(keys.get(a.id), keys.get(b.id)) || a.id - b.id));
}

// Numbers as numbers, everything else as text (absent as ''), as the analytics list always sorted.
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = typeof a === 'number' ? a : String(a ?? '');
  const y = typeof b === 'number' ? b : String(b ?? '');
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The slice a query asks for. */
export function sliceOf<T>(records: readonly T[], query: ListQuery): T[] {
  const from = Math.max(0, query.offset ?? 0);
  return records.slice(from, query.limit === undefined ? undefined : from + Math.max(0, query.limit));
}
