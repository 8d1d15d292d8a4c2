import type { Db } from './reads.ts';

/** How long salts and sightings are kept: a flush retried after this may count a visitor again. */
const SIGHTINGS_KEPT_DAYS = 2;

/** The salt of `day`, the same for every process: the first one stored (`proposed` if none was). */
export async function visitorSaltIn(db: Db, day: string, proposed: string): Promise<string> {
  // Two statements: one INSERT … RETURNING would not see a salt a concurrent process committed meanwhile.
  await db('INSERT INTO visitor_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING', [day, proposed]);
  const { rows } = await db<{ salt: string }>('SELECT salt FROM visitor_salts WHERE day = $1', [day]);
  return rows[0]?.salt ?? proposed;
}

/**
 * Stores the sightings' keys in the caller's transaction and returns those no process had stored:
 * of two processes storing one key at once, the second waits for the first and finds it taken.
 * Keys go in one order, so two flushes never wait on each other in a circle.
 */
export async function claimSightingsIn(db: Db, keys: readonly { day: string; key: string }[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const sorted = [...keys].sort((x, y) => (x.day + x.key < y.day + y.key ? -1 : 1));
  const { rows } = await db<{ key: string }>(
    `INSERT INTO visitor_sightings (day, key) SELECT d, decode(k, 'hex') FROM unnest($1::date[], $2::text[]) AS x(d, k)
     ON CONFLICT DO NOTHING RETURNING encode(key, 'hex') AS key`,
    [sorted.map((k) => k.day), sorted.map((k) => k.key)],
  );
  return new Set(rows.map((r) => r.key));
}

/** Forgets salts and sightings older than SIGHTINGS_KEPT_DAYS. */
export async function pruneSightingsIn(db: Db): Promise<void> {
  await db(`DELETE FROM visitor_sightings WHERE day < current_date - ${SIGHTINGS_KEPT_DAYS}`);
  await db(`DELETE FROM visitor_salts WHERE day < current_date - ${SIGHTINGS_KEPT_DAYS}`);
}
