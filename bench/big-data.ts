/**
 * The file store at sizes beyond the benchmark's: seeds a data directory with `--links N` short
 * links (unless it already holds them), then starts the real server on it (`node dist/main.js
 * serve`, as the image runs it) `--starts N` times and reports the time from spawn to the first
 * 200 from /health and the RSS after start (and its peak while loading). Then a round trip: one
 * link created through the API, a clean stop (the server rewrites the whole links file itself)
 * and one more start, which must find every link.
 *
 *   node --import tsx bench/big-data.ts --links 2000000 --dir /tmp/big [--starts 3] [--no-build]
 *
 * `--compare <other>/dist/main.js` alternates the cold starts between this build and another one
 * (another checkout, built), so that the machine's changing load hits both alike, and prints the
 * medians of both.
 *
 * The directory is kept for the next run (`--reseed` makes it again); it is not part of the repository.
 */
import { readFileSync } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { appSpec, buildApp, rssMb, startProc } from './processes.ts';
import { BENCH_KEY, seedDataDir } from './seed.ts';

const { values: flags } = parseArgs({
  options: {
    links: { type: 'string', default: '2000000' },
    dir: { type: 'string' },
    starts: { type: 'string', default: '3' },
    'no-build': { type: 'boolean', default: false },
    reseed: { type: 'boolean', default: false },
    compare: { type: 'string' },
  },
});
const links = Number(flags.links);
const dir = flags.dir ?? `/tmp/shortlink-big-${links}`;
const starts = Number(flags.starts);

/** Peak resident set size of a process so far, MB (Linux /proc). */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function linkCount(url: string): Promise<number> {
  const res = await fetch(`${url}/api/urls?limit=1`, { headers: { authorization: `Bearer ${BENCH_KEY}` } });
  const body = (await res.json()) as { data: { result: number } };
  return body.data.result;
}

async function start(label: string, main = 'dist/main.js'): Promise<{ url: string; stop: () => Promise<void>; ms: number }> {
  const spec = appSpec(label, dir, { env: { LOG_LEVEL: 'warn' } });
  const proc = await startProc({ ...spec, args: [main, 'serve'] });
  console.log(`${label.padEnd(26)} ${proc.readyMs.toFixed(0).padStart(8)} ms ${rssMb(proc.pid).toFixed(0).padStart(7)} MB ${peakRssMb(proc.pid).toFixed(0).padStart(9)} MB`);
  return { url: proc.url, stop: () => proc.stop(), ms: proc.readyMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const exists = await access(join(dir, 'links.json')).then(
    () => true,
    () => false,
  );
  if (flags.reseed || !exists) {
    await rm(dir, { recursive: true, force: true });
    const t = performance.now();
    await seedDataDir(dir, { links });
    console.log(`seeded ${links.toLocaleString('en')} links into ${dir} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  if (!flags['no-build']) await buildApp();
  console.log(`${'start'.padEnd(26)} ${'spawn → 200'.padStart(11)} ${'RSS'.padStart(10)} ${'peak RSS'.padStart(12)}`);
  const times: number[] = [];
  const other: number[] = [];
  for (let i = 1; i <= starts; i++) {
    const s = await start(`cold start ${i}`);
    times.push(s.ms);
    await s.stop();
    if (flags.compare) {
      const o = await start(`  the other build, ${i}`, flags.compare);
      other.push(o.ms);
      await o.stop();
    }
  }
  console.log(`median cold start: ${median(times).toFixed(0)} ms${flags.compare ? `; the other build ${median(other).toFixed(0)} ms (${flags.compare})` : ''}`);
  const s = await start('before the round trip');
  const before = await linkCount(s.url);
  const made = await fetch(`${s.url}/api/url/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `https://example.com/round-trip/${Date.now()}` }), // a new URL: the same one again would answer the existing link
  });
  if (!made.ok) throw new Error(`creating a link answered ${made.status}`);
  const t = performance.now();
  await s.stop();
  console.log(`clean stop, the whole links file rewritten by the server: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const again = await start('after the round trip');
  const after = await linkCount(again.url);
  await again.stop();
  console.log(`links: ${before.toLocaleString('en')} before, ${after.toLocaleString('en')} after the round trip${after === before + 1 ? '' : '  MISMATCH'}`);
  if (after !== before + 1) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
