import type { Logger } from '../../log.ts';
import type { Db } from './reads.ts';

/*
 * The kept counts of migration 006 (read by reads.ts, `keptCount`): folded here, so that the sums
 * stay a few rows each.
 */

/**
 * Folds each owner's rows of these tables into one (or none, at zero), in one statement: readers
 * see the rows or their sum, never half of it. One fold per schema at a time (a transaction-scoped
 * advisory lock; a second one finds it taken and does nothing). Rows that writers add meanwhile are
 * not in this statement's snapshot, so they stay for the next fold.
 */
export async function foldKeptCounts(db: Db, tables: readonly string[]): Promise<void> {
  await db(
    `WITH turn AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtext('kept-counts:' || current_schema())) AS mine),
     scattered AS (
       SELECT k.tbl, k.owner FROM kept_counts k, turn
       WHERE turn.mine AND k.tbl = ANY($1::text[]) GROUP BY k.tbl, k.owner HAVING count(*) > 1
     ),
     gone AS (DELETE FROM kept_counts k USING scattered s WHERE k.tbl = s.tbl AND k.owner = s.owner RETURNING k.tbl, k.owner, k.n)
     INSERT INTO kept_counts (tbl, owner, n) SELECT tbl, owner, sum(n) FROM gone GROUP BY tbl, owner HAVING sum(n) <> 0`,
    [tables],
  );
}

/** How long after a write the tables it wrote are folded: the rows of one second of writes, folded together. */
export const FOLD_AFTER_MS = 1000;

/**
 * Folds the tables this process writes, FOLD_AFTER_MS after the first write of a quiet stretch
 * (later writes join that fold). A fold that fails is logged and its tables wait for the next
 * write: nothing is lost, the sums just take a few more rows meanwhile.
 */
export class KeptCountFolds {
  private readonly due = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly fold: (tables: readonly string[]) => Promise<void>,
    private readonly log: Logger,
    private readonly afterMs = FOLD_AFTER_MS,
  ) {}

  /** These tables were written (committed). */
  wrote(tables: Iterable<string>): void {
    if (this.closed) return;
    for (const t of tables) this.due.add(t);
    if (this.due.size === 0 || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.run().finally(() => (this.running = undefined));
    }, this.afterMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    const tables = [...this.due];
    this.due.clear();
    try {
      await this.fold(tables);
    } catch (err) {
      this.log.warn('PostgreSQL: folding the kept counts failed; the next write tries again', { error: (err as Error).message });
    }
  }

  /** No more folds; waits for one under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
