/**
 * Server CPU of one bulk create (POST /api/url/bulk, 1,000 links) in this process, without HTTP:
 * µs of CPU per link over 5 batches of N requests (their median), and on PostgreSQL the statements each request
 * sent (node-postgres queries). A file store in memory (no fsync), or PostgreSQL on a fresh schema.
 *   node --expose-gc --import tsx bench/bulk-cpu.ts [--requests N] [--pg URL] [--checkout DIR]
 * --checkout runs another checkout's src (a worktree of main) in the same way, for a comparison.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import pg from 'pg';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '10' }, pg: { type: 'string' }, checkout: { type: 'string' } } });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const src = (p: string) => import(`${root}/src/${p}`);
const { createApp } = await src('app.ts');
const { loadConfig } = await src('config.ts');
const { ensureAdmin } = await src('bootstrap.ts');
const { fixedClock } = await src('clock.ts');
const { RESOURCES, storeSchema } = await src('resources/table.ts');
const { FileStore } = await src('store/file/file-store.ts');
const { PostgresStore } = await src('store/postgres/postgres-store.ts');

let queries = 0;
const query = pg.Client.prototype.query;
(pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: unknown, ...a: unknown[]) {
  queries++;
  if (process.env.BULK_SQL) console.log(String(typeof a[0] === 'string' ? a[0] : (a[0] as { text?: string })?.text).replace(/\s+/g, ' ').slice(0, 160));
  return (query as (...a: unknown[]) => unknown).apply(this, a);
};

const KEY = 'sk_bench_bulk_key_000000000000000000000000000';
const schema = `bench_bulk_${process.pid}`;
const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: ':memory:', BASE_URL: 'http://sho.rt', RATE_LIMIT: '0' });
const store = values.pg
  ? await PostgresStore.open({ url: values.pg, schema, collections: storeSchema(RESOURCES), poolSize: 3, listen: false })
  : await FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) });
const clock = fixedClock('2026-11-21T10:00:00Z');
await ensureAdmin(store, clock, KEY);
const { app } = { app: createApp({ store, config, clock }) };

let k = 0;
const body = () => JSON.stringify({ urls: Array.from({ length: 1000 }, () => ({ url: `https://example.com/p/${++k}?q=${k % 97}`, description: 'bench link' })) });
async function bulk(): Promise<{ cpu: number; statements: number }> {
  const text = body();
  const q0 = queries;
  const c0 = process.cpuUsage();
  const res = await app.request('/api/url/bulk', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: text });
  const answer = (await res.json()) as { succeeded?: number };
  const c = process.cpuUsage(c0);
  if (res.status !== 200 || answer.succeeded !== 1000) throw new Error(`${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return { cpu: (c.user + c.system) / 1000, statements: queries - q0 };
}
// CPU of whole batches of requests, a full GC at each batch's end included (so a batch pays for
// the garbage it made, not the one before it): per-request figures swing with where GC falls.
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
for (let i = 0; i < 3; i++) await bulk();
gc();
const batches: number[] = [];
const statements: number[] = [];
for (let b = 0; b < 5; b++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < Number(values.requests); i++) statements.push((await bulk()).statements);
  gc();
  const c = process.cpuUsage(c0);
  batches.push((c.user + c.system) / (Number(values.requests) * 1000));
}
const sorted = [...batches].sort((a, b) => a - b);
console.log(`${values.pg ? 'postgres' : 'file'} ${root}: CPU µs/link median ${sorted[2]!.toFixed(1)} of 5 batches of ${values.requests} (${batches.map((x) => x.toFixed(0)).join(', ')}); statements/request min ${Math.min(...statements)}, median ${[...statements].sort((a, b) => a - b)[statements.length >> 1]}`);
if (values.pg) {
  const admin = new pg.Client({ connectionString: values.pg });
  await admin.connect();
  await store.close();
  await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  await admin.end();
} else await store.close();
process.exit(0);
