/**
 * Durable creates while password guessers hammer a protected link (issue "Hardening", item 4).
 *
 *   node --import tsx bench/password-guessing.ts [--guessers 32] [--creates 100]
 *
 * Starts the real server (through tsx) on a fresh data directory, measures POST /api/url/add one
 * at a time on a quiet server, then again while `--guessers` clients post wrong passwords to a
 * protected link as fast as they are answered. Settings such as PASSWORD_ATTEMPT_LIMIT=0 are taken
 * from the environment, so the same run can show the server with its limits on or off.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProc } from './processes.ts';

const KEY = 'sk_bench_password_guessing_000000000000000';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${quantile(s, 0.5).toFixed(1)} ms, p90 ${quantile(s, 0.9).toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;
};

async function creates(url: string, n: number, from: number): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/api/url/add`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: `https://example.com/${from + i}` }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`create answered ${res.status}`);
    took.push(performance.now() - t);
  }
  return took;
}

const guessers = flag('guessers', 32);
const n = flag('creates', 100);
const dir = await mkdtemp(join(tmpdir(), 'bench-guess-'));
const server = await startProc({ name: 'server', args: ['--import', 'tsx', 'src/main.ts', 'serve'], env: { DATA_DIR: dir, ADMIN_API_KEY: KEY, RATE_LIMIT: '1000000', LOG_LEVEL: 'warn' }, health: '/health' });
try {
  const link = await fetch(`${server.url}/api/url/add`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com/vault', custom: 'vault', password: 'the right one' }) });
  if (link.status !== 200) throw new Error(`protected link: ${link.status} ${await link.text()}`);
  await creates(server.url, 20, 0); // warm-up
  const quiet = await creates(server.url, n, 1000);

  let running = true;
  const statuses = new Map<number, number>();
  const guesser = async (g: number) => {
    for (let i = 0; running; i++) {
      const res = await fetch(`${server.url}/vault`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `password=guess-${g}-${i}`, redirect: 'manual' });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  const started = performance.now();
  const loops = Array.from({ length: guessers }, (_, g) => guesser(g));
  await new Promise((r) => setTimeout(r, 1000));
  const loaded = await creates(server.url, n, 100_000);
  running = false;
  await Promise.all(loops);
  const seconds = (performance.now() - started) / 1000;
  const answered = [...statuses.values()].reduce((a, b) => a + b, 0);

  const limits = ['PASSWORD_ATTEMPT_LIMIT', 'PASSWORD_ATTEMPT_LINK_LIMIT'].map((k) => `${k}=${process.env[k] ?? '(default)'}`).join(' ');
  console.log(`${limits}, ${guessers} guessers, ${n} sequential creates each`);
  console.log(`create, quiet server:        ${summary(quiet)}`);
  console.log(`create, while guessing:      ${summary(loaded)}`);
  console.log(`guesses answered: ${answered} in ${seconds.toFixed(1)} s (${(answered / seconds).toFixed(0)}/s), by status ${JSON.stringify(Object.fromEntries(statuses))}`);
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
