import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LIMIT } from '../src/http/pagination.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { pageStatement } from '../src/store/postgres/reads.ts';
import { planTables } from '../src/store/postgres/tables.ts';
import type { ListQuery } from '../src/store/store.ts';
import { freshSchema } from './backend.ts';
import { withClient } from './pg-server.ts';

/**
 * Link-management lists take `limit` up to MAX_LIMIT (1,000): a page must still be a walk of the
 * owner's (user_id, id) index, newest first, never a sort of every row the owner has. Checked with
 * EXPLAIN on the statement the store sends, over a table big enough for the planner to care.
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-list-plan: PostgreSQL list-plan tests skipped (TEST_DATABASE_URL is not set)');

const BIG = 30_000;
const OTHERS = 10_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

if (URL) describe('PostgreSQL list pages at the largest limit', () => {
  const schema = freshSchema();
  let store: PostgresStore;
  let owner = 0;

  before(async () => {
    store = await PostgresStore.open({ url: URL, schema, collections: storeSchema(RESOURCES), poolSize: 2, listen: false });
    await withClient(async (c) => {
      await c.query(`SET search_path TO "${schema}"`);
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO users (data, username, email, key_hash) SELECT '{}'::jsonb, 'u' || g, 'u' || g || '@example.com', 'h' || g FROM generate_series(1, 2) g RETURNING id`,
      );
      owner = Number(rows[0]!.id);
      const other = Number(rows[1]!.id);
      // One owner with many links, another beside it: the owner's rows are a part of the table, as on a real server.
      // 2,000 rows a statement: the alias trigger takes an advisory lock per row, held to the end of its transaction.
      for (let from = 1; from <= BIG + OTHERS; from += 2000) {
        await c.query(
          `INSERT INTO links (user_id, data, k_alias)
           SELECT CASE WHEN g <= $3 THEN $1::bigint ELSE $2::bigint END,
                  jsonb_build_object('alias', 'a' || g, 'url', 'https://example.com/' || g, 'date', '2026-11-21 10:00:00'), '0:a' || g
           FROM generate_series($4::int, $4::int + 1999) g`,
          [owner, other, BIG, from],
        );
      }
      await c.query('ANALYZE links');
    });
  });

  after(() => store.close());

  const plan = planTables(storeSchema(RESOURCES)).get('links')!;
  const explain = (query: ListQuery) =>
    withClient(async (c) => {
      await c.query(`SET search_path TO "${schema}"`);
      const { text, values } = pageStatement(plan, query);
      const { rows } = await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
      return nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
    });

  const shape = (nodes: PlanNode[]) => nodes.map((n) => `${n['Node Type']}${n['Index Name'] ? ` on ${n['Index Name']}` : ''}`).join(' > ');
  const pages: [string, ListQuery][] = [
    ['the first page of 1,000', { offset: 0, limit: MAX_LIMIT }],
    ['page 20 of 1,000', { offset: 19 * MAX_LIMIT, limit: MAX_LIMIT }],
  ];
  for (const [name, query] of pages) {
    test(`${name}: a backward walk of an id index, newest first, no sort`, async () => {
      const nodes = await explain({ ...query, owner });
      // The owner's (user_id, id) index, or the primary key filtered by owner where the owner holds most rows: either way a walk.
      const walk = nodes.some((n) => n['Node Type'] === 'Index Scan' && /^links_(user_id_idx|pkey)$/.test(n['Index Name'] ?? '') && n['Scan Direction'] === 'Backward');
      assert.ok(walk && !nodes.some((n) => /Sort/.test(n['Node Type'])), shape(nodes));
      assert.equal(nodes[0]!['Node Type'], 'Limit');
    });
  }

  test('a search (q) is planned at 1,000 exactly as at 100: the limit changes no plan', async () => {
    const search = { owner, offset: 0, search: { text: 'example.com/29', fields: ['url', 'alias'] } };
    assert.equal(shape(await explain({ ...search, limit: MAX_LIMIT })), shape(await explain({ ...search, limit: 100 })));
  });

  test('the store answers a page of 1,000, newest first, and the total', async () => {
    const page = await store.find<{ id: number; alias: string }>('links', { owner, offset: MAX_LIMIT, limit: MAX_LIMIT });
    assert.equal(page.total, BIG);
    assert.equal(page.items.length, MAX_LIMIT);
    assert.deepEqual([page.items[0]!.alias, page.items.at(-1)!.alias], [`a${BIG - MAX_LIMIT}`, `a${BIG - 2 * MAX_LIMIT + 1}`]);
  });
});
