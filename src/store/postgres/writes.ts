import { ConflictError } from '../store.ts';
import type { RecordChange, StoredRecord, Where } from '../store.ts';
import { putStatsDays } from './pg-counters.ts';
import { Params, whereSql } from './query-sql.ts';
import type { Db } from './reads.ts';
import { getRecord, getRecords } from './reads.ts';
import { arrayLiteral, keyText, newRow, rowValues } from './rows.ts';
import type { RowValues } from './rows.ts';
import { STATS } from './tables.ts';
import type { TablePlan } from './tables.ts';

/** The table a collection's ids come from (stats days are numbered by stat_days). */
export function idTable(plan: TablePlan): string {
  return plan.collection === STATS ? 'stat_days' : plan.collection;
}

/**
 * Moves the id sequence past `maxId` when it is behind, so the next insert continues after a
 * record stored under its own id. Sequences are outside transactions: an id is never handed out twice.
 */
export async function advanceSequence(db: Db, plan: TablePlan, maxId: number): Promise<void> {
  await db(
    `SELECT setval(s.seq, $2::bigint) FROM (SELECT pg_get_serial_sequence($1, 'id')::regclass AS seq) s
     WHERE coalesce(pg_sequence_last_value(s.seq), 0) < $2::bigint`,
    [idTable(plan), maxId],
  );
}

/** Sets the sequence so the next id is `maxId + 1` (1 for an empty table), as a replaced collection's ids continue. */
export async function resetSequence(db: Db, plan: TablePlan): Promise<void> {
  const table = idTable(plan);
  await db(`SELECT CASE WHEN max(id) IS NULL THEN setval(pg_get_serial_sequence($1, 'id'), 1, false) ELSE setval(pg_get_serial_sequence($1, 'id'), max(id)) END FROM "${table}"`, [table]);
}

// Columns and placeholders of a row write, after `first` fixed ones.
function keyColumns(plan: TablePlan): string {
  return plan.keys.map((k) => `, "${k.column}"`).join('');
}

/** Adds records under their own ids, many per statement; replaces those whose id is taken. */
export async function putRecords(db: Db, plan: TablePlan, records: readonly StoredRecord[]): Promise<void> {
  if (records.length === 0) return;
  if (plan.collection === STATS) await putStatsDays(db, records);
  else {
    const values = records.map((r) => rowValues(plan, r));
    const casts = plan.keys.map((_, i) => `, $${i + 4}::text[]`).join('');
    const updates = plan.keys.map((k) => `, "${k.column}" = excluded."${k.column}"`).join('');
    await db(
      `INSERT INTO ${plan.table} (id, user_id, data${keyColumns(plan)})
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::jsonb[]${casts})
       ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, data = excluded.data${updates}`,
      [records.map((r) => r.id), values.map((v) => v.userId), values.map((v) => v.data), ...plan.keys.map((_, i) => values.map((v) => v.keys[i]))],
    );
  }
  await advanceSequence(db, plan, records.reduce((max, r) => Math.max(max, r.id), 0));
}

/**
 * Whether `data`'s index keys are the same whatever id it gets (true of every index today): then
 * the row is numbered by the database as it is inserted, one statement instead of nextval + INSERT.
 * Checked on the record itself, with two ids, so an index whose key uses the id takes the long way.
 */
function keysIgnoreId(plan: TablePlan, data: object): boolean {
  if (plan.collection === STATS) return false;
  const a = { ...data, id: 0 } as StoredRecord;
  const b = { ...data, id: -1 } as StoredRecord;
  return plan.keys.every((k) => k.key(a) === k.key(b));
}

/**
 * Whether inserting `data` must run under a savepoint so that a unique conflict leaves the
 * transaction usable: not when insertRecord can insert it with ON CONFLICT DO NOTHING (a conflict
 * then aborts nothing), which saves the SAVEPOINT and RELEASE round trips of every create.
 */
export function insertNeedsSavepoint(plan: TablePlan, data: object): boolean {
  return plan.hasUnique && !keysIgnoreId(plan, data);
}

/** The unique index of `plan` whose key in `keys` another row holds, if any. */
async function takenIndex(db: Db, plan: TablePlan, keys: readonly (string | null)[]): Promise<string | undefined> {
  for (const [i, k] of plan.keys.entries()) {
    if (!k.unique || keys[i] === null) continue;
    const { rows } = await db(`SELECT 1 FROM ${plan.table} WHERE "${k.column}" = $1 LIMIT 1`, [keys[i]]);
    if (rows.length > 0) return k.index;
  }
  return undefined;
}

/**
 * One INSERT numbered by the table's identity. A unique key another row holds inserts nothing
 * (ON CONFLICT DO NOTHING, which waits for a concurrent insert of the key like a unique index
 * does): the index is then found and reported as ConflictError, the transaction still usable.
 */
async function insertNumbered<T extends object>(db: Db, plan: TablePlan, data: T): Promise<T & { id: number }> {
  const v = rowValues(plan, Object.assign({ id: 0 }, data, { id: 0 }) as StoredRecord);
  const placeholders = plan.keys.map((_, i) => `, $${i + 3}`).join('');
  const onConflict = plan.hasUnique ? ' ON CONFLICT DO NOTHING' : '';
  // The row that held the key may be gone by the time it is looked for: then the insert is tried again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await db<{ id: number }>(`INSERT INTO ${plan.table} (user_id, data${keyColumns(plan)}) VALUES ($1, $2${placeholders})${onConflict} RETURNING id`, [v.userId, v.data, ...v.keys]);
    if (rows[0]) {
      const id = rows[0].id;
      return Object.assign({ id }, data, { id }) as T & { id: number };
    }
    const index = await takenIndex(db, plan, v.keys);
    if (index) throw new ConflictError(plan.collection, index);
  }
  throw new Error(`${plan.collection}: the insert kept conflicting with a row that was gone when looked for`);
}

/**
 * Adds records in one statement, in the order given, numbered from the sequence first so each
 * answer is matched to its record. A record whose unique key an earlier one of the call holds is
 * not sent. One whose key another row holds fails the statement (a unique violation: ConflictError),
 * unless `skipTaken`: then it is skipped (ON CONFLICT DO NOTHING aborts nothing, but it probes every
 * unique index for each row before inserting it, ~5% of PostgreSQL's CPU for a bulk create of links,
 * where a plain insert finds a clash while it inserts the row's index entries anyway).
 * Per record: the stored record, or null when it was not stored (the caller inserts it alone to
 * learn why). null for the whole call when the records cannot go together: statistics days, or
 * an index key that changes with the id (keysIgnoreId, checked on each record). A trigger's error
 * (migration 009's shared aliases) fails the whole statement: run it under a savepoint.
 */
export async function insertRecords<T extends object>(db: Db, plan: TablePlan, data: readonly T[], skipTaken = true): Promise<((T & { id: number }) | null)[] | null> {
  if (plan.collection === STATS) return null;
  const out: ((T & { id: number }) | null)[] = data.map(() => null);
  const seen = plan.keys.map(() => new Set<string>());
  const sent: { at: number; values: RowValues; record: StoredRecord }[] = [];
  for (const [at, d] of data.entries()) {
    const { record, values } = newRow(plan, d);
    record.id = -1;
    if (!plan.keys.every((k, i) => keyText(k.key(record)) === values.keys[i])) return null;
    const clash = plan.keys.some((k, i) => k.unique && values.keys[i] !== null && seen[i]!.has(values.keys[i]!));
    if (clash) continue;
    plan.keys.forEach((k, i) => k.unique && values.keys[i] !== null && seen[i]!.add(values.keys[i]!));
    sent.push({ at, values, record });
  }
  if (sent.length === 0) return out;
  // The sequence is looked up once: named in nextval's argument, it was looked up for every id (3.5 of
  // the 3.9 ms that 1,000 ids took).
  const { rows: numbered } = await db<{ id: number }>(
    `WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence($1, 'id')::regclass AS s) SELECT nextval(s.s) AS id FROM s, generate_series(1, $2)`,
    [idTable(plan), sent.length],
  );
  const ids = numbered.map((r) => Number(r.id));
  // The records' fields as one JSON array (a text array would have the driver escape every quote in them).
  const rows = plan.keys.map((_, i) => `, unnest($${i + 4}::text[])`).join('');
  const onConflict = plan.hasUnique && skipTaken ? ' ON CONFLICT DO NOTHING' : '';
  const { rows: inserted } = await db<{ id: number }>(
    `INSERT INTO ${plan.table} (id, user_id, data${keyColumns(plan)}) SELECT * FROM ROWS FROM (unnest($1::bigint[]), unnest($2::bigint[]), jsonb_array_elements($3::jsonb)${rows})${onConflict} RETURNING id`,
    [arrayLiteral(ids), arrayLiteral(sent.map((r) => r.values.userId)), `[${sent.map((r) => r.values.data).join(',')}]`, ...plan.keys.map((_, i) => arrayLiteral(sent.map((r) => r.values.keys[i])))],
  );
  const stored = new Set(inserted.map((r) => Number(r.id)));
  // The copy made for the keys becomes the stored record: its fields are `data[at]`'s, with the id first.
  sent.forEach(({ at, record }, i) => {
    const id = ids[i]!;
    if (stored.has(id)) out[at] = Object.assign(record, { id }) as unknown as T & { id: number };
  });
  return out;
}

/** Adds a record under the collection's next id; its index keys are computed from the record with that id. */
export async function insertRecord<T extends object>(db: Db, plan: TablePlan, data: T): Promise<T & { id: number }> {
  if (keysIgnoreId(plan, data)) return insertNumbered(db, plan, data);
  const { rows } = await db<{ id: number }>(`SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id`, [idTable(plan)]);
  const id = rows[0]!.id;
  const record = Object.assign({ id }, data, { id }) as unknown as StoredRecord;
  if (plan.collection === STATS) await putStatsDays(db, [record]);
  else {
    const v = rowValues(plan, record);
    const placeholders = plan.keys.map((_, i) => `, $${i + 4}`).join('');
    await db(`INSERT INTO ${plan.table} (id, user_id, data${keyColumns(plan)}) VALUES ($1, $2, $3${placeholders})`, [id, v.userId, v.data, ...v.keys]);
  }
  return record as T & { id: number };
}

/** Replaces fields of a record (locked first, so concurrent updates of it queue); undefined when it is missing. */
export async function updateRecord<T extends StoredRecord>(db: Db, plan: TablePlan, id: number, patch: Partial<T>): Promise<T | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  // A table's row is locked and read in one statement; a statistics day (a view) is locked in its table first.
  if (plan.collection === STATS) await db('SELECT 1 FROM stat_days WHERE id = $1 FOR UPDATE', [id]);
  const before = await getRecord<T>(db, plan, id, plan.collection !== STATS);
  if (!before) return undefined;
  const after = { ...before, ...patch, id } as T;
  if (plan.collection === STATS) await putStatsDays(db, [after]);
  else {
    const v = rowValues(plan, after);
    const sets = plan.keys.map((k, i) => `, "${k.column}" = $${i + 4}`).join('');
    await db(`UPDATE ${plan.table} SET user_id = $2, data = $3${sets} WHERE id = $1`, [id, v.userId, v.data, ...v.keys]);
  }
  return after;
}

/**
 * Replaces fields of several records, in two statements: the records locked and read (in id order),
 * then one UPDATE of them all. Per change, the new record, or undefined when it is missing; changes
 * of the same record apply one after another, in the order given.
 */
export async function updateRecords<T extends StoredRecord>(db: Db, plan: TablePlan, changes: readonly RecordChange<T>[]): Promise<(T | undefined)[]> {
  if (plan.collection === STATS) {
    const out: (T | undefined)[] = [];
    for (const { id, patch } of changes) out.push(await updateRecord<T>(db, plan, id, patch));
    return out;
  }
  const before = await getRecords<T>(db, plan, changes.map((c) => c.id), true);
  const after = new Map<number, T>();
  const out = changes.map(({ id, patch }) => {
    const current = after.get(id) ?? before.get(id);
    if (!current) return undefined;
    const next = { ...current, ...patch, id } as T;
    after.set(id, next);
    return next;
  });
  if (after.size === 0) return out;
  const rows = [...after.values()].map((r) => ({ id: r.id, ...rowValues(plan, r) }));
  const keys = plan.keys.map((_, i) => `, unnest($${i + 4}::text[])`).join('');
  const names = plan.keys.map((_, i) => `, k${i}`).join('');
  const sets = plan.keys.map((k, i) => `, "${k.column}" = v.k${i}`).join('');
  await db(
    `UPDATE ${plan.table} t SET user_id = v.u, data = v.d${sets}
     FROM ROWS FROM (unnest($1::bigint[]), unnest($2::bigint[]), jsonb_array_elements($3::jsonb)${keys}) AS v(id, u, d${names}) WHERE t.id = v.id`,
    [arrayLiteral(rows.map((r) => r.id)), arrayLiteral(rows.map((r) => r.userId)), `[${rows.map((r) => r.data).join(',')}]`, ...plan.keys.map((_, i) => arrayLiteral(rows.map((r) => r.keys[i])))],
  );
  return out;
}

/** Removes a record; false when it was missing. */
export async function removeRecord(db: Db, plan: TablePlan, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id)) return false;
  const { rowCount } = await db(`DELETE FROM "${idTable(plan)}" WHERE id = $1`, [id]);
  return (rowCount ?? 0) > 0;
}

/** Removes the records `where` matches; how many. */
export async function removeWhere(db: Db, plan: TablePlan, where: Where): Promise<number> {
  const p = new Params();
  const sql = whereSql(where, p, plan);
  const target = plan.collection === STATS ? `stat_days WHERE id IN (SELECT t.id FROM stats t WHERE ${sql})` : `${plan.table} t WHERE ${sql}`;
  const { rowCount } = await db(`DELETE FROM ${target}`, p.values);
  return rowCount ?? 0;
}
