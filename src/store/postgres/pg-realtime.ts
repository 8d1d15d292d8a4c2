import type { Labels, RealtimeCounts, RealtimeDelta } from '../store.ts';
import type { Db } from './reads.ts';
import { decodeText, encodeText } from './text-codec.ts';

/**
 * Adds a flush's minutes (migration 010) in the caller's transaction: visitors once per minute,
 * pages under the batch id, so that a batch stored already adds nothing.
 */
export async function addRealtimeIn(db: Db, batch: string, deltas: readonly RealtimeDelta[]): Promise<void> {
  const visitors = deltas.flatMap((d) => d.visitors.map((v) => [encodeText(d.subject), d.minute, v] as const));
  // Sorted, so that two flushes lock rows in one order and never wait on each other in a circle.
  visitors.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)));
  if (visitors.length > 0) {
    await db(
      `INSERT INTO realtime_visitors (subject, minute, visitor) SELECT s, m, decode(v, 'hex') FROM unnest($1::text[], $2::bigint[], $3::text[]) AS x(s, m, v) ON CONFLICT DO NOTHING`,
      [visitors.map((v) => v[0]), visitors.map((v) => v[1]), visitors.map((v) => v[2])],
    );
  }
  const pages = deltas.flatMap((d) => Object.entries(d.pages).map(([page, n]) => [encodeText(d.subject), d.minute, encodeText(page), n] as const));
  if (pages.length > 0) {
    await db(
      `INSERT INTO realtime_pages (subject, minute, batch, page, n) SELECT s, m, $1, p, n FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[]) AS x(s, m, p, n) ON CONFLICT DO NOTHING`,
      [batch, pages.map((p) => p[0]), pages.map((p) => p[1]), pages.map((p) => p[2]), pages.map((p) => p[3])],
    );
  }
}

/** Forgets the minutes before `keepFrom`. */
export async function pruneRealtimeIn(db: Db, keepFrom: number): Promise<void> {
  await db('DELETE FROM realtime_visitors WHERE minute < $1', [keepFrom]);
  await db('DELETE FROM realtime_pages WHERE minute < $1', [keepFrom]);
}

/** A subject's window from minute `from` on, the `extra` visitor keys counted with the stored ones. */
export async function realtimeCountsIn(db: Db, subject: string, from: number, extra: readonly string[]): Promise<RealtimeCounts> {
  const { rows } = await db<{ page: string | null; n: number }>(
    `SELECT NULL AS page, count(*) AS n FROM (
       SELECT visitor FROM realtime_visitors WHERE subject = $1 AND minute >= $2
       UNION SELECT decode(k, 'hex') FROM unnest($3::text[]) AS k
     ) v
     UNION ALL
     SELECT page, sum(n) AS n FROM realtime_pages WHERE subject = $1 AND minute >= $2 GROUP BY page`,
    [encodeText(subject), from, extra],
  );
  const pages = Object.create(null) as Labels;
  let visitors = 0;
  let pageviews = 0;
  for (const r of rows) {
    if (r.page === null) visitors = r.n;
    else {
      pages[decodeText(r.page)] = r.n;
      pageviews += r.n;
    }
  }
  return { visitors, pageviews, pages };
}

/** Forgets a subject's window (its record was deleted). */
export async function dropRealtimeIn(db: Db, subject: string): Promise<void> {
  await db('DELETE FROM realtime_visitors WHERE subject = $1', [encodeText(subject)]);
  await db('DELETE FROM realtime_pages WHERE subject = $1', [encodeText(subject)]);
}
