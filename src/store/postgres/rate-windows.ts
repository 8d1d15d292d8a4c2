import { outsideStoreDeadline } from '../deadline.ts';
import type { WindowCount, WindowCounter } from '../store.ts';
import type { Db } from './reads.ts';

// A hit on a key whose stored window has ended starts a new one; a hit from a process whose clock
// is behind (an earlier `ends_at`) is counted in the later window another process opened.
const HIT = `INSERT INTO rate_windows AS w (key, ends_at, n) VALUES ($1, $2, $3)
  ON CONFLICT (key) DO UPDATE SET
    n = CASE WHEN w.ends_at >= EXCLUDED.ends_at THEN w.n + EXCLUDED.n ELSE EXCLUDED.n END,
    ends_at = GREATEST(w.ends_at, EXCLUDED.ends_at)
  RETURNING n, ends_at`;

// Only the window the slice was leased from: a later one started afresh and owes it nothing.
const GIVE_BACK = 'UPDATE rate_windows SET n = GREATEST(0, n - $3) WHERE key = $1 AND ends_at = $2';

const PRUNE = 'DELETE FROM rate_windows WHERE ends_at < $1';

// Finished windows are deleted at most this often by each process.
const PRUNE_EVERY_MS = 60_000;

/**
 * Rate-limit windows in PostgreSQL's UNLOGGED `rate_windows` table: one atomic upsert per hit (or
 * slice of hits), returning the count and the window's end; one update per slice handed back; rows
 * of ended windows deleted once a minute.
 */
export class PgRateWindows implements WindowCounter {
  private prunedAt = 0;

  constructor(private readonly db: Db) {}

  /** Counts `n` hits of `key` in the window ending at `endsAt`, in one statement. */
  async hit(key: string, endsAt: number, n = 1): Promise<WindowCount> {
    const { rows } = await this.db<{ n: number; ends_at: number }>(HIT, [key, endsAt, n]);
    const row = rows[0]!;
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      // In the background: the hit is answered; a failed prune is tried again a minute later.
      outsideStoreDeadline(() => this.db(PRUNE, [Date.now() - PRUNE_EVERY_MS])).catch(() => {});
    }
    return { count: row.n, endsAt: row.ends_at };
  }

  /** Takes back `n` unused hits of `key`'s window ending at `endsAt`, in one statement. */
  async giveBack(key: string, endsAt: number, n: number): Promise<void> {
    await this.db(GIVE_BACK, [key, endsAt, n]);
  }
}
