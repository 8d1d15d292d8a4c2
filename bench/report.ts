/** The benchmark's table and its targets (issue 7). */
import { median } from './load.ts';
import type { Round } from './load.ts';
import { lookupLine } from './geo-lookup.ts';
import type { LookupTimes } from './geo-lookup.ts';

/** One scenario's rounds and what it was run against. */
export interface ScenarioResult {
  id: string;
  label: string;
  records: string;
  rounds: Round[];
  /** Records each request writes (bulk requests). */
  perRequest?: number;
}

/** Medians over a scenario's rounds. */
export interface Summary {
  id: string;
  label: string;
  records: string;
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  clientCpu: number;
  rssMb: number;
  bad: number;
  rounds: number;
  /** Records written per second (a bulk scenario's req/s times its records per request). */
  recordsPerSecond?: number;
}

/** Measures outside the load rounds. */
export interface Extras {
  rss100kLinksIdleMb: number | null;
  rss100kLinksLoadedMb: number | null;
  coldStartMs: number[];
  /** The same cold starts of the other build (`--compare`), alternated with these. */
  coldStartOtherMs: number[];
  /** The geolocation lookup, timed in the benchmark's own process before the servers start (null: left out by --only). */
  geoLookup: LookupTimes | null;
}

/** One target: its measured value, its threshold and the verdict. */
export interface Target {
  name: string;
  /** From the medians: what the verdict is based on. */
  measured: string;
  /** Median of the per-round ratios, for ratio targets. */
  paired: string;
  wanted: string;
  pass: boolean | null;
}

/** Medians of each scenario's rounds. */
export function summarize(results: readonly ScenarioResult[]): Summary[] {
  return results.map((r) => ({
    id: r.id,
    label: r.label,
    records: r.records,
    rps: median(r.rounds.map((x) => x.rps)),
    p50: median(r.rounds.map((x) => x.p50)),
    p99: median(r.rounds.map((x) => x.p99)),
    cpu: median(r.rounds.map((x) => x.cpu)),
    clientCpu: median(r.rounds.map((x) => x.clientCpu)),
    rssMb: Math.max(...r.rounds.map((x) => x.rssMb)),
    bad: r.rounds.reduce((s, x) => s + x.bad, 0),
    rounds: r.rounds.length,
    ...(r.perRequest ? { recordsPerSecond: median(r.rounds.map((x) => x.rps * r.perRequest!)) } : {}),
  }));
}

const rpsOf = (rows: readonly Summary[], id: string) => rows.find((r) => r.id === id)?.rps ?? NaN;

/** The median over rounds of a/b, each round's pair measured back to back (steadier than a ratio of medians on a noisy machine). */
function pairedRatio(results: readonly ScenarioResult[], a: string, b: string): number {
  const ra = results.find((r) => r.id === a)?.rounds ?? [];
  const rb = results.find((r) => r.id === b)?.rounds ?? [];
  return median(ra.slice(0, rb.length).map((x, i) => x.rps / rb[i]!.rps));
}

function ratioTarget(name: string, ratio: number, paired: number, min: number, unit: '%' | '×'): Target {
  const show = (r: number) => (!Number.isFinite(r) ? 'n/a' : unit === '%' ? `${(r * 100).toFixed(0)}%` : `${r.toFixed(1)}×`);
  // min 0: a figure shown for context, judged by nobody.
  if (min === 0) return { name, measured: show(ratio), paired: show(paired), wanted: '-', pass: null };
  const wanted = unit === '%' ? `≥ ${(min * 100).toFixed(0)}%` : `≥ ${min}×`;
  return { name, measured: show(ratio), paired: show(paired), wanted, pass: Number.isFinite(ratio) ? ratio >= min : null };
}

function minTarget(name: string, value: number, min: number, unit: string): Target {
  const ok = Number.isFinite(value);
  return { name, measured: ok ? `${value.toFixed(0)} ${unit}` : 'n/a', paired: '', wanted: `≥ ${min} ${unit}`, pass: ok ? value >= min : null };
}

function maxTarget(name: string, value: number | null, max: number, unit: string): Target {
  const ok = value !== null && Number.isFinite(value);
  return { name, measured: ok ? `${value.toFixed(0)} ${unit}` : 'n/a', paired: '', wanted: `< ${max} ${unit}`, pass: ok ? value < max : null };
}

function atMostTarget(name: string, value: number | null, max: number, unit: string): Target {
  const ok = value !== null && Number.isFinite(value);
  return { name, measured: ok ? `${value.toFixed(2)} ${unit}` : 'n/a', paired: '', wanted: `≤ ${max} ${unit}`, pass: ok ? value <= max : null };
}

function peakRss(extras: Extras): number | null {
  const values = [extras.rss100kLinksIdleMb, extras.rss100kLinksLoadedMb].filter((v): v is number => v !== null);
  return values.length ? Math.max(...values) : null;
}

/** The targets, judged from the medians of this run (the per-round ratios are shown alongside). */
export function judge(results: readonly ScenarioResult[], rows: readonly Summary[], extras: Extras): Target[] {
  const ratio = (name: string, a: string, b: string, min: number, unit: '%' | '×') =>
    ratioTarget(name, rpsOf(rows, a) / rpsOf(rows, b), pairedRatio(results, a, b), min, unit);
  return [
    ratio('List (GET /api/qr, 10k) vs baseline', 'list', 'baseline', 0.6, '%'),
    // Context, not a target of the issue: the same list from a bare node:http server with no framework.
    ratio('(context) List vs bare node:http answering the same list', 'list', 'baseline-list', 0, '%'),
    ratio('Redirect with click recording vs baseline', 'redirect', 'baseline', 0.5, '%'),
    ratio('Durable create at 10k vs json-server create', 'create-10k', 'json-server-create', 20, '×'),
    ratio('Create at 100k vs create at 1k', 'create-100k', 'create-1k', 0.5, '%'),
    // The larger of the two: right after start the heap still holds the parsed files' garbage.
    maxTarget('Server RSS with 100k links (idle or loaded, larger)', peakRss(extras), 300, 'MB'),
    maxTarget('Cold start to first answer, 100k records (median)', extras.coldStartMs.length ? median(extras.coldStartMs) : null, 1000, 'ms'),
    // Issue 14: the PostgreSQL backend, in the same run as the file store.
    ratio('PostgreSQL redirect with click vs file store redirect', 'pg-redirect', 'redirect', 0.7, '%'),
    minTarget('PostgreSQL durable create (POST /api/qr/add), one process', rpsOf(rows, 'pg-create-10k'), 3000, 'req/s'),
    // Issue 29: the rate limit counted in PostgreSQL (leased slices) against the same list with it off.
    ratio('PostgreSQL list, limiter on vs off, one process', 'pg-list', 'pg-list-off', 0.8, '%'),
    cpuTarget('(context) PostgreSQL list, server CPU µs/req, limiter on / off, one process', rows, 'pg-list', 'pg-list-off'),
    ...workerRows(rows).flatMap(([on, off]) => [
      ratio(`PostgreSQL list, limiter on vs off, ${on.slice('pg-list-w'.length)} workers`, on, off, 0.8, '%'),
      cpuTarget(`(context) PostgreSQL list, server CPU µs/req, limiter on / off, ${on.slice('pg-list-w'.length)} workers`, rows, on, off),
    ]),
    // Issue 29: server CPU per event on PostgreSQL against the file store's, each with its limiter
    // (PostgreSQL's counted in the database, the file store's in memory), and both with it off.
    cpuRatioTarget('PostgreSQL event, server CPU µs/event vs file store', rows, 'pg-event', 'event', 1.5),
    cpuRatioTarget('(context) the same, both with EVENT_RATE_LIMIT=0', rows, 'pg-event-off', 'event-off', 0),
    // Issue 26: geolocation out of the box costs little, against the same load with GEOIP=off.
    atMostTarget('Geolocation lookup, bundled countries (median)', extras.geoLookup?.countryUs ?? null, 5, 'µs'),
    ratio('Redirect located by IP vs GEOIP=off with a CDN header', 'redirect', 'redirect-header', 0.9, '%'),
    ratio('Event located by IP vs GEOIP=off with a CDN header', 'event', 'event-header', 0.9, '%'),
    ratio('(context) Redirect located by IP vs GEOIP=off, no header', 'redirect', 'redirect-nogeo', 0, '%'),
    ratio('(context) Event located by IP vs GEOIP=off, no header', 'event', 'event-nogeo', 0, '%'),
    // Issue 27: links through the bulk create, one process, on each backend.
    minTarget('Bulk create (POST /api/url/bulk), file store, one process', rows.find((r) => r.id === 'bulk-create')?.recordsPerSecond ?? NaN, 20000, 'links/s'),
    minTarget('Bulk create (POST /api/url/bulk), PostgreSQL, one process', rows.find((r) => r.id === 'pg-bulk-create')?.recordsPerSecond ?? NaN, 20000, 'links/s'),
  ];
}

/** The WORKERS=N list rows with the limiter on and off, when both ran. */
function workerRows(rows: readonly Summary[]): [string, string][] {
  const on = rows.find((r) => /^pg-list-w\d+$/.test(r.id));
  const off = on && rows.find((r) => r.id === on.id.replace('pg-list-w', 'pg-list-off-w'));
  return on && off ? [[on.id, off.id]] : [];
}

/** Server CPU µs per request of two rows, side by side, and their ratio (context: no threshold). */
function cpuTarget(name: string, rows: readonly Summary[], a: string, b: string): Target {
  const us = (id: string) => {
    const r = rows.find((x) => x.id === id);
    return r ? (r.cpu * 1e4) / r.rps : NaN;
  };
  const [on, off] = [us(a), us(b)];
  const ok = Number.isFinite(on) && Number.isFinite(off);
  return { name, measured: ok ? `${on.toFixed(0)} / ${off.toFixed(0)} µs (${(on / off).toFixed(2)}×)` : 'n/a', paired: '', wanted: '-', pass: null };
}

/** Server CPU µs per request of `a` and `b` and their ratio, which must stay at most `max` (0: context, judged by nobody). */
function cpuRatioTarget(name: string, rows: readonly Summary[], a: string, b: string, max: number): Target {
  const shown = cpuTarget(name, rows, a, b);
  const us = (id: string) => {
    const r = rows.find((x) => x.id === id);
    return r ? (r.cpu * 1e4) / r.rps : NaN;
  };
  const ratio = us(a) / us(b);
  if (max === 0 || !Number.isFinite(ratio)) return shown;
  return { ...shown, wanted: `≤ ${max}×`, pass: ratio <= max };
}

function table(head: string[], rows: string[][], right: boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fixed = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** The printed report: scenarios, other measures, targets. */
export function render(rows: readonly Summary[], extras: Extras, targets: readonly Target[]): string {
  const base = rpsOf(rows, 'baseline');
  const scenarioTable = table(
    ['Scenario', 'Records', 'req/s (median)', 'p50 ms', 'p99 ms', 'vs baseline', 'server CPU %', 'server CPU µs/req', 'client CPU %', 'server RSS MB', 'bad answers'],
    rows.map((r) => [
      r.label,
      r.records,
      r.recordsPerSecond ? `${fixed(r.rps)} (${fixed(r.recordsPerSecond)} links/s)` : fixed(r.rps),
      fixed(r.p50, 1),
      fixed(r.p99, 1),
      `${fixed((r.rps / base) * 100)}%`,
      fixed(r.cpu),
      fixed((r.cpu * 1e4) / r.rps),
      fixed(r.clientCpu),
      fixed(r.rssMb),
      String(r.bad),
    ]),
    [false, true, true, true, true, true, true, true, true, true, true],
  );
  const cold = extras.coldStartMs;
  const others = [
    `Server RSS with 100,000 links: ${fixed(extras.rss100kLinksIdleMb ?? NaN)} MB idle after start, ${fixed(extras.rss100kLinksLoadedMb ?? NaN)} MB after the redirect rounds`,
    `Cold start to first 200 from /health with 100,000 records: median ${fixed(median(cold))} ms over ${cold.length} starts (${cold.map((c) => c.toFixed(0)).join(', ')} ms)`,
    ...(extras.coldStartOtherMs.length ? [`  the other build, alternated: median ${fixed(median(extras.coldStartOtherMs))} ms (${extras.coldStartOtherMs.map((c) => c.toFixed(0)).join(', ')} ms)`] : []),
    ...(extras.geoLookup ? [lookupLine(extras.geoLookup)] : []),
  ].join('\n');
  const targetTable = table(
    ['Target', 'Measured', 'Per-round median', 'Wanted', 'Verdict'],
    targets.map((t) => [t.name, t.measured, t.paired, t.wanted, t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'FAIL']),
    [false, true, true, true, false],
  );
  return `${scenarioTable}\n\n${others}\n\n${targetTable}`;
}
