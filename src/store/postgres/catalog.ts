import type { ConstraintMap } from './errors.ts';
import { countedTablesOf } from './kept-counts.ts';
import type { Db } from './reads.ts';
import type { CatalogFacts, TablePlan } from './tables.ts';

/**
 * What the migrated schema has of the planned tables: the columns of each, its single-column
 * unique indexes, and whether its counts are kept.
 * A unique violation names the index, so the index → (collection, index) map is read from here,
 * whatever a migration called it.
 */
export async function readCatalog(db: Db, plans: ReadonlyMap<string, TablePlan>): Promise<{ facts: CatalogFacts; constraints: ConstraintMap }> {
  // One round trip, from pg_catalog (information_schema.columns costs PostgreSQL ~15 ms a store
  // open), and only our tables, found by name through pg_class's index: a scan of the schema's
  // relations reads the whole of pg_class, slow where it is bloated (a database whose schemas
  // come and go, without autovacuum).
  const { rows } = await db<{ kind: 'column' | 'unique' | 'counted'; table_name: string; column_name: string | null; index_name: string | null }>(
    `WITH t AS MATERIALIZED (
       SELECT oid, relname, relkind FROM pg_class WHERE relname = ANY($1::name[]) AND relnamespace = current_schema()::regnamespace
     )
     SELECT 'column' AS kind, t.relname AS table_name, a.attname AS column_name, NULL::name AS index_name
     FROM t JOIN pg_attribute a ON a.attrelid = t.oid
     WHERE t.relkind IN ('r', 'v', 'f', 'p') AND a.attnum > 0 AND NOT a.attisdropped
     UNION ALL
     SELECT 'unique', t.relname, a.attname, ix.relname
     FROM t
     JOIN pg_index i ON i.indrelid = t.oid
     JOIN pg_class ix ON ix.oid = i.indexrelid
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
     WHERE i.indisunique AND i.indnatts = 1
     UNION ALL
     SELECT 'counted', counted.table_name, NULL, NULL FROM (${countedTablesOf('t')}) counted`,
    [[...plans.keys()]],
  );
  const facts: CatalogFacts = { columns: new Map(), uniqueColumns: new Map(), counted: new Set() };
  const constraints = new Map<string, { collection: string; index: string }>();
  const add = (map: Map<string, Set<string>>, table: string, column: string) => {
    let set = map.get(table);
    if (!set) map.set(table, (set = new Set()));
    set.add(column);
  };
  for (const r of rows) {
    // Kept counts (migration 006): a table is counted when all three of its triggers are there.
    if (r.kind === 'counted') facts.counted.add(r.table_name);
    else if (r.kind === 'column') add(facts.columns, r.table_name, r.column_name!);
    else {
      add(facts.uniqueColumns, r.table_name, r.column_name!);
      const key = plans.get(r.table_name)?.keys.find((k) => k.column === r.column_name);
      if (key) constraints.set(r.index_name!, { collection: r.table_name, index: key.index });
    }
  }
  return { facts, constraints };
}
