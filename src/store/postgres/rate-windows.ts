import { outOfTime, outsideStoreDeadline, storeDeadline, withStoreDeadlineAt } from '../deadline.ts';
import type { WindowCount, WindowCounter } from '../store.ts';
import type { Db } from './reads.ts';

// A hit on a key whose stored window has ended starts a new one; a hit from a process whose clock
// is behind (an earlier `ends_at`) is counted in the later window another process opened.
const UPSERT = `ON CONFLICT (key) DO UPDATE SET
    n = CASE WHEN w.ends_at >= EXCLUDED.ends_at THEN w.n + EXCLUDED.n ELSE EXCLUDED.n END,
    ends_at = GREATEST(w.ends_at, EXCLUDED.ends_at)`;
const HIT = `INSERT INTO rate_windows AS w (key, ends_at, n) VALUES ($1, $2, $3)
  ${UPSERT}
  RETURNING n, ends_at`;
// Many keys' hits in one statement, in key order: two processes' statements lock the rows they
// share in the same order, so they cannot deadlock. One hit per key (the caller sees to it).
const HIT_MANY = `INSERT INTO rate_windows AS w (key, ends_at, n)
  SELECT k, e, c FROM unnest($1::text[], $2::bigint[], $3::int[]) AS t(k, e, c) ORDER BY k
  ${UPSERT}
  RETURNING key, n, ends_at`;

// Only the window the slice was leased from: a later one started afresh and owes it nothing. Many
// keys' give-backs in one statement, their rows locked in key order first (as HIT_MANY's are), so
// it cannot deadlock with a hit of another process.
const GIVE_BACK = `WITH t AS (SELECT k, e, c FROM unnest($1::text[], $2::bigint[], $3::int[]) AS t(k, e, c)),
  l AS MATERIALIZED (SELECT w.key FROM rate_windows w JOIN t ON w.key = t.k AND w.ends_at = t.e ORDER BY w.key FOR UPDATE OF w)
  UPDATE rate_windows w SET n = GREATEST(0, w.n - t.c) FROM t, l WHERE w.key = l.key AND t.k = l.key AND w.ends_at = t.e`;

const PRUNE = 'DELETE FROM rate_windows WHERE ends_at < $1';

// Finished windows are deleted at most this often by each process.
const PRUNE_EVERY_MS = 60_000;

// Statements for hits under way at once; hits that come meanwhile wait and go together, up to
// BATCH keys a statement. A quiet key (one client IP's events) costs a round trip of its own
// only while the counter is idle. Two, not more: each statement costs the process a pooled
// connection's round trip and PostgreSQL a transaction, and with fewer under way more hits go in
// each (2,000 client IPs' events at 32 connections: 0.37 statements an event with 4 under way,
// 0.20 with 2, 0.11 with 1); the second keeps hits moving while one statement waits on a row
// another process holds.
const IN_FLIGHT = 2;
const BATCH = 500;

interface Pending {
  key: string;
  endsAt: number;
  n: number;
  /** Its request's deadline (deadline.ts): it waits in line no longer. */
  deadline: number | undefined;
  timer?: NodeJS.Timeout;
  /** Taken into a statement. */
  sent?: boolean;
  resolve: (count: WindowCount) => void;
  reject: (err: unknown) => void;
}

/**
 * Rate-limit windows in PostgreSQL's UNLOGGED `rate_windows` table: one atomic upsert per hit (or
 * slice of hits), and while IN_FLIGHT of them are under way, the hits of many keys that arrive
 * meanwhile in one upsert together; the slices handed back in one turn in one update; rows of
 * ended windows deleted once a minute.
 */
export class PgRateWindows implements WindowCounter {
  private prunedAt = 0;
  private readonly waiting: Pending[] = [];
  private flying = 0;
  /** Give-backs queued for the next statement, by key. */
  private readonly returning = new Map<string, { endsAt: number; n: number; sent: Promise<void> }>();
  private returned: Promise<void> | null = null;

  /** Statements sent for hits so far (tests read it). */
  statements = 0;
  /** Statements sent for give-backs so far (tests read it). */
  giveBackStatements = 0;

  constructor(private readonly db: Db) {}

  /** Counts `n` hits of `key` in the window ending at `endsAt`: alone, or with other keys' hits in one statement. */
  hit(key: string, endsAt: number, n = 1): Promise<WindowCount> {
    return new Promise<WindowCount>((resolve, reject) => {
      const p: Pending = { key, endsAt, n, deadline: storeDeadline(), resolve, reject };
      this.waiting.push(p);
      this.pump();
      // Still in line (every statement is under way): it waits no longer than its deadline. A hit sent at once needs no timer.
      if (p.deadline !== undefined && !p.sent) {
        p.timer = setTimeout(() => {
          const at = this.waiting.indexOf(p);
          if (at < 0) return;
          this.waiting.splice(at, 1);
          p.reject(outOfTime());
        }, Math.max(0, p.deadline - Date.now()));
      }
    });
  }

  /**
   * Takes back `n` unused hits of `key`'s window ending at `endsAt`: with the give-backs of the
   * same turn of the event loop (the limiter's sweep hands back every idle key's at once), in one
   * statement. Only the latest window of a key is kept: an earlier one is not the stored one.
   */
  giveBack(key: string, endsAt: number, n: number): Promise<void> {
    const queued = this.returning.get(key);
    if (queued && queued.endsAt > endsAt) return queued.sent;
    const sent = (this.returned ??= outsideStoreDeadline(() => this.giveBackSoon()));
    if (queued && queued.endsAt === endsAt) queued.n += n;
    else this.returning.set(key, { endsAt, n, sent });
    return sent;
  }

  /** The statement of the give-backs queued in this turn, sent on the next. */
  private async giveBackSoon(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const batch = [...this.returning];
    this.returning.clear();
    this.returned = null;
    this.giveBackStatements++;
    await this.db(GIVE_BACK, [batch.map(([key]) => key), batch.map(([, r]) => r.endsAt), batch.map(([, r]) => r.n)]);
  }

  private pump(): void {
    while (this.flying < IN_FLIGHT && this.waiting.length > 0) {
      const batch = this.take();
      this.flying++;
      // Sent with the first one's deadline, as a key's coalesced hits are (coalesced-hits.ts).
      void outsideStoreDeadline(() => withStoreDeadlineAt(batch[0]!.deadline, () => this.send(batch))).finally(() => {
        this.flying--;
        this.pump();
      });
    }
  }

  /** The first BATCH waiting hits of different keys, in the order they came; a key's second hit waits for the next statement. */
  private take(): Pending[] {
    const keys = new Set<string>();
    const batch: Pending[] = [];
    for (let i = 0; i < this.waiting.length && batch.length < BATCH; ) {
      const p = this.waiting[i]!;
      if (keys.has(p.key)) {
        i++;
        continue;
      }
      keys.add(p.key);
      batch.push(p);
      p.sent = true;
      clearTimeout(p.timer);
      this.waiting.splice(i, 1);
    }
    return batch;
  }

  private async send(batch: Pending[]): Promise<void> {
    this.statements++;
    try {
      if (batch.length === 1) {
        const p = batch[0]!;
        const { rows } = await this.db<{ n: number; ends_at: number }>(HIT, [p.key, p.endsAt, p.n]);
        p.resolve({ count: rows[0]!.n, endsAt: rows[0]!.ends_at });
      } else {
        const { rows } = await this.db<{ key: string; n: number; ends_at: number }>(HIT_MANY, [batch.map((p) => p.key), batch.map((p) => p.endsAt), batch.map((p) => p.n)]);
        const counted = new Map(rows.map((r) => [r.key, r]));
        for (const p of batch) {
          const row = counted.get(p.key);
          if (row) p.resolve({ count: row.n, endsAt: Number(row.ends_at) });
          else p.reject(new Error(`rate window of ${p.key} not returned`));
        }
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      // In the background: the hit is answered; a failed prune is tried again a minute later.
      outsideStoreDeadline(() => this.db(PRUNE, [Date.now() - PRUNE_EVERY_MS])).catch(() => {});
    }
  }
}
