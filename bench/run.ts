/**
 * `npm run bench`: seeds data, starts every server on loopback in its own process, loads each
 * with autocannon in interleaved rounds, and prints the table (also written to bench/results.json).
 * Flags: --quick, --rounds N, --duration S, --connections N, --cold-starts N, --only id,id,
 * --profile id (server of that scenario runs with --cpu-prof into bench/profiles; `cold-start` for the
 * starts), --log-level L, --hot-links N (distinct links the redirect rounds click), --keep (the temp data),
 * --compare <checkout> (every file-store scenario also against that checkout's built dist/, alternated),
 * --no-pg (leave out the PostgreSQL rows; they are also left out, with a line saying so, when the database does not answer),
 * --rate N (each measured round sends N requests a second, evenly paced, instead of as many as are
 * answered, each timed from when it was due (load.ts, pacedRound): below saturation, p99 shows the
 * server's pauses rather than its queue).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compareTable, isOther, roundOrder, withTwins } from './compare.ts';
import { runRound } from './load.ts';
import { dropSchema, PG_URL, pgReachable, seedSchema } from './pg-seed.ts';
import { ROOT, appSpec, buildApp, rssMb, startProc } from './processes.ts';
import type { Proc } from './processes.ts';
import { installPeer } from './peer-install.ts';
import { judge, render, summarize } from './report.ts';
import type { Extras, ScenarioResult } from './report.ts';
import { pgSchemas, SIZES, scenarios, seededPaths, serverData, serverSpec } from './scenarios.ts';
import { lookupLine, measureLookups } from './geo-lookup.ts';
import { BENCH_KEY, BENCH_SITE, copyDir, seedDataDir, seedJsonServerDb } from './seed.ts';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'cold-starts': { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
    'hot-links': { type: 'string' },
    keep: { type: 'boolean', default: false },
    compare: { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
    rate: { type: 'string' },
  },
});
const rounds = Number(flags.rounds ?? (flags.quick ? 2 : 4));
const duration = Number(flags.duration ?? (flags.quick ? 2 : 3));
const warmup = flags.quick ? 1 : 2;
const connections = Number(flags.connections);
const rate = flags.rate ? Number(flags.rate) : undefined;
const coldStarts = Number(flags['cold-starts'] ?? (flags.quick ? 3 : 5));
const logLevel = flags['log-level']!;
const only = flags.only ? new Set(flags.only.split(',')) : null;
const profileDir = join(ROOT, 'bench', 'profiles');
const WARMUP_WRITES = 200;
// Bulk requests of the warm-up: enough for the JIT, few records.
const BULK_WARMUP_REQUESTS = 20;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/**
 * Waits until the disk has taken everything written so far (`sync`), then lets the machine settle:
 * the write scenarios (json-server's above all, which rewrites its whole file on every create)
 * leave the kernel flushing afterwards on the same two cores, which must not be billed to
 * whichever scenario comes next.
 */
async function settle(): Promise<void> {
  await new Promise<void>((resolve, reject) => execFile('sync', (err) => (err ? reject(err) : resolve())));
  await new Promise((r) => setTimeout(r, 500));
}

const root = await mkdtemp(join(tmpdir(), 'shortlink-bench-'));
const paths = seededPaths(root);
const usePg = !flags['no-pg'] && (await pgReachable());
if (!usePg && !flags['no-pg']) log(`PostgreSQL does not answer at ${new URL(PG_URL).host}: the PostgreSQL rows are left out`);
const picked = scenarios(root, flags['hot-links'] ? Number(flags['hot-links']) : undefined).filter((s) => (!only || only.has(s.id)) && (usePg || !s.server.startsWith('pg-')));
// Twins of the real server on the file store only: the other build may predate the PostgreSQL backend.
const chosen = flags.compare ? withTwins(picked, (s) => s.server !== 'baseline' && !s.server.startsWith('json-server') && !s.server.startsWith('pg-')) : picked;
const schemas = pgSchemas();
const seededSchemas: string[] = [];
const running = new Map<string, Proc>();
const nodeArgsFor = (server: string) => (flags.profile && chosen.find((s) => s.id === flags.profile)?.server === server ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []);

async function seed(): Promise<void> {
  const started = performance.now();
  await seedDataDir(paths.list, { qrs: SIZES.list });
  await seedDataDir(paths.links, { links: SIZES.links });
  await seedDataDir(paths.event, {});
  const twin = (server: string, from: string, to: string) => (chosen.some((s) => s.server === server) ? copyDir(from, to) : undefined);
  await twin('links-nogeo', paths.links, paths.linksNoGeo);
  await twin('event-nogeo', paths.event, paths.eventNoGeo);
  await twin('links-header', paths.links, paths.linksHeader);
  await twin('event-header', paths.event, paths.eventHeader);
  await twin('event-off', paths.event, paths.eventOff);
  for (const n of SIZES.create) await seedDataDir(paths.create(n), { qrs: n });
  await seedJsonServerDb(paths.jsonServerDb, SIZES.list);
  const pgCounts: Record<string, { qrs?: number; links?: number }> = { 'pg-list': { qrs: SIZES.list }, 'pg-links': { links: SIZES.links }, 'pg-event': {}, 'pg-create': { qrs: 10_000 }, 'pg-bulk': {} };
  pgCounts['pg-list-off'] = pgCounts['pg-list']!;
  pgCounts['pg-event-off'] = pgCounts['pg-event']!;
  for (const name of ['pg-list', 'pg-links', 'pg-event', 'pg-list-off', 'pg-create']) pgCounts[`${name}-w`] = pgCounts[name]!;
  for (const server of new Set(chosen.map((s) => s.server).filter((name) => name.startsWith('pg-')))) {
    seededSchemas.push(schemas[server]!);
    await seedSchema(schemas[server]!, pgCounts[server]!);
  }
  log(`seeded ${root} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await settle();
}

/** Cold start of the real server process with 100k records, several times; also leaves nothing running. */
async function coldStart(): Promise<{ times: number[]; other: number[] }> {
  const dir = join(root, 'cold-100k');
  await copyDir(paths.links, dir);
  const times: number[] = [];
  const other: number[] = [];
  for (let i = 0; i < coldStarts; i++) {
    const nodeArgs = flags.profile === 'cold-start' ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const proc = await startProc(appSpec('cold', dir, { nodeArgs }));
    times.push(proc.readyMs);
    await proc.stop();
    if (flags.compare) {
      const twin = await startProc(serverSpec('cold@other', dir, [], logLevel, flags.compare));
      other.push(twin.readyMs);
      await twin.stop();
    }
  }
  log(`cold starts: ${times.map((t) => t.toFixed(0)).join(', ')} ms${other.length ? `; the other build ${other.map((t) => t.toFixed(0)).join(', ')} ms` : ''}`);
  await settle();
  return { times, other };
}

async function createWebsite(proc: Proc): Promise<void> {
  const res = await fetch(`${proc.url}/api/v1/websites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ domain: BENCH_SITE, exclude_bots: 1 }),
  });
  if (!res.ok) throw new Error(`creating the website answered ${res.status}: ${await res.text()}`);
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  await buildApp();
  if (flags.compare) log(`comparing with ${flags.compare}/dist (build it there first: npm run build)`);
  if (chosen.some((s) => s.server.startsWith('json-server'))) await installPeer(log);
  await seed();
  const extras: Extras = { rss100kLinksIdleMb: null, rss100kLinksLoadedMb: null, coldStartMs: [], coldStartOtherMs: [], geoLookup: null };
  // In this process, before any server runs: nothing else of the benchmark shares the cores then.
  if (!only || only.has('geo-lookup')) {
    extras.geoLookup = measureLookups();
    log(lookupLine(extras.geoLookup));
  }
  if (!only || only.has('cold-start')) ({ times: extras.coldStartMs, other: extras.coldStartOtherMs } = await coldStart());

  const longLived = new Set(chosen.filter((s) => !s.freshFrom).map((s) => s.server));
  // A data directory serves one server at a time (a running server holds its lock socket): the other build gets a copy, made before either starts.
  for (const server of longLived) if (isOther(server)) await copyDir(serverData(server, root), `${serverData(server, root)}-other`);
  for (const server of longLived) {
    const data = isOther(server) ? `${serverData(server, root)}-other` : serverData(server, root);
    const proc = await startProc(serverSpec(server, data, nodeArgsFor(server), logLevel, flags.compare));
    running.set(server, proc);
    if (server.replace(/^pg-/, '').replace(/@other$|-w$/, '').replace(/-(nogeo|header|off)$/, '') === 'event') await createWebsite(proc);
  }
  const links = running.get('links');
  if (links) {
    await new Promise((r) => setTimeout(r, 1000));
    extras.rss100kLinksIdleMb = rssMb(links.pid);
  }

  const results: ScenarioResult[] = chosen.map((s) => ({ id: s.id, label: s.label, records: s.records.toLocaleString('en'), rounds: [], perRequest: s.perRequest }));
  const warm = new Set<string>();
  const grownTo: number[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (const i of roundOrder(chosen, r)) {
      const s = chosen[i]!;
      let proc = running.get(s.server);
      if (s.freshFrom) {
        const copy = join(root, `${s.id}-round-${r}`);
        await copyDir(s.freshFrom, copy);
        proc = await startProc(serverSpec(s.server, copy, nodeArgsFor(s.server), logLevel, flags.compare));
        // A short fixed warm-up, so the collection barely grows before the measured round (a bulk request writes many).
        await runRound(proc, s.load, { connections: s.connections ?? connections, duration: 0, amount: s.perRequest ? BULK_WARMUP_REQUESTS : WARMUP_WRITES });
      } else if (!warm.has(s.id)) {
        await runRound(proc!, s.load, { connections: s.connections ?? connections, duration: warmup });
        warm.add(s.id);
      }
      const round = await runRound(proc!, s.load, { connections: s.connections ?? connections, duration, rate });
      results[i]!.rounds.push(round);
      log(`round ${r}/${rounds} ${s.id}: ${round.rps.toFixed(0)} req/s, p50 ${round.p50} ms, p99 ${round.p99} ms, CPU ${round.cpu.toFixed(0)}% (client ${round.clientCpu.toFixed(0)}%), RSS ${round.rssMb.toFixed(0)} MB${round.bad ? `, ${round.bad} bad` : ''}`);
      if (s.freshFrom) {
        // Each round starts again from the seeded size; show how far the collection grew during it.
        grownTo[i] = Math.max(grownTo[i] ?? 0, s.records + (s.perRequest ? (BULK_WARMUP_REQUESTS + round.requests) * s.perRequest : WARMUP_WRITES + round.requests));
        await proc!.stop(flags.profile === s.id ? 'SIGTERM' : 'SIGKILL');
        await rm(join(root, `${s.id}-round-${r}`), { recursive: true, force: true });
        await settle();
      }
    }
  }
  if (links) extras.rss100kLinksLoadedMb = rssMb(links.pid);

  grownTo.forEach((n, i) => {
    if (n) results[i]!.records += ` (→${Math.round(n / 1000)}k)`;
  });
  const rows = summarize(results);
  const targets = judge(results, rows, extras);
  const machine = { node: process.version, cpus: cpus().length, loadBefore, loadAfter: loadavg()[0]! };
  console.log(`\n${render(rows, extras, targets)}\n`);
  if (flags.compare) console.log(`This build against ${flags.compare} (alternated in every round):\n${compareTable(results)}\n`);
  console.log(`${machine.cpus} CPUs, Node ${machine.node}, 1-minute load average ${loadBefore.toFixed(1)} before and ${machine.loadAfter.toFixed(1)} after the run (other work on the machine shares the cores).`);
  const settings = { rounds, duration, warmup, connections, coldStarts, logLevel, rate, ...machine };
  await writeFile(join(ROOT, 'bench', 'results.json'), JSON.stringify({ at: new Date().toISOString(), settings, scenarios: rows, rounds: results, extras, targets }, null, 2) + '\n');
  log('wrote bench/results.json');
}

try {
  await main();
} finally {
  await Promise.all([...running.values()].map((p) => p.stop()));
  if (flags.keep) log(`kept ${root}`);
  else await rm(root, { recursive: true, force: true });
  for (const schema of seededSchemas) await dropSchema(schema).catch((err: unknown) => log(`could not drop schema ${schema}: ${String(err)}`));
}
