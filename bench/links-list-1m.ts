/**
 * `node --import tsx bench/links-list-1m.ts [--links 1000000] [--compare <checkout>] [--runs 5] [--plans] [--keep]`:
 * the links list (GET /api/urls and the dashboard's /app/links ask the store the same query) when
 * one user has `--links` links on PostgreSQL, one in ten of them with clicks. Times `store.find`
 * (the page and its total) for the first page, deep pages, searches, filters and the clicks order,
 * and prints a table of medians. With `--compare`, the same data in a schema of that checkout's own
 * code (migrated by it, read by its store), timed in the same rounds, twin after twin, and every
 * answer (total and ids) compared with this checkout's. `--plans` prints each query's plan shape.
 * Searches and filters count as the dashboard does (up to 10,000 past the page, `countUpTo`: a
 * checkout without it counts all); `--exact` counts every match, as GET /api/urls does.
 *
 * The links and their statistics are written with SQL straight into the tables (generate_series,
 * ~1 min for 1M), after the checkout's own migrations and admin: a setup, not a path of the product.
 * Schemas `bench_list_<n>_<links>` are kept with --keep and reused by the next run. Not a test.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import pg from 'pg';
import type { ListQuery, Found, StoredRecord } from '../src/store/store.ts';
import { dropSchema, linkCount, PG_URL } from './pg-seed.ts';

const { values: flags } = parseArgs({
  options: {
    links: { type: 'string', default: '1000000' },
    compare: { type: 'string' },
    runs: { type: 'string', default: '5' },
    plans: { type: 'boolean', default: false },
    exact: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const links = Number(flags.links);
const runs = Math.max(1, Number(flags.runs));
const OWNER = 1;
const FIELDS = ['url', 'alias', 'title'];
const clicksOrder = { counter: 'clicks', subjectPrefix: 'link:', direction: 'desc' } as const;
// As src/dashboard/links/list.tsx (COUNT_AHEAD), written out: a checkout compared may not have it.
const page = (n: number, per: number) => ({ offset: (n - 1) * per, limit: per, ...(flags.exact ? {} : { countUpTo: (n - 1) * per + 10_000 }) });
const search = (text: string) => ({ search: { text, fields: FIELDS } });

/** The queries, as listQueryOf + listStoreQuery build them for the dashboard (the API's are the same without filters). */
const CASES: [string, ListQuery][] = [
  ['first page (25, newest)', { owner: OWNER, ...page(1, 25) }],
  ['page 100 (100 per page)', { owner: OWNER, ...page(100, 100) }],
  ['page 5,000 (100 per page)', { owner: OWNER, ...page(5000, 100) }],
  ['oldest first, page 1', { owner: OWNER, sort: { field: 'id', direction: 'asc' }, ...page(1, 25) }],
  ['search "page/99999" (11 links)', { owner: OWNER, ...search('page/99999'), ...page(1, 25) }],
  ['search "launch" (1 in 1,000)', { owner: OWNER, ...search('launch'), ...page(1, 25) }],
  ['search "example" (every link)', { owner: OWNER, ...search('example'), ...page(1, 25) }],
  ['filter: campaign (1 in 1,000)', { owner: OWNER, conditions: [{ field: 'campaign', equals: 1 }], ...page(1, 25) }],
  ['filter: channel (1 in 200)', { owner: OWNER, conditions: [{ field: 'channels', holds: 1 }], ...page(1, 25) }],
  ['filter: main domain (every link)', { owner: OWNER, conditions: [{ field: 'domainId', equals: null }], ...page(1, 25) }],
  ['most clicks, page 1', { owner: OWNER, sort: clicksOrder, ...page(1, 25) }],
  ['most clicks, page 100 (100 per page)', { owner: OWNER, sort: clicksOrder, ...page(100, 100) }],
  ['most clicks + search "launch"', { owner: OWNER, sort: clicksOrder, ...search('launch'), ...page(1, 25) }],
];

interface Twin {
  label: string;
  schema: string;
  find: (q: ListQuery) => Promise<Found<StoredRecord>>;
  explain: (q: ListQuery) => Promise<string>;
  close: () => Promise<void>;
}

// Rows per INSERT: the alias trigger takes an advisory lock per row, held to the end of the statement.
const CHUNK = 2000;

/** Links and click statistics of one user, in SQL (the admin, id 1, is there already). */
async function fill(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    // Every link is private, direct, on the main domain; one in 1,000 titled "Launch …", one in
    // 1,000 in campaign 1 (others in 2-10 one in 100), one in 200 in channel 1.
    for (let from = 1; from <= links; from += CHUNK) {
      await client.query(
        `INSERT INTO links (id, user_id, data, k_alias)
         SELECT g, 1, jsonb_build_object('url', 'https://example.com/page/' || g, 'alias', 'b' || g, 'title', CASE WHEN g % 1000 = 7 THEN 'Launch ' || g ELSE '' END,
           'description', '', 'domainId', null, 'type', 'direct', 'splashId', null, 'overlayId', null, 'pixels', '[]'::jsonb, 'status', 'private', 'password', null,
           'campaign', CASE WHEN g % 100 = 0 THEN to_jsonb(1 + (g / 100) % 10) ELSE 'null'::jsonb END,
           'channels', CASE WHEN g % 200 = 3 THEN '[1]'::jsonb ELSE '[]'::jsonb END, 'date', '2026-01-01 00:00:00'), '0:b' || g
         FROM generate_series($1::bigint, $2::bigint) g`,
        [from, Math.min(links, from + CHUNK - 1)],
      );
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('links', 'id'), $1)`, [links]);
    // One link in ten was clicked, on three days; totals 0-149, many ties.
    await client.query(
      `INSERT INTO stat_days (subject, day, user_id) SELECT 'link:' || g, date '2026-01-01' + k, 1 FROM generate_series(10, $1::bigint, 10) g, generate_series(0, 2) k`,
      [links],
    );
    await client.query(`INSERT INTO stat_counts (day_id, metric, label, is_total, n) SELECT id, 'clicks', '', true, (id * 7919) % 50 FROM stat_days WHERE subject LIKE 'link:%'`);
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** A checkout's store on its own schema, seeded by its own code when the schema does not hold the links yet. */
async function twin(label: string, root: string, n: number): Promise<Twin> {
  const schema = `bench_list_${n}_${links}`;
  const { RESOURCES, storeSchema } = (await import(`${root}/src/resources/table.ts`)) as typeof import('../src/resources/table.ts');
  const { PostgresStore } = (await import(`${root}/src/store/postgres/postgres-store.ts`)) as typeof import('../src/store/postgres/postgres-store.ts');
  const { planTables } = (await import(`${root}/src/store/postgres/tables.ts`)) as typeof import('../src/store/postgres/tables.ts');
  const { pageStatement } = (await import(`${root}/src/store/postgres/reads.ts`)) as typeof import('../src/store/postgres/reads.ts');
  if ((await linkCount(schema)) !== links) {
    const { seedSchema } = (await import(`${root}/bench/pg-seed.ts`)) as typeof import('./pg-seed.ts');
    await dropSchema(schema);
    const t = performance.now();
    await seedSchema(schema, {});
    await fill(schema);
    console.log(`${label}: seeded ${links.toLocaleString('en')} links in ${((performance.now() - t) / 1000).toFixed(0)} s (schema ${schema})`);
  }
  const store = await PostgresStore.open({ url: PG_URL, schema, collections: storeSchema(RESOURCES), poolSize: 4, listen: false, statementTimeoutMs: 120_000 });
  const plan = planTables(storeSchema(RESOURCES)).get('links')!;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  const explain = async (q: ListQuery) => {
    const { text, values } = pageStatement(plan, q);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).filter((l) => /->|^\S/.test(l)).map((l) => l.replace(/\s+\(cost.*$/, '')).join('\n');
  };
  return {
    label,
    schema,
    find: (q) => store.find<StoredRecord>('links', q),
    explain,
    close: async () => {
      await store.close();
      await client.end();
      if (!flags.keep) await dropSchema(schema);
    },
  };
}

const twins = [await twin('this checkout', resolve(import.meta.dirname, '..'), 1)];
if (flags.compare) twins.push(await twin(flags.compare, resolve(flags.compare), 2));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const header = `| ${links.toLocaleString('en')} links, one user | ${twins.map((t) => `${t.label}: median ms`).join(' | ')} | total |`;
const lines = [header, `|${' --- |'.repeat(twins.length + 2)}`];
for (const [name, query] of CASES) {
  const times = twins.map(() => [] as number[]);
  const answers: { total: number | null; ids: string }[] = [];
  let total = '';
  for (let round = 0; round <= runs; round++) {
    // Twin after twin, the first alternating by round; round 0 warms up and is not counted.
    for (let k = 0; k < twins.length; k++) {
      const i = (k + round) % twins.length;
      if (times[i]!.length > 0 && times[i]!.reduce((a, b) => a + b) > 20_000) continue;
      const t = performance.now();
      const found = await twins[i]!.find(query).catch((err: Error) => ({ total: -1, items: [], err }));
      const ms = performance.now() - t;
      if (round > 0 || ms > 10_000) times[i]!.push(ms);
      // A capped total (more) is not compared: the other checkout may count them all.
      answers[i] = { total: 'more' in found && found.more ? null : found.total, ids: found.items.map((r) => r.id).join(',') };
      if (i === 0) total = `${found.total.toLocaleString('en')}${'more' in found && found.more ? '+' : ''}`;
    }
  }
  const [a, b] = answers;
  if (a && b && (a.ids !== b.ids || (a.total !== null && b.total !== null && a.total !== b.total))) console.log(`!! ${name}: the answers differ\n  ${answers.map((x) => `${x.total}: ${x.ids.slice(0, 200)}`).join('\n  ')}`);
  lines.push(`| ${name} | ${times.map((t) => median(t).toFixed(1)).join(' | ')} | ${total} |`);
  if (flags.plans) for (const tw of twins) console.log(`-- ${name} (${tw.label}):\n${await tw.explain(query)}`);
}
console.log(lines.join('\n'));
for (const t of twins) await t.close();
