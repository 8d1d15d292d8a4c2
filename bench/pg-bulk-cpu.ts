/**
 * PostgreSQL's CPU for one bulk create (POST /api/url/bulk, 1,000 links), in this process without
 * HTTP, on a fresh schema: the CPU time of the database sessions the store used (their backends'
 * /proc/<pid>/stat, found by node-postgres's `processID`), so other work on the database server
 * is not counted, beside this process's own CPU and the wall time, per request, over N requests
 * sent one after another (after 10 warm-up requests). Work PostgreSQL defers is paid inside the
 * window: autovacuum is off on the schema's tables, and the pending lists of the links' GIN
 * indexes are merged (gin_clean_pending_list) before and after it, on a session that is counted.
 * PostgreSQL must run on this machine (its /proc).
 *   node --import tsx bench/pg-bulk-cpu.ts [--requests N] [--url URL] [--checkout DIR]
 * --checkout runs another checkout's src (a worktree of main) in the same way, for a comparison.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PG_URL } from './pg-seed.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '12' }, url: { type: 'string', default: PG_URL }, checkout: { type: 'string' } } });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const src = (p: string) => import(`${root}/src/${p}`);
const { createApp } = await src('app.ts');
const { loadConfig } = await src('config.ts');
const { ensureAdmin } = await src('bootstrap.ts');
const { fixedClock } = await src('clock.ts');
const { RESOURCES, storeSchema } = await src('resources/table.ts');
const { PostgresStore } = await src('store/postgres/postgres-store.ts');

// The backends of every connection that sends a statement.
const backends = new Set<number>();
const query = pg.Client.prototype.query;
(pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: { processID?: number }, ...a: unknown[]) {
  if (this.processID) backends.add(this.processID);
  return (query as (...a: unknown[]) => unknown).apply(this, a);
};
const TICK_MS = 1000 / 100;
/** CPU ms of each backend so far (utime + stime); a backend that has ended is left out. */
const backendMs = () => {
  const out = new Map<number, number>();
  for (const pid of backends) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      backends.delete(pid);
    }
  }
  return out;
};
/** CPU ms the backends used since `before`; one that ended meanwhile would be missed, so it fails. */
const usedSince = (before: Map<number, number>) => {
  const now = backendMs();
  let ms = 0;
  for (const [pid, t] of now) ms += t - (before.get(pid) ?? 0);
  for (const pid of before.keys()) if (!now.has(pid)) throw new Error(`the backend ${pid} ended during the measurement`);
  return ms;
};

const KEY = 'sk_bench_bulk_key_000000000000000000000000000';
const schema = `bench_pgbulk_${process.pid}`;
const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: ':memory:', BASE_URL: 'http://sho.rt', RATE_LIMIT: '0' });
const store = await PostgresStore.open({ url: values.url, schema, collections: storeSchema(RESOURCES), poolSize: 3, listen: false });
const admin = new pg.Client({ connectionString: values.url });
await admin.connect();
try {
  const { rows } = await admin.query<{ t: string }>('SELECT tablename AS t FROM pg_tables WHERE schemaname = $1', [schema]);
  for (const r of rows) await admin.query(`ALTER TABLE "${schema}"."${r.t}" SET (autovacuum_enabled = false)`);
  const merge = () =>
    admin.query(
      `SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
       WHERE am.amname = 'gin' AND i.indrelid = $1::regclass`,
      [`"${schema}".links`],
    );
  const clock = fixedClock('2026-11-21T10:00:00Z');
  await ensureAdmin(store, clock, KEY);
  const app = createApp({ store, config, clock });
  let k = 0;
  const bulk = async () => {
    const body = JSON.stringify({ urls: Array.from({ length: 1000 }, () => ({ url: `https://example.com/bulk/${process.pid}/${++k}` })) });
    const res = await app.request('/api/url/bulk', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body });
    const answer = (await res.json()) as { succeeded?: number };
    if (res.status !== 200 || answer.succeeded !== 1000) throw new Error(`${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  };
  for (let i = 0; i < 10; i++) await bulk();
  const n = Number(values.requests);
  await merge();
  const b0 = backendMs();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < n; i++) await bulk();
  await merge();
  const wall = performance.now() - w0;
  const c = process.cpuUsage(c0);
  const db = usedSince(b0);
  console.log(`per request (${n}): wall ${(wall / n).toFixed(1)} ms, this process's CPU ${((c.user + c.system) / 1000 / n).toFixed(1)} ms, PostgreSQL's CPU ${(db / n).toFixed(1)} ms`);
} finally {
  await store.close();
  await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  await admin.end();
}
