/**
 * Event-writing commits of many stores at once on PostgreSQL, in this process without HTTP: what
 * the creates of many workers do to the events' places. N stores (as N worker processes would
 * have: a pool and a group-commit runner each) on one fresh schema each commit transactions that
 * append one event, one after another, for a few seconds; transactions per second, and how often
 * their sessions were seen waiting on a lock (pg_stat_activity sampled every 20 ms, lock waits by
 * type). Little CPU per transaction: what limits it is commits and their WAL flushes.
 *   node --import tsx bench/pg-event-commits.ts [--stores N] [--seconds S] [--url URL] [--checkout DIR]
 * --checkout runs another checkout's src (a worktree of main) in the same way, for a comparison.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PG_URL } from './pg-seed.ts';

const { values } = parseArgs({ options: { stores: { type: 'string', default: '8' }, seconds: { type: 'string', default: '5' }, url: { type: 'string', default: PG_URL }, checkout: { type: 'string' } } });
const root = resolve(values.checkout ?? new URL('..', import.meta.url).pathname);
const src = (p: string) => import(`${root}/src/${p}`);
const { RESOURCES, storeSchema } = await src('resources/table.ts');
const { PostgresStore } = await src('store/postgres/postgres-store.ts');
const { newEvent } = await src('events/event-types.ts');
const { systemClock } = await src('clock.ts');

const schema = `bench_pgcommits_${process.pid}`;
const collections = storeSchema(RESOURCES);
const n = Number(values.stores);
interface BenchTx {
  insert(collection: string, record: object): Promise<{ id: number }>;
  appendEvents(events: unknown[]): Promise<void>;
}
interface BenchStore {
  transaction<R>(fn: (tx: BenchTx) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}
const stores: BenchStore[] = [];
for (let i = 0; i < n; i++) stores.push(await PostgresStore.open({ url: values.url, schema, collections, poolSize: 2, groupRunners: 1, listen: false }));
const admin = new pg.Client({ connectionString: values.url });
await admin.connect();
try {
  const owner = (await stores[0]!.transaction((tx) => tx.insert('users', { username: 'bench', email: 'bench@example.com', keyHash: 'h' }))).id;
  const commit = (store: BenchStore) => store.transaction((tx) => tx.appendEvents([newEvent(owner, 'bench.event', { at: Date.now() }, systemClock)]));
  // Warm-up: every store's connections open.
  await Promise.all(stores.map((s) => Promise.all([commit(s), commit(s)])));
  const waits = new Map<string, number>();
  let samples = 0;
  let done = 0;
  const until = Date.now() + Number(values.seconds) * 1000;
  const started = performance.now();
  const sampling = (async () => {
    while (Date.now() < until) {
      const { rows } = await admin.query<{ w: string }>(
        "SELECT wait_event_type || ':' || wait_event AS w FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND wait_event_type = 'Lock'",
      );
      samples++;
      for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await Promise.all(
    stores.map(async (s) => {
      while (Date.now() < until) {
        await commit(s);
        done++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await sampling;
  const lockWaits = [...waits].map(([w, c]) => `${w} ${c}`).join(', ') || 'none';
  console.log(`${values.checkout ? `${values.checkout}: ` : ''}${n} stores, ${done} commits in ${seconds.toFixed(1)} s: ${Math.round(done / seconds)} commits/s; sessions seen waiting on a lock in ${samples} samples: ${lockWaits}`);
} finally {
  for (const s of stores) await s.close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
