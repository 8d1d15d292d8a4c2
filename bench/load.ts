/** One round of load with autocannon, reduced to the figures the table needs. */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { ROOT } from './processes.ts';
import type { Proc } from './processes.ts';

/**
 * What a scenario sends. `vary(i)` gives the path or body of variant `i` of `variants`; autocannon
 * builds every variant once and cycles through them (a per-request setupRequest would cost the
 * load generator more CPU than a bare server spends answering, and make the baseline client-bound).
 */
export interface Load {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  path: string;
  body?: string;
  variants?: number;
  vary?: (i: number) => { path?: string; body?: string };
  /** The status every answer must have (e.g. 200, 302, 202). */
  expect: number;
}

/** How hard and how long. */
export interface LoadOptions {
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration: number;
  amount?: number;
}

/** The figures of one round. */
export interface Round {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Answers with another status than expected, plus socket errors and timeouts. */
  bad: number;
  /** Server CPU over the round, % of one core. */
  cpu: number;
  /** The load generator's own CPU (its worker process), % of one core: near 100 means the client was the limit. */
  clientCpu: number;
  rssMb: number;
}

/** What the load worker is given: one round against one server, requests built already. */
export interface Job {
  pid: number;
  url: string;
  requests: autocannon.Request[];
  expect: number;
  connections: number;
  duration: number;
  amount?: number;
  /** Seconds of load before the measured round, to warm the client (and the server) up. */
  warmup: number;
}

/**
 * Runs one round against `proc` in a fresh load-generator process (bench/load-worker.ts), so that
 * rounds are independent: no client heap, JIT or socket state carries from one scenario to the
 * next, and every read scenario's client is warmed up the same way before it is measured.
 */
export async function runRound(proc: Proc, load: Load, options: LoadOptions & { warmup?: number }): Promise<Round> {
  const base: autocannon.Request = { method: load.method, path: load.path, headers: load.headers, body: load.body };
  const requests = load.vary ? Array.from({ length: load.variants ?? 1 }, (_, i) => ({ ...base, ...load.vary!(i) })) : [base];
  const job: Job = { pid: proc.pid, url: proc.url, requests, expect: load.expect, connections: options.connections, duration: options.duration, amount: options.amount, warmup: options.warmup ?? 0 };
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/load-worker.ts'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin.end(JSON.stringify(job));
  const code = await exited;
  if (code !== 0) throw new Error(`the load worker exited with ${code}`);
  return JSON.parse(out) as Round;
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
