import type { Logger } from '../../log.ts';
import { outsideStoreDeadline } from '../deadline.ts';
import type { Db } from './reads.ts';

/*
 * The kept counts of migration 006 (read by reads.ts, `keptCount`): folded here, so that the sums
 * stay a few rows each.
 */

/** Of the tables `classes` names (rows of pg_class's oid and relname), those whose counts are kept: the three triggers of migration 006 are there and enabled. */
export const countedTablesOf = (classes: string) => `SELECT c.relname AS table_name FROM pg_trigger g JOIN ${classes} c ON c.oid = g.tgrelid
  WHERE g.tgenabled <> 'D'
    AND g.tgname IN (c.relname || '_counted_insert', c.relname || '_counted_delete', c.relname || '_counted_move')
  GROUP BY c.relname HAVING count(*) = 3`;

/** The tables of the schema whose counts are kept. */
export const COUNTED_TABLES_SQL = countedTablesOf('(SELECT oid, relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace)');

/**
 * Folds each owner's rows of these tables into one (or none, at zero), in one statement: readers
 * see the rows or their sum, never half of it. One fold per schema at a time (a transaction-scoped
 * advisory lock): false when another held it and nothing was folded. Rows that writers add
 * meanwhile are not in this statement's snapshot, so they stay for the next fold.
 */
export async function foldKeptCounts(db: Db, tables: readonly string[]): Promise<boolean> {
  const { rows } = await db<{ mine: boolean }>(
    `WITH turn AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtext('kept-counts:' || current_schema())) AS mine),
     scattered AS (
       SELECT k.tbl, k.owner FROM kept_counts k, turn
       WHERE turn.mine AND k.tbl = ANY($1::text[]) GROUP BY k.tbl, k.owner HAVING count(*) > 1
     ),
     gone AS (DELETE FROM kept_counts k USING scattered s WHERE k.tbl = s.tbl AND k.owner = s.owner RETURNING k.tbl, k.owner, k.n),
     folded AS (INSERT INTO kept_counts (tbl, owner, n) SELECT tbl, owner, sum(n) FROM gone GROUP BY tbl, owner HAVING sum(n) <> 0)
     SELECT mine FROM turn`,
    [tables],
  );
  return rows[0]?.mine === true;
}

/** One table's total in kept_counts before and after a recount. */
export interface Recounted {
  table: string;
  before: number;
  after: number;
}

/**
 * Rebuilds kept_counts from the rows themselves, in one transaction on `client`: for a data-only
 * restore (`pg_restore --data-only` copies kept_counts and fires the triggers as it loads the
 * rows, so every count doubles) or anything else that wrote the tables with the triggers off.
 * Writers wait for it (SHARE locks on the tables); readers do not.
 */
export async function recountWith(db: Db): Promise<Recounted[]> {
  await db('BEGIN');
  try {
    await db('SET LOCAL statement_timeout = 0');
    await db('SET LOCAL lock_timeout = 60000');
    const tables = (await db<{ table_name: string }>(COUNTED_TABLES_SQL)).rows.map((r) => r.table_name).sort();
    const quoted = tables.map((t) => `"${t}"`);
    if (quoted.length > 0) await db(`LOCK TABLE ${quoted.join(', ')} IN SHARE MODE`);
    await db('LOCK TABLE kept_counts IN SHARE ROW EXCLUSIVE MODE');
    const sums = async () => new Map((await db<{ tbl: string; n: number }>('SELECT tbl, coalesce(sum(n), 0)::bigint AS n FROM kept_counts GROUP BY tbl')).rows.map((r) => [r.tbl, r.n]));
    const before = await sums();
    await db('DELETE FROM kept_counts');
    for (const [i, t] of tables.entries()) {
      await db(`INSERT INTO kept_counts (tbl, owner, n) SELECT $1, coalesce(user_id, 0) AS o, count(*) FROM ${quoted[i]} GROUP BY o`, [t]);
    }
    const after = await sums();
    await rebuildLinkClicks(db);
    await db('COMMIT');
    return tables.map((table) => ({ table, before: before.get(table) ?? 0, after: after.get(table) ?? 0 }));
  } catch (err) {
    await db('ROLLBACK').catch(() => {});
    throw err;
  }
}

/**
 * Rebuilds each link's kept clicks total (link_clicks, migration 014) from the statistics, inside
 * recountWith's transaction: a data-only restore loads links (whose trigger makes their rows) and
 * then the dump's own rows of link_clicks. The statistics are locked against flushes meanwhile.
 */
async function rebuildLinkClicks(db: Db): Promise<void> {
  const { rows } = await db<{ present: boolean }>("SELECT to_regclass('link_clicks') IS NOT NULL AS present");
  if (!rows[0]?.present) return;
  await db('LOCK TABLE stat_days, stat_counts IN SHARE MODE');
  await db(
    `INSERT INTO link_clicks (link_id, user_id, clicks)
     SELECT l.id, l.user_id, coalesce(s.n, 0) FROM links l LEFT JOIN (
       SELECT substr(d.subject, 6)::bigint AS link_id, sum(c.n) AS n FROM stat_days d JOIN stat_counts c ON c.day_id = d.id
       WHERE d.subject ~ '^link:[1-9][0-9]{0,17}$' AND c.metric = 'clicks' AND c.is_total GROUP BY 1
     ) s ON s.link_id = l.id
     ON CONFLICT (link_id) DO UPDATE SET user_id = excluded.user_id, clicks = excluded.clicks
     WHERE (link_clicks.user_id, link_clicks.clicks) IS DISTINCT FROM (excluded.user_id, excluded.clicks)`,
  );
}

/** How long after a write the tables it wrote are folded: the rows of one second of writes, folded together. */
export const FOLD_AFTER_MS = 1000;

/**
 * Folds the tables this process writes, FOLD_AFTER_MS after the first write of a quiet stretch
 * (later writes join that fold). One fold at a time: tables written while one runs wait for the
 * next. A fold that finds another process folding keeps its tables for the next one; one that
 * fails leaves them to the next write. Nothing is lost either way: the sums just take a few more
 * rows meanwhile.
 */
export class KeptCountFolds {
  private readonly due = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly fold: (tables: readonly string[]) => Promise<boolean>,
    private readonly log: Logger,
    private readonly afterMs = FOLD_AFTER_MS,
  ) {}

  /** These tables were written (committed). */
  wrote(tables: Iterable<string>): void {
    if (this.closed) return;
    for (const t of tables) this.due.add(t);
    this.arm();
  }

  private arm(): void {
    if (this.closed || this.due.size === 0 || this.timer || this.running) return;
    // A fold is nobody's request: the write that armed it must not lend it its deadline (deadline.ts).
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = outsideStoreDeadline(() => this.run()).finally(() => {
        this.running = undefined;
        this.arm();
      });
    }, this.afterMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    const tables = [...this.due];
    this.due.clear();
    try {
      // Another process folding: these tables wait for the next fold.
      if (!(await this.fold(tables))) for (const t of tables) this.due.add(t);
    } catch (err) {
      // Not retried on a timer (a database that is down would log this every second): the next write folds them.
      this.log.warn('PostgreSQL: folding the kept counts failed; the next write tries again', { error: (err as Error).message });
    }
  }

  /** No more folds; waits for the one under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
