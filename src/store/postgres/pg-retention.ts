import type { Db } from './reads.ts';
import { encodeText } from './text-codec.ts';

/**
 * Takes this schema's retention turn for the caller's transaction (a transaction-scoped advisory
 * lock, so a process that dies mid-way holds nothing): false when another process has it.
 */
async function takeTurnIn(db: Db): Promise<boolean> {
  const { rows } = await db<{ mine: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext('stats-retention:' || current_schema())) AS mine");
  return rows[0]?.mine === true;
}

/** Removes up to `limit` stat_days dated before `before` (their counts go by cascade); null when another process prunes now. */
export async function pruneDaysIn(db: Db, before: string, limit: number): Promise<number | null> {
  if (!(await takeTurnIn(db))) return null;
  const { rowCount } = await db('DELETE FROM stat_days WHERE id IN (SELECT id FROM stat_days WHERE day < $1::date ORDER BY day LIMIT $2)', [before, limit]);
  return rowCount ?? 0;
}

/**
 * Thins up to `limit` day rows dated before `before` that are not thinned yet: their `dimensions`
 * go, and they are marked thinned (migration 010). How many rows; null when another process prunes now.
 */
export async function pruneDimensionsIn(db: Db, before: string, dimensions: readonly string[], limit: number): Promise<number | null> {
  if (!(await takeTurnIn(db))) return null;
  const { rows } = await db<{ n: number }>(
    `WITH picked AS (SELECT id FROM stat_days WHERE NOT thinned AND day < $1::date ORDER BY day LIMIT $3 FOR UPDATE),
     marked AS (UPDATE stat_days d SET thinned = true FROM picked p WHERE d.id = p.id RETURNING d.id),
     gone AS (DELETE FROM stat_counts c USING picked p WHERE c.day_id = p.id AND c.metric = ANY($2::text[]))
     SELECT count(*) AS n FROM marked`,
    [before, dimensions.map(encodeText), limit],
  );
  return rows[0]?.n ?? 0;
}
