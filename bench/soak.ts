/**
 * `npm run bench:soak`: memory under sustained traffic at a constant number of records. Seeds
 * links and a website, starts the real server (`node dist/main.js serve`), sends counted clicks
 * (`GET /<alias>`, browser user agent) and page views (`POST /api/event`) in turn for a warm-up and
 * then `--seconds`, samples the server's RSS (/proc) and V8 heap (a preloaded probe) every few
 * seconds, and reports the mean level over the first and the last minute after the warm-up, and
 * the slope. Creates nothing.
 * Flags: --seconds S (300), --warmup S (60), --level-seconds S (60), --links N (10000), --visitors N (0: every visit
 * comes from a new visitor; N: a pool of N), --rate R (total req/s, 4000; 0: as fast as it goes),
 * --connections N (16), --sample S (5), --node-args=... (for the server's node), --keep (the data
 * and the samples), --verbose (every sample as it is taken), --live-heap (a full GC before each
 * sample, so heapUsed is the live heap: for diagnosis, since it also keeps the RSS down).
 */
import autocannon from 'autocannon';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { appSpec, buildApp, rssMb, startProc } from './processes.ts';
import type { Proc } from './processes.ts';
import { BENCH_KEY, BENCH_SITE, linkAlias, seedDataDir } from './seed.ts';

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '60' },
    'level-seconds': { type: 'string', default: '60' },
    links: { type: 'string', default: '10000' },
    visitors: { type: 'string', default: '0' },
    rate: { type: 'string', default: '4000' },
    connections: { type: 'string', default: '16' },
    sample: { type: 'string', default: '5' },
    'node-args': { type: 'string', default: '' },
    'live-heap': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const seconds = Number(flags.seconds);
const warmup = Number(flags.warmup);
const levelSeconds = Number(flags['level-seconds']);
const links = Number(flags.links);
const visitors = Number(flags.visitors);
const rate = Number(flags.rate);
const sampleMs = Number(flags.sample) * 1000;
const verbose = flags.verbose!;
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const MB = 2 ** 20;

/** One sample of the server's memory. */
interface Sample {
  /** Seconds since the load started. */
  t: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** The client IP of visit `i`: from a pool of `visitors`, or a new one each time. */
function visitorIp(i: number): string {
  const v = visitors > 0 ? i % visitors : i;
  return `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
}

/** Slope of y over t by least squares, per minute. */
function slopePerMinute(points: { t: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.t - mt) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.t - mt) ** 2, 0);
  return (num / den) * 60;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fix = (x: number, width: number) => x.toFixed(0).padStart(width);

/** The samples cut into consecutive windows of `seconds`. */
function windows(samples: Sample[], seconds: number): Sample[][] {
  const out: Sample[][] = [];
  for (const x of samples) (out[Math.floor(x.t / seconds)] ??= []).push(x);
  return out.filter(Boolean);
}

async function heapOf(probe: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const lines = (await readFile(probe, 'utf8')).trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as { heapUsed: number; heapTotal: number; external: number };
}

async function countRecords(dir: string, collection: string): Promise<number> {
  const text = await readFile(join(dir, `${collection}.json`), 'utf8').catch(() => '{"records":[]}');
  return (JSON.parse(text) as { records: unknown[] }).records.length;
}

async function load(proc: Proc, totalSeconds: number): Promise<autocannon.Result> {
  let clicks = 0;
  let views = 0;
  const click: autocannon.Request = {
    method: 'GET',
    setupRequest: (req) => {
      const i = clicks++;
      return { ...req, path: `/${linkAlias(((i * 7919) % links) + 1)}`, headers: { 'user-agent': BROWSER, 'x-forwarded-for': visitorIp(i) } };
    },
  };
  const view: autocannon.Request = {
    method: 'POST',
    setupRequest: (req) => {
      const i = views++;
      const body = JSON.stringify({ page: `https://${BENCH_SITE}/p/${i % 500}`, referrer: 'https://www.google.com/', screen_resolution: '1920x1080' });
      return { ...req, path: '/api/event', body, headers: { 'user-agent': BROWSER, 'content-type': 'text/plain', 'x-forwarded-for': visitorIp(i) } };
    },
  };
  return autocannon({
    url: proc.url,
    connections: Number(flags.connections),
    duration: totalSeconds,
    ...(rate > 0 ? { overallRate: rate } : {}),
    requests: [click, view],
    timeout: 30,
  });
}

async function main(root: string): Promise<void> {
  const loadBefore = loadavg()[0]!;
  await buildApp();
  const dir = join(root, 'data');
  await seedDataDir(dir, { links });
  const probe = join(root, 'memory.ndjson');
  const liveHeap = flags['live-heap'] ? ['--expose-gc'] : [];
  const nodeArgs = ['--import', './bench/memory-probe.mjs', ...liveHeap, ...flags['node-args']!.split(' ').filter(Boolean)];
  const proc = await startProc(
    appSpec('soak', dir, { nodeArgs, env: { TRUST_PROXY: 'on', MEMORY_PROBE_FILE: probe, MEMORY_PROBE_MS: String(sampleMs), MEMORY_PROBE_GC: flags['live-heap'] ? '1' : '0' } }),
  );
  try {
    const made = await fetch(`${proc.url}/api/v1/websites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ domain: BENCH_SITE }),
    });
    if (!made.ok) throw new Error(`creating the website answered ${made.status}`);
    log(`server pid ${proc.pid}, ${links.toLocaleString('en')} links, RSS ${rssMb(proc.pid).toFixed(0)} MB idle; ${warmup} s warm-up then ${seconds} s`);

    const samples: Sample[] = [];
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const take = async () => {
      const heap = await heapOf(probe);
      const s = { t: (performance.now() - started) / 1000, rss: rssMb(proc.pid), heapUsed: heap.heapUsed / MB, heapTotal: heap.heapTotal / MB, external: heap.external / MB };
      samples.push(s);
      if (verbose) log(`${s.t.toFixed(0).padStart(4)} s  RSS ${s.rss.toFixed(0).padStart(4)} MB  heapUsed ${s.heapUsed.toFixed(0).padStart(4)}  heapTotal ${s.heapTotal.toFixed(0).padStart(4)}  external ${s.external.toFixed(0).padStart(3)}`);
    };
    const timer = setInterval(() => void take(), sampleMs);
    const result = await load(proc, warmup + seconds);
    clearInterval(timer);
    await take();
    const client = process.cpuUsage(cpuBefore);
    await proc.stop();
    const codes = (result.statusCodeStats ?? {}) as Record<string, { count?: number }>;
    const good = (codes['302']?.count ?? 0) + (codes['202']?.count ?? 0);
    const answered = Object.values(codes).reduce((sum, c) => sum + (c.count ?? 0), 0);
    const measured = samples.filter((x) => x.t >= warmup - 0.5);
    const firstWindow = measured.filter((x) => x.t < warmup + levelSeconds);
    const lastWindow = measured.filter((x) => x.t > warmup + seconds - levelSeconds);
    const rssStart = mean(firstWindow.map((x) => x.rss));
    const rssEnd = mean(lastWindow.map((x) => x.rss));
    const change = ((rssEnd - rssStart) / rssStart) * 100;
    const lines = [
      '',
      `Soak: ${links.toLocaleString('en')} links and 1 website (constant: nothing is created), counted clicks and page views in turn,`,
      `${visitors > 0 ? `a pool of ${visitors.toLocaleString('en')} visitors` : 'every visit from a new visitor'}, ${rate > 0 ? `${rate} req/s` : 'unthrottled'}, ${flags.connections} connections, ${warmup} s warm-up + ${seconds} s, a sample every ${flags.sample} s.`,
      `Requests: ${answered.toLocaleString('en')} (${(answered / (warmup + seconds)).toFixed(0)} req/s), bad answers ${answered - good + result.errors + result.timeouts}; client CPU ${(((client.user + client.system) / 1e6 / (warmup + seconds)) * 100).toFixed(0)}%.`,
      `Records after the run: links ${await countRecords(dir, 'links')}, stats days ${await countRecords(dir, 'stats')}.`,
      '',
      'Every 30 s (MB)   RSS min   mean    max   heapUsed min    max   heapTotal max',
      ...windows(samples, 30).map((w) => {
        const r = w.map((x) => x.rss);
        const h = w.map((x) => x.heapUsed);
        const at = `${Math.round(w[0]!.t / 30) * 30}`.padStart(4);
        return `${at} s${w[0]!.t < warmup ? ' (warm-up)' : '          '} ${fix(Math.min(...r), 6)} ${fix(mean(r), 6)} ${fix(Math.max(...r), 6)} ${fix(Math.min(...h), 14)} ${fix(Math.max(...h), 6)} ${fix(Math.max(...w.map((x) => x.heapTotal)), 15)}`;
      }),
      '',
      `Memory (MB)     first ${levelSeconds} s after warm-up   last ${levelSeconds} s   change   slope/min`,
      ...(['rss', 'heapUsed', 'heapTotal', 'external'] as const).map((k) => {
        const a = mean(firstWindow.map((x) => x[k]));
        const b = mean(lastWindow.map((x) => x[k]));
        return `${k.padEnd(16)} ${fix(a, 26)} ${fix(b, 12)} ${(((b - a) / a) * 100).toFixed(1).padStart(7)}% ${slopePerMinute(measured.map((x) => ({ t: x.t, y: x[k] }))).toFixed(2).padStart(11)}`;
      }),
      '',
      `(levels: means over the windows, since the heap saws up and down between full collections; slope: least squares over every sample after the warm-up)`,
      `RSS flat (mean of the last ${levelSeconds} s within 10% of the first ${levelSeconds} s after warm-up): ${Math.abs(change) <= 10 ? 'PASS' : 'FAIL'} (${change >= 0 ? '+' : ''}${change.toFixed(1)}%)`,
      `${cpus().length} CPUs, Node ${process.version}, 1-minute load average ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after.`,
    ];
    console.log(lines.join('\n'));
  } finally {
    await proc.stop();
  }
}

const root = await mkdtemp(join(tmpdir(), 'shortlink-soak-'));
try {
  await main(root);
} finally {
  if (flags.keep) log(`kept ${root}`);
  else await rm(root, { recursive: true, force: true });
}
