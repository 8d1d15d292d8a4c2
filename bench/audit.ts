/**
 * What the audit log costs a write, and how it is written.
 *
 *   node --import tsx bench/audit.ts [--creates 200] [--concurrent 1000] [--in-flight 16] [--rounds 3] [--no-pg]
 *
 * The real app in this process (`app.request`, no sockets), on a real data directory (journal
 * fsynced) and on PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres,
 * a schema of its own dropped at the end), creating pixels (`POST /api/pixel/add`) three ways:
 *
 * - off: no audit log at all (its entries dropped);
 * - batched: the server's way, entries buffered and written a second later, many in one transaction;
 * - per request: each entry in a transaction of its own, waited for before the write counts as
 *   answered, as a log written with each request would be.
 *
 * Prints, per backend and way, the latency of one create at a time and the throughput with
 * `--in-flight` creates at once (the batched way's writes of those creates' entries inside its
 * window): medians of `--rounds` interleaved rounds. A benchmark, not a
 * test: nothing fails on a time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { AUDIT, AuditLog } from '../src/audit/audit-log.ts';
import type { AuditEntry } from '../src/audit/audit-log.ts';
import { ensureAdmin } from '../src/bootstrap.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { Store } from '../src/store/store.ts';

const KEY = 'sk_bench_audit_key_00000000000000000000000000';
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

type Way = 'off' | 'batched' | 'per request';

/** An audit log that drops its entries (off) or writes each in a transaction of its own (per request). */
class BenchAudit extends AuditLog {
  written: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly target: Store,
    private readonly way: Way,
  ) {
    super(target, { clock: systemClock });
  }
  override record(entry: Omit<AuditEntry, 'date'> & { date?: string }): void {
    if (this.way === 'batched') return super.record(entry);
    if (this.way === 'per request') this.written = this.target.transaction((tx) => tx.insert(AUDIT, { ...entry, date: new Date().toISOString().slice(0, 19).replace('T', ' ') }));
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function run(store: Store, way: Way, creates: number, concurrent: number, inFlight: number) {
  const audit = new BenchAudit(store, way);
  const app = createApp({ store, config: loadConfig({ DATA_DIR: ':memory:', RATE_LIMIT: '0', LOG_LEVEL: 'silent' }), audit });
  let n = 0;
  const create = async () => {
    const res = await app.request('/api/pixel/add', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'gapixel', name: `p${n++}`, tag: 'G-1' }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`create answered ${res.status}`);
    await audit.written;
  };
  const took: number[] = [];
  for (let i = 0; i < creates; i++) {
    const t = performance.now();
    await create();
    took.push(performance.now() - t);
  }
  // The throughput's window holds the writes of its own entries, all of them: what the creates
  // before it left buffered is written first, and what it buffered is written before it ends.
  await audit.flush();
  const started = performance.now();
  let left = concurrent;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) await create();
  }));
  await audit.flush();
  const perSecond = concurrent / ((performance.now() - started) / 1000);
  took.sort((a, b) => a - b);
  return { p50: quantile(took, 0.5), p99: quantile(took, 0.99), perSecond };
}

const creates = flag('creates', 200);
const concurrent = flag('concurrent', 1000);
const inFlight = flag('in-flight', 16);
const rounds = flag('rounds', 3);
const backends: { name: string; open: () => Promise<{ store: Store; done: () => Promise<void> }> }[] = [
  {
    name: 'JSON files',
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'bench-audit-'));
      const store = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
      return { store, done: () => store.close().then(() => rm(dir, { recursive: true, force: true })) };
    },
  },
];
if (!process.argv.includes('--no-pg')) {
  backends.push({
    name: 'PostgreSQL',
    open: async () => {
      const schema = `bench_audit_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      const store = await PostgresStore.open({ url: PG_URL, schema, collections: storeSchema(RESOURCES), listen: false });
      return {
        store,
        done: async () => {
          await store.close();
          const client = new pg.Client({ connectionString: PG_URL });
          await client.connect();
          await client.query(`DROP SCHEMA "${schema}" CASCADE`);
          await client.end();
        },
      };
    },
  });
}
// Interleaved rounds (every way of every store, then again), medians shown: a busy machine's load hits all alike.
const results = new Map<string, { p50: number[]; p99: number[]; perSecond: number[] }>();
for (let round = 1; round <= rounds; round++) {
  for (const backend of backends) {
    // Which way goes first alternates by round: the first run of a round warms up for the others.
    const ways = ['off', 'batched', 'per request'] as const;
    for (const way of round % 2 === 1 ? ways : [...ways].reverse()) {
      const { store, done } = await backend.open();
      try {
        await ensureAdmin(store, systemClock, KEY);
        const r = await run(store, way, creates, concurrent, inFlight);
        const kept = results.get(`${backend.name}\u0000${way}`) ?? { p50: [], p99: [], perSecond: [] };
        kept.p50.push(r.p50);
        kept.p99.push(r.p99);
        kept.perSecond.push(r.perSecond);
        results.set(`${backend.name}\u0000${way}`, kept);
      } finally {
        await done();
      }
    }
  }
  console.error(`round ${round} of ${rounds} done`);
}
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
const rows = [...results].map(([k, r]) => [...k.split('\u0000'), median(r.p50).toFixed(2), median(r.p99).toFixed(2), median(r.perSecond).toFixed(0)]);
const head = ['Store', 'Audit log', 'p50 ms (one at a time)', 'p99 ms', `creates/s (${inFlight} at once)`];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log([line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
