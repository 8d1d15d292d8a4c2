/** One round of load with autocannon, reduced to the figures the table needs. */
import { Agent, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';
import { cpuSeconds, rssMb } from './processes.ts';
import type { Proc } from './processes.ts';

/**
 * What a scenario sends. `vary(i)` gives the path, body or extra headers of variant `i` of `variants`; autocannon
 * builds every variant once and cycles through them (a per-request setupRequest would cost the
 * load generator more CPU than a bare server spends answering, and make the baseline client-bound).
 */
export interface Load {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  path: string;
  body?: string;
  variants?: number;
  vary?: (i: number) => { path?: string; body?: string; headers?: Record<string, string> };
  /** The status every answer must have (e.g. 200, 302, 202). */
  expect: number;
}

/** How hard and how long. */
export interface LoadOptions {
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration: number;
  amount?: number;
  /** Requests per second, evenly paced over all connections (pacedRound); unset: as fast as answered. */
  rate?: number;
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
  /** The load generator's own CPU (this process), % of one core: near 100 means the client was the limit. */
  clientCpu: number;
  rssMb: number;
}

function variant(base: autocannon.Request, v: { path?: string; body?: string; headers?: Record<string, string> }): autocannon.Request {
  return { ...base, ...v, headers: { ...base.headers, ...v.headers } };
}

/** Runs one round against `proc` and measures the server process alongside. */
export async function runRound(proc: Proc, load: Load, options: LoadOptions): Promise<Round> {
  const base: autocannon.Request = { method: load.method, path: load.path, headers: load.headers, body: load.body };
  const requests = load.vary ? Array.from({ length: load.variants ?? 1 }, (_, i) => variant(base, load.vary!(i))) : [base];
  if (options.rate) return pacedRound(proc, load.expect, requests, options.rate, options.amount ?? Math.round(options.rate * options.duration), options.connections);
  const cpuBefore = cpuSeconds(proc.pid);
  const clientBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const result = await autocannon({
    url: proc.url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration }),
    ...(options.rate ? { overallRate: options.rate } : {}),
    requests,
    timeout: 30,
  });
  const wall = (performance.now() - wallBefore) / 1000;
  const cpu = ((cpuSeconds(proc.pid) - cpuBefore) / wall) * 100;
  const client = process.cpuUsage(clientBefore);
  const clientCpu = ((client.user + client.system) / 1e6 / wall) * 100;
  const codes = (result.statusCodeStats ?? {}) as Record<string, { count?: number }>;
  const good = codes[String(load.expect)]?.count ?? 0;
  const answered = Object.values(codes).reduce((sum, c) => sum + (c.count ?? 0), 0);
  return {
    rps: good / (result.duration || wall),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: answered,
    bad: answered - good + result.errors + result.timeouts,
    cpu,
    clientCpu,
    rssMb: rssMb(proc.pid),
  };
}

/**
 * A round at a fixed rate: request i is due at start + i / rate, whatever the answers before it, and
 * its latency counts from then (an open loop: a pause of the server is seen by every request due
 * during it, none left out). autocannon's overallRate sends each connection's share of a second in a
 * burst at the second's start, and fills its histogram with made-up samples for every response
 * slower than 1 ms: its p99 at a fixed rate was the burst's queue, ~600 ms at 3,000 req/s on 2 cores.
 * Requests go over up to `connections` keep-alive sockets; one due while all are busy waits for one.
 */
async function pacedRound(proc: Proc, expect: number, requests: readonly autocannon.Request[], rate: number, amount: number, connections: number): Promise<Round> {
  const { hostname, port } = new URL(proc.url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.max(1, amount);
  const latencies: number[] = [];
  let good = 0;
  let bad = 0;
  const cpuBefore = cpuSeconds(proc.pid);
  const clientBefore = process.cpuUsage();
  const start = performance.now() + 20;
  let sent = 0;
  let done = 0;
  await new Promise<void>((resolve) => {
    const send = (i: number) => {
      const r = requests[i % requests.length]!;
      const due = start + (i * 1000) / rate;
      // Each request is counted once, answered or failed (a response cut short fails on `res`).
      let counted = false;
      const fail = () => {
        if (counted) return;
        counted = true;
        bad++;
        if (++done === total) resolve();
      };
      const req = httpRequest({ host: hostname, port, agent, method: r.method, path: r.path, headers: r.headers }, (res) => {
        res.resume();
        res.on('error', fail);
        res.on('end', () => {
          if (counted) return;
          counted = true;
          latencies.push(performance.now() - due);
          if (res.statusCode === expect) good++;
          else bad++;
          if (++done === total) resolve();
        });
      });
      req.on('error', fail);
      req.end(r.body);
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) send(sent++);
      if (sent < total) setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
    };
    setTimeout(tick, 20);
  });
  agent.destroy();
  const wall = (performance.now() - start) / 1000;
  const cpu = ((cpuSeconds(proc.pid) - cpuBefore) / wall) * 100;
  const client = process.cpuUsage(clientBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: good / wall, p50: at(0.5), p99: at(0.99), requests: done, bad, cpu, clientCpu: ((client.user + client.system) / 1e6 / wall) * 100, rssMb: rssMb(proc.pid) };
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
