import type { ConstraintMap } from './errors.ts';
import { COUNTED_TABLES_SQL } from './kept-counts.ts';
import type { Db } from './reads.ts';
import type { CatalogFacts, TablePlan } from './tables.ts';

/**
 * What the migrated schema has: the columns of each table, its single-column unique indexes, and
 * whether its counts are kept.
 * A unique violation names the index, so the index → (collection, index) map is read from here,
 * whatever a migration called it.
 */
export async function readCatalog(db: Db, plans: ReadonlyMap<string, TablePlan>): Promise<{ facts: CatalogFacts; constraints: ConstraintMap }> {
  const columns = await db<{ table_name: string; column_name: string }>(
    'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()',
  );
  const unique = await db<{ table_name: string; column_name: string; index_name: string }>(
    `SELECT t.relname AS table_name, a.attname AS column_name, ix.relname AS index_name
     FROM pg_index i
     JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_class ix ON ix.oid = i.indexrelid
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
     WHERE t.relnamespace = current_schema()::regnamespace AND i.indisunique AND i.indnatts = 1`,
  );
  // Kept counts (migration 006): a table is counted when all three of its triggers are there.
  const triggers = await db<{ table_name: string }>(COUNTED_TABLES_SQL);
  const facts: CatalogFacts = { columns: new Map(), uniqueColumns: new Map(), counted: new Set(triggers.rows.map((r) => r.table_name)) };
  for (const r of columns.rows) {
    let set = facts.columns.get(r.table_name);
    if (!set) facts.columns.set(r.table_name, (set = new Set()));
    set.add(r.column_name);
  }
  const constraints = new Map<string, { collection: string; index: string }>();
  for (const r of unique.rows) {
    let set = facts.uniqueColumns.get(r.table_name);
    if (!set) facts.uniqueColumns.set(r.table_name, (set = new Set()));
    set.add(r.column_name);
    const key = plans.get(r.table_name)?.keys.find((k) => k.column === r.column_name);
    if (key) constraints.set(r.index_name, { collection: r.table_name, index: key.index });
  }
  return { facts, constraints };
}
