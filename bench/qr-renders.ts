/**
 * `/health` and redirects while clients loop uncached 2048 px QR renders (issue 25, item 1).
 *
 *   node --import tsx bench/qr-renders.ts [--clients 8] [--seconds 10] [--quiet-seconds 4] [--rounds 3]
 *                                         [--entry dist/main.js] [--no-build]
 *
 * Builds dist/ (unless --no-build) and starts the server as the Docker image runs it (`--entry`
 * picks another main.js, e.g. an older checkout's build, to compare), on a fresh data directory,
 * with RENDER_RATE_LIMIT=0 so that every render reaches the threads (eight clients each within a
 * limit of their own cost the same). It makes 64 QR codes (half with a 200×200 PNG logo) and one
 * link. Each round first probes alone (--quiet-seconds), then with `--clients` clients each
 * asking, one at a time, for a 2048 px PNG never asked for before (code × margin × level: 4,352
 * images, so none is cached). The probe asks, one at a time with 10 ms between, for `/health`
 * and for the link (a browser user agent: the click is recorded). Prints each round, then the
 * medians over rounds. RENDER_THREADS, RENDER_QUEUE and the like are taken from the environment.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from 'pngjs';
import { median } from './load.ts';
import { buildApp, startProc } from './processes.ts';

const { values: flags } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    'quiet-seconds': { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    entry: { type: 'string', default: 'dist/main.js' },
    'no-build': { type: 'boolean', default: false },
  },
});
const KEY = 'sk_bench_qr_renders_0000000000000000000000';
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const CODES = 64;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

function logoUri(): string {
  const png = new PNG({ width: 200, height: 200 });
  for (let i = 0; i < 200 * 200; i++) png.data.set([(i * 7) % 256, (i * 13) % 256, (i * 29) % 256, 255], i * 4);
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

async function post(url: string, path: string, body: unknown): Promise<{ link?: string; shorturl?: string }> {
  const res = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { error: number; link?: string; shorturl?: string };
  if (res.status !== 200 || json.error !== 0) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Latency figures of one probe path, ms. */
type Figures = { n: number; p50: number; p99: number; max: number };
const figures = (ms: number[]): Figures => {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s[s.length - 1] ?? NaN };
};

/** Asks for `/health` and the link in turn until `stop()` is true. */
async function probe(url: string, linkPath: string, stop: () => boolean): Promise<{ health: Figures; redirect: Figures; failed: number }> {
  let failed = 0;
  const health: number[] = [];
  const redirect: number[] = [];
  for (let i = 0; !stop(); i++) {
    const [path, into, expect] = i % 2 === 0 ? ['/health', health, 200] : [linkPath, redirect, 302];
    const t = performance.now();
    try {
      const res = await fetch(url + path, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
      await res.arrayBuffer();
      if (res.status !== expect) throw new Error(`${path} answered ${res.status}`);
      into.push(performance.now() - t);
    } catch {
      failed++;
    }
    await sleep(10);
  }
  return { health: figures(health), redirect: figures(redirect), failed };
}

const row = (label: string, f: { health: Figures; redirect: Figures; failed?: number }) =>
  `${label.padEnd(28)} /health p50 ${f.health.p50.toFixed(1).padStart(6)} p99 ${f.health.p99.toFixed(1).padStart(7)} max ${f.health.max.toFixed(1).padStart(7)} ms (n=${f.health.n})   ` +
  `redirect p50 ${f.redirect.p50.toFixed(1).padStart(6)} p99 ${f.redirect.p99.toFixed(1).padStart(7)} max ${f.redirect.max.toFixed(1).padStart(7)} ms (n=${f.redirect.n})${f.failed ? `, ${f.failed} failed` : ''}`;

const clients = Number(flags.clients);
const seconds = Number(flags.seconds);
const quietSeconds = Number(flags['quiet-seconds']);
const rounds = Number(flags.rounds);
if (!flags['no-build'] && flags.entry === 'dist/main.js') await buildApp();
const dir = await mkdtemp(join(tmpdir(), 'bench-qr-'));
const load = loadavg()[0]!;
const server = await startProc({
  name: 'server',
  args: [flags.entry!, 'serve'],
  env: { DATA_DIR: dir, ADMIN_API_KEY: KEY, RATE_LIMIT: '1000000', RENDER_RATE_LIMIT: '0', LOG_LEVEL: 'warn', ...process.env },
  health: '/health',
});
try {
  const logo = logoUri();
  const aliases: string[] = [];
  for (let i = 0; i < CODES; i++) {
    const made = await post(server.url, '/api/qr/add', { type: 'text', data: `bench code ${i}`, ...(i % 2 === 0 ? { logo } : {}) });
    aliases.push(new URL(made.link!).pathname);
  }
  const link = new URL((await post(server.url, '/api/url/add', { url: 'https://example.com/landing' })).shorturl!).pathname;
  let next = 0;
  // Every request a new image: code × margin (0..16) × level; sizes would snap to one step.
  const uncached = () => {
    const n = next++;
    return `${aliases[n % CODES]}?size=2048&margin=${Math.floor(n / CODES) % 17}&ecl=${'LMQH'[Math.floor(n / CODES / 17) % 4]}`;
  };
  const results: { quiet: Awaited<ReturnType<typeof probe>>; loaded: Awaited<ReturnType<typeof probe>>; renders: Map<string, number>; rendersPerS: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const quietUntil = performance.now() + quietSeconds * 1000;
    const quiet = await probe(server.url, link, () => performance.now() > quietUntil);
    const renders = new Map<string, number>();
    let stopping = false;
    const loops = Array.from({ length: clients }, async () => {
      while (!stopping) {
        // A connection the server closed as it was reused (keep-alive) counts as an error, and the loop goes on.
        const status = await fetch(server.url + uncached()).then(
          async (res) => (await res.arrayBuffer(), String(res.status)),
          () => 'error',
        );
        renders.set(status, (renders.get(status) ?? 0) + 1);
      }
    });
    await sleep(500); // every client has a render under way
    const loadedFrom = performance.now();
    const loaded = await probe(server.url, link, () => performance.now() - loadedFrom > seconds * 1000);
    const rendersPerS = (renders.get('200') ?? 0) / ((performance.now() - loadedFrom + 500) / 1000);
    stopping = true;
    await Promise.all(loops);
    results.push({ quiet, loaded, renders, rendersPerS });
    console.log(row(`round ${round}, quiet`, quiet));
    console.log(row(`round ${round}, ${clients} renderers`, loaded));
    console.log(`${''.padEnd(28)} renders answered by status ${JSON.stringify(Object.fromEntries(renders))}, ${rendersPerS.toFixed(1)} images/s`);
  }
  const med = (pick: (r: (typeof results)[number]) => number) => median(results.map(pick));
  const medians = (key: 'quiet' | 'loaded') => ({
    health: { n: med((r) => r[key].health.n), p50: med((r) => r[key].health.p50), p99: med((r) => r[key].health.p99), max: med((r) => r[key].health.max) },
    redirect: { n: med((r) => r[key].redirect.n), p50: med((r) => r[key].redirect.p50), p99: med((r) => r[key].redirect.p99), max: med((r) => r[key].redirect.max) },
    failed: med((r) => r[key].failed),
  });
  console.log(`\nmedians of ${rounds} rounds (${flags.entry}; ${availableParallelism()} cores, load average ${load.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after: other work shares the machine)`);
  console.log(row('quiet', medians('quiet')));
  console.log(row(`${clients} clients rendering 2048 px`, medians('loaded')));
  console.log(`${''.padEnd(28)} ${med((r) => r.rendersPerS).toFixed(1)} images/s; target: p99 under 20 ms for both while rendering`);
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
