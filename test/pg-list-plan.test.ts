import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LIMIT } from '../src/http/pagination.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { pageStatement } from '../src/store/postgres/reads.ts';
import { planTables } from '../src/store/postgres/tables.ts';
import type { ListQuery } from '../src/store/store.ts';
import { freshSchema } from './backend.ts';
import { withClient } from './pg-client.ts';

/**
 * Link-management lists take `limit` up to MAX_LIMIT (1,000): a page must still be a walk of the
 * owner's (user_id, id) index, newest first, never a sort of every row the owner has. Checked with
 * EXPLAIN on the statement the store sends, over a table big enough for the planner to care
 * (50,000 links, ANALYZEd, the planner's settings as they are). The same holds of the clicks order
 * (the kept totals' index, migration 014) and of a search (the trigram index, where pg_trgm is).
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-list-plan: PostgreSQL list-plan tests skipped (TEST_DATABASE_URL is not set)');

const BIG = 40_000;
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
                  jsonb_build_object('alias', 'a' || g, 'url', 'https://example.com/' || g, 'date', '2026-11-21 10:00:00',
                    -- A few links in campaign 7, in channel 3, protected by a password.
                    'campaign', CASE WHEN g % 400 = 1 THEN to_jsonb(7) ELSE 'null'::jsonb END, 'channels', CASE WHEN g % 300 = 2 THEN '[3]'::jsonb ELSE '[]'::jsonb END,
                    'password', CASE WHEN g % 200 = 5 THEN to_jsonb('h' || g) ELSE 'null'::jsonb END), '0:a' || g
           FROM generate_series($4::int, $4::int + 1999) g`,
          [owner, other, BIG, from],
        );
      }
      // One link of the owner in ten was clicked, on two days.
      await c.query(
        `INSERT INTO stat_days (subject, day, user_id) SELECT 'link:' || g, date '2026-01-01' + k, $1::bigint FROM generate_series(10, $2::int, 10) g, generate_series(0, 1) k`,
        [owner, BIG],
      );
      await c.query(`INSERT INTO stat_counts (day_id, metric, label, is_total, n) SELECT id, 'clicks', '', true, id % 40 FROM stat_days`);
      await c.query('ANALYZE');
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

  const walks = (nodes: PlanNode[], index: RegExp) =>
    nodes[0]!['Node Type'] === 'Limit' && nodes.some((n) => /Index( Only)? Scan/.test(n['Node Type']) && index.test(n['Index Name'] ?? '')) && !nodes.some((n) => /Sort|Seq Scan/.test(n['Node Type']));
  const clicks = (direction: 'asc' | 'desc') => ({ counter: 'clicks', subjectPrefix: 'link:', direction }) as const;
  for (const [name, query] of [
    ['most clicks, the first page of 25', { owner, sort: clicks('desc'), offset: 0, limit: 25 }],
    ['most clicks, page 4 of 100', { owner, sort: clicks('desc'), offset: 300, limit: 100 }],
    ['fewest clicks, the first page of 25', { owner, sort: clicks('asc'), offset: 0, limit: 25 }],
  ] as const) {
    test(`${name}: a walk of the kept totals' (user_id, clicks, link_id) index, no sort`, async () => {
      const nodes = await explain({ ...query, owner });
      assert.ok(walks(nodes, /^link_clicks_user_id_clicks_idx$/), shape(nodes));
    });
  }

  test('oldest first, the first page: a walk of an id index, no sort', async () => {
    const nodes = await explain({ owner, sort: { field: 'id', direction: 'asc' }, offset: 0, limit: 25 });
    assert.ok(walks(nodes, /^links_(user_id_idx|pkey)$/), shape(nodes));
  });

  test('a search of a few links: the trigram index, no scan of the table', async () => {
    const nodes = await explain({ owner, offset: 0, limit: 25, search: { text: 'example.com/3999', fields: ['url', 'alias', 'title'] } });
    assert.ok(nodes.some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === 'links_search_idx'), shape(nodes));
    assert.ok(!nodes.some((n) => n['Node Type'] === 'Seq Scan'), shape(nodes));
    const found = await store.find<{ id: number; alias: string }>('links', { owner, offset: 0, limit: 25, search: { text: 'EXAMPLE.com/3999', fields: ['url', 'alias', 'title'] } });
    assert.deepEqual([found.total, found.items.map((l) => l.alias)], [11, ['a39999', 'a39998', 'a39997', 'a39996', 'a39995', 'a39994', 'a39993', 'a39992', 'a39991', 'a39990', 'a3999']]);
  });

  for (const [name, conditions, index, matches] of [
    ['campaign 7', [{ field: 'campaign', equals: 7 }], 'links_campaign_idx', 100],
    ['channel 3', [{ field: 'channels', holds: 3 }], 'links_channels_idx', 134],
    ['the same-link check of a protected link', [{ field: 'url', equals: 'https://example.com/5' }, { field: 'type', equals: null }, { field: 'password', present: true }], 'links_protected_url_idx', 1],
  ] as const) {
    test(`a filter by ${name}: the field's own index (migration 015), no walk of the owner's links`, async () => {
      const query = { owner, conditions: [...conditions], sort: { field: 'id', direction: 'asc' }, offset: 0, limit: 25 } as const;
      const nodes = await explain(query);
      assert.ok(nodes.some((n) => /Index Scan/.test(n['Node Type']) && n['Index Name'] === index), shape(nodes));
      assert.ok(!nodes.some((n) => n['Node Type'] === 'Seq Scan' || n['Index Name'] === 'links_pkey' || n['Index Name'] === 'links_user_id_idx'), shape(nodes));
      assert.equal((await store.find('links', { ...query, limit: undefined })).total, matches);
    });
  }

  test('the clicks order answers the links of the most clicks first, ties newest first', async () => {
    const page = await store.find<{ id: number; alias: string }>('links', { owner, sort: clicks('desc'), offset: 0, limit: 3 });
    const totals = await store.countTotals(page.items.map((l) => `link:${l.id}`), ['clicks']);
    assert.equal(page.total, BIG);
    const sums = page.items.map((l) => totals.get(`link:${l.id}`)!.clicks!);
    assert.ok(sums[0]! >= sums[1]! && sums[1]! >= sums[2]! && sums[0]! > 0, String(sums));
    for (let i = 1; i < 3; i++) if (sums[i] === sums[i - 1]) assert.ok(page.items[i]!.id < page.items[i - 1]!.id);
  });

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
