import { cappedTotal, countCapped } from '../store.ts';
import type { Found, ListQuery, StoredRecord, Where } from '../store.ts';
import { orderSql, Params, sliceSql, whereSql } from './query-sql.ts';
import { arrayLiteral, recordOf, ROW_COLUMNS } from './rows.ts';
import type { Row } from './rows.ts';
import type { TablePlan } from './tables.ts';
import { encodeText } from './text-codec.ts';

/** Something that runs a statement: the pool (autocommit reads) or a transaction's client. */
export type Db = <R extends object = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<{ rows: R[]; rowCount: number | null }>;

/** One record by id. */
export async function getRecord<T extends StoredRecord>(db: Db, plan: TablePlan, id: number, forUpdate = false): Promise<T | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const { rows } = await db<Row>(`SELECT ${ROW_COLUMNS} FROM ${plan.table} t WHERE t.id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? recordOf<T>(rows[0]) : undefined;
}

/**
 * The record with `key` in an index. A plain (non-unique) index may hold the key more than once:
 * the highest id wins, where the file store answers the record written last (the same record
 * unless an older one was rewritten since).
 */
export async function lookupRecord<T extends StoredRecord>(db: Db, plan: TablePlan, index: string, key: string): Promise<T | undefined> {
  const column = plan.byIndex.get(index)?.column;
  if (!column) throw new Error(`unknown index ${plan.collection}.${index}`);
  const { rows } = await db<Row>(`SELECT ${ROW_COLUMNS} FROM ${plan.table} t WHERE t."${column}" = $1 ORDER BY t.id DESC LIMIT 1`, [encodeText(String(key))]);
  return rows[0] ? recordOf<T>(rows[0]) : undefined;
}

/** The records of these ids that exist, by id, in one statement. */
export async function getRecords<T extends StoredRecord>(db: Db, plan: TablePlan, ids: readonly number[], forUpdate = false): Promise<Map<number, T>> {
  const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id)))];
  const out = new Map<number, T>();
  if (wanted.length === 0) return out;
  // Locked in id order: two such reads of overlapping ids cannot each wait for a row the other holds.
  const lock = forUpdate ? ' ORDER BY t.id FOR UPDATE' : '';
  const { rows } = await db<Row>(`SELECT ${ROW_COLUMNS} FROM ${plan.table} t WHERE t.id = ANY($1::bigint[])${lock}`, [wanted]);
  for (const row of rows) out.set(Number(row.id), recordOf<T>(row));
  return out;
}

/** The records of several keys of an index, by key, in one statement; per key the one `lookupRecord` answers (the highest id). */
export async function lookupRecords<T extends StoredRecord>(db: Db, plan: TablePlan, index: string, keys: readonly string[]): Promise<Map<string, T>> {
  const column = plan.byIndex.get(index)?.column;
  if (!column) throw new Error(`unknown index ${plan.collection}.${index}`);
  const out = new Map<string, T>();
  if (keys.length === 0) return out;
  // Keys are stored encoded: the rows answer with the encoded key, mapped back to the one asked for.
  const asked = new Map(keys.map((k) => [encodeText(String(k)), k]));
  const { rows } = await db<Row & { k: string }>(
    `SELECT DISTINCT ON (t."${column}") t."${column}" AS k, ${ROW_COLUMNS} FROM ${plan.table} t WHERE t."${column}" = ANY($1::text[]) ORDER BY t."${column}", t.id DESC`,
    [arrayLiteral([...asked.keys()])],
  );
  for (const row of rows) {
    const key = asked.get(row.k);
    if (key !== undefined) out.set(key, recordOf<T>(row));
  }
  return out;
}

/**
 * The record with the smallest `index` key at most `upTo` (then the smallest id), locked FOR UPDATE;
 * rows other transactions hold locked are skipped (SKIP LOCKED), so concurrent takers get different ones.
 */
export async function firstDueRecord<T extends StoredRecord>(db: Db, plan: TablePlan, index: string, upTo: string): Promise<T | undefined> {
  const column = plan.byIndex.get(index)?.column;
  if (!column) throw new Error(`unknown index ${plan.collection}.${index}`);
  const { rows } = await db<Row>(
    `SELECT ${ROW_COLUMNS} FROM ${plan.table} t WHERE t."${column}" <= $1 ORDER BY t."${column}", t.id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [encodeText(upTo)],
  );
  return rows[0] ? recordOf<T>(rows[0]) : undefined;
}

/**
 * The statement of one page of a query's records (findRecords sends it; the tests EXPLAIN it), with
 * `column` (made with the statement's parameters) as one more column of each row when given.
 */
export function pageStatement(plan: TablePlan, query: ListQuery, column?: (p: Params) => string): { text: string; values: unknown[] } {
  const p = new Params();
  const extra = column ? `, ${column(p)}` : '';
  const where = whereSql(query, p, plan);
  const { join, order } = orderSql(query.sort ?? { field: 'id', direction: 'desc' }, p, plan, query.owner);
  const slice = sliceSql(query, p);
  return { text: `SELECT ${ROW_COLUMNS}${extra} FROM ${plan.table} t ${join} WHERE ${where} ORDER BY ${order}${slice}`, values: p.values };
}

/**
 * A page of the records a query matches, and how many it matched in all. A total the kept counts
 * answer (a sum of a few rows) rides in the page's statement as one more column, an uncorrelated
 * subquery PostgreSQL runs once: one round trip and one connection where two cost PostgreSQL ~25 µs
 * more of its CPU a list; only an empty page asks for it again. Any other total (a search, a filter) is a count of rows
 * sent beside the page, on another connection, so the two run at once: one statement with `count(*)
 * OVER ()` read and sorted every matching row (a 25-record page of 10,000 took 17 ms); the page
 * alone walks the (user_id, id) index for offset + limit rows and the count is an index-only scan.
 * Without a limit, from the start, the page is the total.
 */
export async function findRecords<T extends StoredRecord>(db: Db, plan: TablePlan, query: ListQuery): Promise<Found<T>> {
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const limit = query.limit === undefined ? null : Math.max(0, Math.floor(query.limit));
  // Without a limit, from the start, the page is all there is: no count needed then.
  const wanted = !(limit === null && offset === 0);
  if (wanted && keptCountAnswers(plan, query)) {
    const statement = pageStatement(plan, query, (p) => `(${keptCountSql(plan, query.owner, p)}) AS total`);
    const { rows } = await db<Row & { total: number }>(statement.text, statement.values);
    const total = rows.length > 0 ? Number(rows[0]!.total) : await keptCount(db, plan, query.owner);
    return { ...cappedTotal(total, query), items: rows.map((r) => recordOf<T>(r)) };
  }
  const statement = pageStatement(plan, query);
  const page = db<Row>(statement.text, statement.values);
  const counted = wanted ? countRecords(db, plan, query, query.countUpTo) : null;
  const [{ rows }, total] = await Promise.all([page, counted]);
  return { ...cappedTotal(total ?? rows.length, query), items: rows.map((r) => recordOf<T>(r)) };
}

/**
 * Whether the kept counts answer `where`: everything, or everything of one owner. Totals of whole
 * tables and of one owner's records come from `kept_counts` (migration 006; folded by
 * kept-counts.ts), a sum of a few rows the database's own triggers add in every writing
 * transaction, instead of a `count(*)` that scans every row the owner has. Narrower questions
 * (ids, conditions, search) still count rows.
 */
export function keptCountAnswers(plan: TablePlan, where: Where): boolean {
  if (!plan.counted || where.ids !== undefined || (where.conditions?.length ?? 0) > 0 || where.search?.text) return false;
  // Owner 0 in kept_counts holds the records without one, which `user_id = 0` would not match.
  return where.owner === undefined || (Number.isSafeInteger(where.owner) && where.owner > 0);
}

/** The statement of how many records the table (or one owner in it) has, with its parameters in `p`. */
function keptCountSql(plan: TablePlan, owner: number | undefined, p: Params): string {
  const byOwner = owner === undefined ? '' : ` AND owner = ${p.add(owner)}::bigint`;
  return `SELECT coalesce(sum(n), 0)::bigint AS n FROM kept_counts WHERE tbl = ${p.add(plan.collection)}${byOwner}`;
}

/** How many records the table (or one owner in it) has. */
export async function keptCount(db: Db, plan: TablePlan, owner: number | undefined): Promise<number> {
  const p = new Params();
  const { rows } = await db<{ n: number }>(keptCountSql(plan, owner, p), p.values);
  return rows[0]?.n ?? 0;
}

/**
 * How many records match: the kept count for a whole table or owner, else a count of the rows;
 * with `upTo` (a capped query: countCapped), at most upTo + 1 of them, enough to tell "more".
 */
export async function countRecords(db: Db, plan: TablePlan, where: Where, upTo?: number): Promise<number> {
  if (keptCountAnswers(plan, where)) return keptCount(db, plan, where.owner);
  const p = new Params();
  const sql = whereSql(where, p, plan);
  const capped = upTo !== undefined && countCapped(where);
  const from = capped ? `(SELECT 1 FROM ${plan.table} t WHERE ${sql} LIMIT ${p.add(Math.max(0, Math.floor(upTo)) + 1)}::bigint) s` : `${plan.table} t WHERE ${sql}`;
  const { rows } = await db<{ n: number }>(`SELECT count(*) AS n FROM ${from}`, p.values);
  return rows[0]?.n ?? 0;
}

/** Every record of a table in id order, a batch at a time (keyset pages on the primary key). */
export async function* scanRecords<T extends StoredRecord>(db: Db, plan: TablePlan, batch: number): AsyncIterable<T[]> {
  let after = 0;
  for (;;) {
    const { rows } = await db<Row>(`SELECT ${ROW_COLUMNS} FROM ${plan.table} t WHERE t.id > $1 ORDER BY t.id LIMIT $2`, [after, batch]);
    if (rows.length === 0) return;
    const records = rows.map((r) => recordOf<T>(r));
    yield records;
    after = records.at(-1)!.id;
    if (records.length < batch) return;
  }
}
