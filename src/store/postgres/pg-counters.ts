import type { CountsDelta, DayCounts, Labels, StoredRecord } from '../store.ts';
import { capPropertyDimensions, isPropertyDimension, PROPERTY_DIMENSION_PREFIX } from '../property-dimensions.ts';
import { jsonElements, Turns } from '../../turns.ts';
import { dropRealtimeIn } from './pg-realtime.ts';
import type { Db } from './reads.ts';
import { arrayLiteral } from './rows.ts';
import { decodeText, encodeText } from './text-codec.ts';

/** The label a dimension's new labels go under once it holds `maxLabels` distinct ones (as in the file store). */
export const OVERFLOW_LABEL = '(other)';

// Labels come from visitors ("__proto__"), so the maps must not inherit anything.
const labelMap = (): Labels => Object.create(null) as Labels;

/** One stat_counts row to add. */
interface CountRow {
  dayId: number;
  metric: string;
  label: string;
  total: boolean;
  n: number;
}

/** Rows per statement of upsertCounts, about: a busy second's flush carries tens of thousands. */
const ROWS_PER_STATEMENT = 4000;

/**
 * Adds rows; n is added, never read and written back, so concurrent flushes both count. The rows go
 * as JSON texts: a flush of a busy second carries tens of thousands, and the driver's array literals
 * (every element escaped in JavaScript) held the event loop for tens of milliseconds, where
 * JSON.stringify is native (texts are encoded first, so no NUL nor lone surrogate reaches json).
 * Rows of one (day, metric, label) are summed there, and with 'skip' a sum of zero (a visitor's count
 * taken back in the same flush) writes nothing: summing them here, under string keys, was most of a
 * flush's own CPU. A stored day put back as it was keeps its zeros.
 *
 * The rows are split among statements of about ROWS_PER_STATEMENT by day, so the rows of one day go
 * in one statement and are summed there, and their texts are made in slices (turns.ts): in one
 * piece, a busy second's 1.6 MB text held the event loop while it was made and again while the
 * driver wrote it. The day rows are locked first (addCountsIn), in one order; the link_clicks rows
 * each statement's trigger adds to are locked statement by statement, so two flushes of the same
 * links on different days (around midnight, an import) can deadlock, as migration 014 accepted:
 * PostgreSQL fails one and its flush is retried as the same batch.
 */
async function upsertCounts(db: Db, rows: readonly CountRow[], zeros: 'keep' | 'skip', turns = new Turns()): Promise<void> {
  if (rows.length === 0) return;
  const parts: CountRow[][] = Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, () => []);
  for (let i = 0; i < rows.length; i++) {
    if (i % 1024 === 0 && turns.due()) await turns.next();
    const r = rows[i]!;
    parts[r.dayId % parts.length]!.push(r);
  }
  for (const part of parts) {
    if (part.length === 0) continue;
    const json = await jsonElements(part, (r) => ({ d: r.dayId, m: encodeText(r.metric), l: encodeText(r.label), t: r.total, n: r.n }), turns);
    await db(
      `INSERT INTO stat_counts (day_id, metric, label, is_total, n)
       SELECT x.d, x.m, x.l, bool_or(x.t), sum(x.n) FROM json_to_recordset($1::json) AS x(d bigint, m text, l text, t boolean, n bigint)
       GROUP BY x.d, x.m, x.l${zeros === 'skip' ? ' HAVING sum(x.n) <> 0' : ''}
       ON CONFLICT (day_id, metric, label) DO UPDATE SET n = stat_counts.n + excluded.n`,
      [`[${json}]`],
    );
  }
}

const groupKey = (dayId: number, metric: string) => `${dayId}\u0000${metric}`;

/**
 * What the days of the deltas' dimensions already hold: per (day, metric), how many labels and which
 * of the labels the deltas bring (and '(other)'). Read under the day rows' locks, so the cap is exact.
 */
async function labelState(db: Db, wanted: Map<string, { dayId: number; metric: string; labels: Set<string> }>): Promise<Map<string, { size: number; known: Set<string> }>> {
  const state = new Map<string, { size: number; known: Set<string> }>();
  const days: number[] = [];
  const metrics: string[] = [];
  const labels: string[] = [];
  for (const [key, g] of wanted) {
    state.set(key, { size: 0, known: new Set() });
    for (const label of [...g.labels, OVERFLOW_LABEL]) {
      days.push(g.dayId);
      metrics.push(encodeText(g.metric));
      labels.push(encodeText(label));
    }
  }
  const known = await db<{ day_id: number; metric: string; label: string }>(
    `SELECT c.day_id, c.metric, c.label FROM stat_counts c
     JOIN (SELECT DISTINCT * FROM unnest($1::bigint[], $2::text[], $3::text[])) AS x(d, m, l) ON c.day_id = x.d AND c.metric = x.m AND c.label = x.l`,
    [days, metrics, labels],
  );
  for (const r of known.rows) state.get(groupKey(r.day_id, decodeText(r.metric)))?.known.add(decodeText(r.label));
  const groups = [...wanted.values()];
  const sizes = await db<{ day_id: number; metric: string; n: number }>(
    `SELECT c.day_id, c.metric, count(*) AS n FROM stat_counts c
     JOIN unnest($1::bigint[], $2::text[]) AS x(d, m) ON c.day_id = x.d AND c.metric = x.m GROUP BY c.day_id, c.metric`,
    [groups.map((g) => g.dayId), groups.map((g) => encodeText(g.metric))],
  );
  for (const r of sizes.rows) {
    const s = state.get(groupKey(r.day_id, decodeText(r.metric)));
    if (s) s.size = r.n;
  }
  return state;
}

/**
 * The (day, metric) groups that may reach `maxLabels` with this batch: those whose stored labels and
 * the batch's distinct ones together number more. Every other group takes all of its labels as they
 * are (even were each new, the cap is not reached), so only these need `labelState`: a flush of a
 * busy second then reads back a few rows instead of every label it carries. Read under the day
 * rows' locks, as labelState is.
 */
async function crowdedGroups(db: Db, wanted: Map<string, { dayId: number; metric: string; labels: Set<string> }>, maxLabels: number, turns: Turns): Promise<Set<string>> {
  const groups = await jsonElements([...wanted.values()], (g) => ({ d: g.dayId, m: encodeText(g.metric), k: g.labels.size }), turns);
  const { rows } = await db<{ day_id: number; metric: string }>(
    `SELECT x.d AS day_id, x.m AS metric FROM json_to_recordset($1::json) AS x(d bigint, m text, k int)
     WHERE x.k + (SELECT count(*) FROM stat_counts c WHERE c.day_id = x.d AND c.metric = x.m) > $2`,
    [`[${groups}]`, maxLabels],
  );
  return new Set(rows.map((r) => groupKey(r.day_id, decodeText(r.metric))));
}

/** How long a batch id is remembered: a flush retried later than this after an unanswered COMMIT may count twice. */
const BATCH_MEMORY = '1 day';

/**
 * Claims a flush's batch id in the current transaction: false when the batch was already stored
 * (its commit went through though its answer was lost), so its counts must not be added again.
 * A concurrent attempt of the same batch waits on the key until the first one ends.
 */
export async function claimBatchIn(db: Db, batch: string): Promise<boolean> {
  const { rowCount } = await db('INSERT INTO counter_batches (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [batch]);
  return rowCount === 1;
}

/** Forgets batch ids past BATCH_MEMORY (cheap: an index on stored_at). */
export async function pruneBatchesIn(db: Db): Promise<void> {
  await db(`DELETE FROM counter_batches WHERE stored_at < now() - interval '${BATCH_MEMORY}'`);
}

/**
 * Adds every delta to its (subject, day) inside the caller's transaction. Deltas of an owner deleted
 * meanwhile are dropped; the owners that exist are share-locked until commit, so none of them can be
 * deleted between this check and the insert (which would otherwise fail on the foreign key). Day
 * rows are upserted in (subject, day) order, which locks them in one order for every flush: two
 * flushes of the same day queue instead of deadlocking, and the '(other)' cap counts exactly.
 */
export async function addCountsIn(db: Db, deltas: readonly CountsDelta[], maxLabels: number): Promise<void> {
  // A busy second's flush carries thousands of deltas: its loops give the event loop turns (turns.ts).
  const turns = new Turns();
  const owners = [...new Set(deltas.map((d) => d.owner).filter((o): o is number => o !== undefined))];
  const alive = new Set<number>();
  if (owners.length > 0) {
    const { rows } = await db<{ id: number }>('SELECT id FROM users WHERE id = ANY($1::bigint[]) FOR KEY SHARE', [owners.filter((o) => Number.isSafeInteger(o))]);
    for (const r of rows) alive.add(r.id);
  }
  const live = deltas.filter((d) => d.owner === undefined || alive.has(d.owner));
  if (live.length === 0) return;

  // One day row per (subject, day); the last owner given wins, as in the file store.
  const days = new Map<string, { subject: string; day: string; owner: number | null }>();
  for (const d of live) {
    if (turns.due()) await turns.next();
    const day = normalDay(d.day);
    const key = `${d.subject}\u0000${day}`;
    const owner = d.owner ?? days.get(key)?.owner ?? null;
    days.set(key, { subject: d.subject, day, owner });
  }
  const ordered = [...days.values()].sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  // As literals made here: the driver's own escaping of a busy second's thousands of subjects held the event loop ~10 ms.
  const subjects = arrayLiteral(ordered.map((d) => encodeText(d.subject)));
  const dayTexts = arrayLiteral(ordered.map((d) => d.day));
  await db(
    `INSERT INTO stat_days (subject, day, user_id)
     SELECT * FROM unnest($1::text[], $2::date[], $3::bigint[])
     ON CONFLICT (subject, day) DO UPDATE SET user_id = excluded.user_id
     WHERE excluded.user_id IS NOT NULL AND stat_days.user_id IS DISTINCT FROM excluded.user_id`,
    [subjects, dayTexts, arrayLiteral(ordered.map((d) => d.owner))],
  );
  const ids = await db<{ id: number; subject: string; day: string }>(
    `SELECT d.id, d.subject, to_char(d.day, 'YYYY-MM-DD') AS day FROM stat_days d
     JOIN unnest($1::text[], $2::date[]) AS x(s, d) ON d.subject = x.s AND d.day = x.d`,
    [subjects, dayTexts],
  );
  const idOf = new Map(ids.rows.map((r) => [`${decodeText(r.subject)}\u0000${r.day}`, r.id]));
  const dayIdOf = (d: CountsDelta) => idOf.get(`${d.subject}\u0000${normalDay(d.day)}`);
  const counted = await withPropertyCap(db, live, dayIdOf);

  // Totals are added as they come; labels first need what their dimensions already hold.
  const rows: CountRow[] = [];
  const add = (dayId: number, metric: string, label: string, total: boolean, n: number) => void rows.push({ dayId, metric, label, total, n });
  const wanted = new Map<string, { dayId: number; metric: string; labels: Set<string> }>();
  for (const d of counted) {
    if (turns.due()) await turns.next();
    const dayId = dayIdOf(d);
    if (dayId === undefined) throw new Error(`stat day ${d.subject} ${d.day} was not stored`);
    for (const [metric, value] of Object.entries(d.counts)) {
      if (typeof value === 'number') add(dayId, metric, '', true, value);
      else if (Number.isFinite(maxLabels)) {
        const key = groupKey(dayId, metric);
        let g = wanted.get(key);
        if (!g) wanted.set(key, (g = { dayId, metric, labels: new Set() }));
        for (const label of Object.keys(value)) g.labels.add(label);
      } else for (const [label, n] of Object.entries(value)) add(dayId, metric, label, false, n);
    }
  }
  if (wanted.size > 0) {
    const crowded = await crowdedGroups(db, wanted, maxLabels, turns);
    for (const key of wanted.keys()) if (!crowded.has(key)) wanted.delete(key);
    const state = wanted.size > 0 ? await labelState(db, wanted) : new Map<string, { size: number; known: Set<string> }>();
    for (const d of counted) {
      if (turns.due()) await turns.next();
      const dayId = dayIdOf(d)!;
      for (const [metric, value] of Object.entries(d.counts)) {
        if (typeof value === 'number') continue;
        const s = state.get(groupKey(dayId, metric));
        if (!s) {
          for (const [label, n] of Object.entries(value)) add(dayId, metric, label, false, n);
          continue;
        }
        for (const [label, n] of Object.entries(value)) {
          const at = s.known.has(label) || s.size < maxLabels ? label : OVERFLOW_LABEL;
          if (!s.known.has(at)) {
            s.known.add(at);
            s.size++;
          }
          add(dayId, metric, at, false, n);
        }
      }
    }
  }
  await upsertCounts(db, rows, 'skip', turns);
}

/**
 * The deltas with their event property dimensions capped per day (property-dimensions.ts), given
 * those the days hold already: read under the day rows' locks, so the cap is exact.
 */
async function withPropertyCap(db: Db, deltas: readonly CountsDelta[], dayIdOf: (d: CountsDelta) => number | undefined): Promise<readonly CountsDelta[]> {
  const days = [...new Set(deltas.filter((d) => Object.keys(d.counts).some(isPropertyDimension)).map(dayIdOf))].filter((id): id is number => id !== undefined);
  if (days.length === 0) return deltas;
  const { rows } = await db<{ day_id: number; metric: string }>(
    'SELECT DISTINCT day_id, metric FROM stat_counts WHERE day_id = ANY($1::bigint[]) AND starts_with(metric, $2)',
    [days, PROPERTY_DIMENSION_PREFIX],
  );
  const held = new Map<number, Set<string>>(days.map((id) => [id, new Set()]));
  for (const r of rows) held.get(r.day_id)?.add(decodeText(r.metric));
  return deltas.map((d) => {
    const day = held.get(dayIdOf(d) ?? -1);
    return day ? { ...d, counts: capPropertyDimensions(d.counts, day) } : d;
  });
}

// A day as PostgreSQL gives it back (a date written '2024-1-5' reads '2024-01-05').
function normalDay(day: string): string {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(day);
  return m ? `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}` : day;
}

/** Counts as rows read back: totals as numbers, dimensions as label maps. */
function countsOf(rows: readonly { metric: string; label: string; is_total: boolean; n: number }[]): DayCounts {
  const counts = Object.create(null) as DayCounts;
  for (const r of rows) {
    const metric = decodeText(r.metric);
    if (r.is_total) counts[metric] = r.n;
    else {
      const existing = counts[metric];
      const labels = typeof existing === 'object' ? existing : (counts[metric] = labelMap());
      labels[decodeText(r.label)] = r.n;
    }
  }
  return counts;
}

/** A subject's stored days between `from` and `to` (compared as text, as the file store does), oldest first. */
export async function countedDaysIn(db: Db, subject: string, from?: string, to?: string): Promise<{ day: string; counts: DayCounts }[]> {
  const { rows } = await db<{ day: string; metric: string | null; label: string; is_total: boolean; n: number }>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, c.metric, c.label, c.is_total, c.n
     FROM stat_days d LEFT JOIN stat_counts c ON c.day_id = d.id
     WHERE d.subject = $1 AND to_char(d.day, 'YYYY-MM-DD') >= $2 AND to_char(d.day, 'YYYY-MM-DD') <= $3
     ORDER BY d.day`,
    [encodeText(subject), from ?? '0000-00-00', to ?? '9999-99-99'],
  );
  const out: { day: string; counts: DayCounts }[] = [];
  let at = 0;
  while (at < rows.length) {
    const day = rows[at]!.day;
    let end = at;
    while (end < rows.length && rows[end]!.day === day) end++;
    const counted = rows.slice(at, end).filter((r) => r.metric !== null) as { metric: string; label: string; is_total: boolean; n: number }[];
    out.push({ day, counts: countsOf(counted) });
    at = end;
  }
  return out;
}

/** Totals of `names` over all days, per subject (zeros for subjects never counted): one grouped query. */
export async function countTotalsIn(db: Db, subjects: readonly string[], names: readonly string[]): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  for (const s of subjects) out.set(s, Object.fromEntries(names.map((n) => [n, 0])));
  if (subjects.length === 0 || names.length === 0) return out;
  const { rows } = await db<{ subject: string; metric: string; n: number }>(
    `SELECT d.subject, c.metric, sum(c.n) AS n FROM stat_days d JOIN stat_counts c ON c.day_id = d.id
     WHERE d.subject = ANY($1::text[]) AND c.metric = ANY($2::text[]) AND c.is_total GROUP BY d.subject, c.metric`,
    [subjects.map(encodeText), names.map(encodeText)],
  );
  for (const r of rows) {
    const totals = out.get(decodeText(r.subject));
    if (totals) totals[decodeText(r.metric)] = r.n;
  }
  return out;
}

/** Removes a subject's days and (by cascade) their counts, and its realtime window. */
export async function dropCountsIn(db: Db, subject: string): Promise<void> {
  await db('DELETE FROM stat_days WHERE subject = $1', [encodeText(subject)]);
  await dropRealtimeIn(db, subject);
}

/** The stat_counts rows of one stats record's counts. */
function countRowsOf(dayId: number, counts: DayCounts): CountRow[] {
  const rows: CountRow[] = [];
  for (const [metric, value] of Object.entries(counts ?? {})) {
    if (typeof value === 'number') rows.push({ dayId, metric, label: '', total: true, n: value });
    else if (value && typeof value === 'object') for (const [label, n] of Object.entries(value)) rows.push({ dayId, metric, label, total: false, n });
  }
  return rows;
}

/** Checks a stats record's shape: the tables need a subject and a day. */
function statsFields(record: StoredRecord): { subject: string; day: string; counts: DayCounts; owner: number | null } {
  if (typeof record.subject !== 'string' || typeof record.day !== 'string') throw new Error('a stats record needs a subject and a day');
  const counts = (record.counts && typeof record.counts === 'object' ? record.counts : {}) as DayCounts;
  return { subject: record.subject, day: record.day, counts, owner: Number.isSafeInteger(record.userId) ? (record.userId as number) : null };
}

/** Stores stats day records under their own ids (put, import): day rows, then their counts. */
export async function putStatsDays(db: Db, records: readonly StoredRecord[]): Promise<void> {
  if (records.length === 0) return;
  const fields = records.map(statsFields);
  await db(
    `INSERT INTO stat_days (id, subject, day, user_id) SELECT * FROM unnest($1::bigint[], $2::text[], $3::date[], $4::bigint[])
     ON CONFLICT (id) DO UPDATE SET subject = excluded.subject, day = excluded.day, user_id = excluded.user_id, thinned = false`,
    [records.map((r) => r.id), fields.map((f) => encodeText(f.subject)), fields.map((f) => f.day), fields.map((f) => f.owner)],
  );
  await db('DELETE FROM stat_counts WHERE day_id = ANY($1::bigint[])', [records.map((r) => r.id)]);
  await upsertCounts(db, records.flatMap((r, i) => countRowsOf(r.id, fields[i]!.counts)), 'keep');
}
