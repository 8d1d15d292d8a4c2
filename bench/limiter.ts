/**
 * What a rate-limit decision costs when the windows are shared (PostgreSQL, and Redis with
 * BENCH_REDIS_URL): one busy key, 32 requests at a time for `--seconds` (3) after a second and a
 * half of warm-up, decided by the limiter as the server runs it (leased slices) and counted exactly
 * (one round trip per request, coalesced while one is under way: the limiter without slices). Prints
 * decisions per second, this process's CPU µs per decision and round trips per 1,000 decisions.
 *
 *   node --import tsx bench/limiter.ts [--seconds 3]
 */
import pg from 'pg';
import { systemClock } from '../src/clock.ts';
import { SharedLimiter } from '../src/limits/shared-limiter.ts';
import { SharedWindows } from '../src/limits/shared-windows.ts';
import { createLogger } from '../src/log.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { WindowCounter } from '../src/store/store.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL;
const at = process.argv.indexOf('--seconds');
const SECONDS = at > 0 ? Number(process.argv[at + 1]) : 3;
const CONCURRENCY = 32;
const WARM_UP_MS = 1500;

interface Row {
  where: string;
  mode: string;
  perSecond: number;
  cpuUs: number;
  tripsPer1000: number;
}

/** Decides requests of one key for WARM_UP_MS, then measures SECONDS of them. */
async function measure(where: string, mode: 'slices' | 'exact', counter: WindowCounter): Promise<Row> {
  const windows = new SharedWindows(counter, where, 'closed', createLogger('silent'), null);
  const name = `bench${Date.now()}`;
  const limiter = new SharedLimiter(name, 1e9, 3_600_000, systemClock, windows, 'closed');
  const decide = mode === 'slices' ? () => limiter.hit('k') : () => windows.hit(`${name}:k`, Date.now() - (Date.now() % 3_600_000) + 3_600_000);
  let stopAt = Date.now() + WARM_UP_MS;
  const run = () => Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    let n = 0;
    while (Date.now() < stopAt) {
      await decide();
      n++;
    }
    return n;
  }));
  await run();
  stopAt = Date.now() + SECONDS * 1000;
  const trips = windows.roundTrips;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const done = (await run()).reduce((a, b) => a + b, 0);
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await limiter.release();
  return { where, mode, perSecond: done / wall, cpuUs: (used.user + used.system) / done, tripsPer1000: ((windows.roundTrips - trips) * 1000) / done };
}

const rows: Row[] = [];
const schema = `bench_limiter_${process.pid}`;
const store = await PostgresStore.open({ url: PG_URL, schema, collections: storeSchema(RESOURCES), poolSize: 10, listen: false });
try {
  for (const mode of ['exact', 'slices', 'exact', 'slices'] as const) rows.push(await measure('PostgreSQL', mode, store.windows));
} finally {
  await store.close();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
if (REDIS_URL) {
  const { RedisWindows } = await import('../src/limits/redis-windows.ts');
  const redis = await RedisWindows.open(REDIS_URL, `bench:limiter:${process.pid}:`);
  for (const mode of ['exact', 'slices', 'exact', 'slices'] as const) rows.push(await measure('Redis', mode, redis));
  redis.close();
} else console.log('(Redis left out: set BENCH_REDIS_URL)');

console.log('where       mode     decisions/s  CPU µs/decision  round trips/1,000');
for (const r of rows) console.log(`${r.where.padEnd(11)} ${r.mode.padEnd(7)} ${r.perSecond.toFixed(0).padStart(12)} ${r.cpuUs.toFixed(1).padStart(16)} ${r.tripsPer1000.toFixed(2).padStart(18)}`);
