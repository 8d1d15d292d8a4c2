/**
 * How long one statistics flush holds the event loop, on each backend: a second of redirect-like
 * clicks (`--clicks` over `--links` links from 2,000 visitors, the labels a real click adds) is
 * buffered, then flushed while a ticker measures the longest gap between its turns. A request
 * arriving during that gap waits for it whole: this is what a flush adds to redirect p99.
 * Usage: node --import tsx bench/flush-pauses.ts [--clicks 20000] [--links 2000] [--flushes 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { systemClock } from '../src/clock.ts';
import { cryptoRandom } from '../src/random.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import type { Store } from '../src/store/store.ts';
import { addresses } from './geo-lookup.ts';
import { dropSchema, PG_URL, pgReachable } from './pg-seed.ts';
import { median } from './load.ts';

const { values } = parseArgs({ options: { clicks: { type: 'string', default: '20000' }, links: { type: 'string', default: '2000' }, flushes: { type: 'string', default: '5' } } });
const clicks = Number(values.clicks);
const links = Number(values.links);
const flushes = Number(values.flushes);
const visitors = addresses(2000);
const COUNTRIES = ['Germany', 'United States', 'France', 'India', 'Brazil', 'Japan', 'Unknown'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];

/** The longest gap between turns of a ticker while `work` runs, and how long it took in all, ms. */
async function stalls(work: () => Promise<void>): Promise<{ maxGapMs: number; wallMs: number }> {
  let last = performance.now();
  let maxGap = 0;
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  // One more turn: a flush that never yielded is one gap, ending now.
  await new Promise((resolve) => setImmediate(resolve));
  ticking = false;
  return { maxGapMs: maxGap, wallMs };
}

async function measure(name: string, store: Store): Promise<void> {
  const user = await store.transaction((tx) => tx.insert('users', { username: 'bench', email: 'bench@example.com', keyHash: 'x' }));
  const counters = new DailyCounters(store, { clock: systemClock, random: cryptoRandom, flushMs: 3_600_000 });
  await counters.ready();
  const gaps: number[] = [];
  const walls: number[] = [];
  for (let f = 0; f <= flushes; f++) {
    for (let i = 0; i < clicks; i++) {
      const n = f * clicks + i;
      const ip = visitors[n % visitors.length]!;
      counters.recordVisit(`link:${(n * 7919) % links}`, ip, 'Mozilla/5.0 Chrome/126.0', (seen) => ({
        add: { clicks: 1, uniqueClicks: seen.newToday ? 1 : 0 },
        labels: { country: COUNTRIES[n % COUNTRIES.length]!, referrer: 'Direct, email and other', browser: BROWSERS[n % BROWSERS.length]!, os: 'Windows', device: 'Desktop', language: 'en', source: 'Direct / None' },
      }), { owner: user.id });
    }
    const { maxGapMs, wallMs } = await stalls(() => counters.flush());
    // The first flush creates the day rows and labels: the later ones are the steady state.
    if (f > 0) {
      gaps.push(maxGapMs);
      walls.push(wallMs);
    }
  }
  await counters.close();
  console.log(`${name.padEnd(11)} ${clicks} clicks over ${links} links per flush: longest stall ${median(gaps).toFixed(1)} ms (median of ${gaps.length}; ${gaps.map((g) => g.toFixed(1)).join(', ')}), flush ${median(walls).toFixed(0)} ms`);
}

// On disk, as a server keeps it: the flush's journal entry is made (and written) with the flush.
const dir = mkdtempSync(join(tmpdir(), 'flush-pauses-'));
try {
  const file = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
  await measure('file store', file);
  await file.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (await pgReachable()) {
  const schema = `bench_${process.pid}_flush`;
  const pg = await PostgresStore.open({ url: PG_URL, schema, collections: storeSchema(RESOURCES) });
  try {
    await measure('PostgreSQL', pg);
  } finally {
    await pg.close();
    await dropSchema(schema);
  }
}
