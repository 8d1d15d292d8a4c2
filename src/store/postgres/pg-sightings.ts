import type { Db } from './reads.ts';

/** How long sightings are kept: a flush retried after this may count a visitor again. */
const SIGHTINGS_KEPT_DAYS = 2;

/** The value under `name`: the first one stored (`proposed` if none was); forgotten after `forgetAfterDays` if given. */
export async function agreeIn(db: Db, name: string, proposed: string, forgetAfterDays?: number): Promise<string> {
  // Two statements: one INSERT … RETURNING would not see a value a concurrent process committed meanwhile.
  await db(
    `INSERT INTO shared_values (name, value, forget_at) VALUES ($1, $2, now() + make_interval(days => $3::int)) ON CONFLICT (name) DO NOTHING`,
    [name, proposed, forgetAfterDays ?? null],
  );
  const { rows } = await db<{ value: string }>('SELECT value FROM shared_values WHERE name = $1', [name]);
  return rows[0]?.value ?? proposed;
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

/** Forgets sightings older than SIGHTINGS_KEPT_DAYS and shared values past their time. */
export async function pruneSightingsIn(db: Db): Promise<void> {
  await db(`DELETE FROM visitor_sightings WHERE day < current_date - ${SIGHTINGS_KEPT_DAYS}`);
  await db('DELETE FROM shared_values WHERE forget_at < now()');
}
