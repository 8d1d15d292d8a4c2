/**
 * `npm run bench:pg-big`: the PostgreSQL backend with 1,000,000 links (issue 14, item 4). Seeds a
 * schema (unless it holds them already), starts the real server on it `--starts` times and times
 * spawn → first 200 from /health, then loads one server for `--seconds` with mixed traffic
 * (counted redirects over all the links, list pages among the first 10,000 links (an OFFSET deep into a million walks the index that far), page views and
 * durable creates, in that proportion 16:2:1:1) and samples its RSS every 5 s.
 *
 *   npm run bench:pg-big [-- --links 1000000 --starts 3 --seconds 60 --keep --no-build]
 *
 * Seeding 1M links takes about 1.5-3 minutes here; `--keep` keeps the schema for the next run
 * (otherwise it is dropped at the end).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { median } from './load.ts';
import { dropSchema, linkCount, PG_URL, seedSchema } from './pg-seed.ts';
import { appSpec, buildApp, cpuSeconds, rssMb, startProc } from './processes.ts';
import type { Proc } from './processes.ts';
import { BENCH_KEY, BENCH_SITE, linkAlias } from './seed.ts';

const { values: flags } = parseArgs({
  options: {
    links: { type: 'string', default: '1000000' },
    schema: { type: 'string', default: 'bench_big' },
    starts: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '16' },
    keep: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
});
const links = Number(flags.links);
const schema = flags.schema!;
const log = (line: string) => console.log(line);
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const AUTH = { authorization: `Bearer ${BENCH_KEY}` };

const server = () => startProc(appSpec('pg-big', '', { env: { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'warn' } }));

/** One cycle of the mix each connection runs through: 16 redirects, 2 list pages, 1 page view, 1 create. */
function mix(): autocannon.Request[] {
  const out: autocannon.Request[] = [];
  for (let i = 0; i < 400; i++) {
    // Spread over the whole million (a prime stride), so the link cache holds a small part of what is clicked.
    out.push({ method: 'GET', path: `/${linkAlias(((i * 7919 * 13) % links) + 1)}`, headers: { 'user-agent': BROWSER } });
    if (i % 8 === 0) out.push({ method: 'GET', path: `/api/urls?limit=25&page=${1 + ((i * 101) % 400)}`, headers: AUTH });
    if (i % 16 === 0) {
      out.push({ method: 'POST', path: '/api/event', headers: { 'user-agent': BROWSER, 'content-type': 'text/plain' }, body: JSON.stringify({ page: `https://${BENCH_SITE}/p/${i}`, referrer: 'https://www.google.com/' }) });
      out.push({ method: 'POST', path: '/api/qr/add', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'text', data: `Big ${i}`, name: `Big ${i}` }) });
    }
  }
  return out;
}

async function mixedTraffic(proc: Proc, seconds: number): Promise<void> {
  const made = await fetch(`${proc.url}/api/v1/websites`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ domain: BENCH_SITE }) });
  if (!made.ok && made.status !== 400) throw new Error(`creating the website answered ${made.status}`);
  const samples: { at: number; rss: number }[] = [];
  const started = performance.now();
  const cpuBefore = cpuSeconds(proc.pid);
  const timer = setInterval(() => samples.push({ at: (performance.now() - started) / 1000, rss: rssMb(proc.pid) }), 5000);
  const result = await autocannon({ url: proc.url, connections: Number(flags.connections), duration: seconds, requests: mix(), timeout: 30 });
  clearInterval(timer);
  const rss = rssMb(proc.pid);
  const cpu = cpuSeconds(proc.pid) - cpuBefore;
  const codes = Object.entries((result.statusCodeStats ?? {}) as Record<string, { count?: number }>).map(([code, c]) => `${code}: ${c.count}`);
  log(`\nmixed traffic for ${seconds} s, ${flags.connections} connections: ${result.requests.total.toLocaleString('en')} requests (${(result.requests.total / seconds).toFixed(0)} req/s), statuses ${codes.join(', ')}, errors ${result.errors}, timeouts ${result.timeouts}; server CPU ${((cpu / seconds) * 100).toFixed(0)}%`);
  log(`RSS every 5 s (MB): ${samples.map((s) => s.rss.toFixed(0)).join(', ')}`);
  log(`RSS after ${seconds} s of mixed traffic: ${rss.toFixed(0)} MB (max seen ${Math.max(rss, ...samples.map((s) => s.rss)).toFixed(0)} MB)   target < 250 MB: ${rss < 250 ? 'PASS' : 'FAIL'}`);
}

async function main(): Promise<void> {
  const have = await linkCount(schema);
  if (have !== links) {
    await dropSchema(schema);
    const t = performance.now();
    await seedSchema(schema, { links }, PG_URL, log);
    log(`seeded ${links.toLocaleString('en')} links into schema ${schema} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } else log(`schema ${schema} holds ${links.toLocaleString('en')} links already`);
  if (!flags['no-build']) await buildApp();
  const times: number[] = [];
  for (let i = 1; i <= Number(flags.starts); i++) {
    const proc = await server();
    times.push(proc.readyMs);
    log(`start ${i}: spawn → first 200 from /health ${proc.readyMs.toFixed(0)} ms, RSS ${rssMb(proc.pid).toFixed(0)} MB`);
    await proc.stop();
  }
  const m = median(times);
  log(`median start with ${links.toLocaleString('en')} links: ${m.toFixed(0)} ms   target < 1000 ms: ${m < 1000 ? 'PASS' : 'FAIL'}`);
  const proc = await server();
  try {
    await mixedTraffic(proc, Number(flags.seconds));
  } finally {
    await proc.stop();
  }
}

try {
  await main();
} finally {
  if (!flags.keep) await dropSchema(schema);
}
