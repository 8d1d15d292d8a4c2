/**
 * One round of load, in a process of its own (started by runRound in bench/load.ts): reads a Job
 * as JSON on stdin, warms up, loads the server with autocannon while measuring both processes'
 * CPU, and writes the Round as JSON on stdout.
 */
import autocannon from 'autocannon';
import type { Job, Round } from './load.ts';
import { cpuSeconds, rssMb } from './processes.ts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const job = JSON.parse(input) as Job;
const options = { url: job.url, connections: job.connections, requests: job.requests, timeout: 30 };

if (job.warmup > 0) await autocannon({ ...options, duration: job.warmup });
const cpuBefore = cpuSeconds(job.pid);
const clientBefore = process.cpuUsage();
const wallBefore = performance.now();
const result = await autocannon({ ...options, ...(job.amount ? { amount: job.amount } : { duration: job.duration }) });
const wall = (performance.now() - wallBefore) / 1000;
const cpu = ((cpuSeconds(job.pid) - cpuBefore) / wall) * 100;
const client = process.cpuUsage(clientBefore);
const codes = (result.statusCodeStats ?? {}) as Record<string, { count?: number }>;
const good = codes[String(job.expect)]?.count ?? 0;
const answered = Object.values(codes).reduce((sum, c) => sum + (c.count ?? 0), 0);
const round: Round = {
  rps: good / (result.duration || wall),
  p50: result.latency.p50,
  p99: result.latency.p99,
  requests: answered,
  bad: answered - good + result.errors + result.timeouts,
  cpu,
  clientCpu: ((client.user + client.system) / 1e6 / wall) * 100,
  rssMb: rssMb(job.pid),
};
process.stdout.write(JSON.stringify(round));
