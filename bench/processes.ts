/** Starting, watching and stopping the processes under test. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSON_SERVER_BIN } from './peer-install.ts';

/** The repository root: every process is started from there. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A server process on loopback. */
export interface Proc {
  name: string;
  pid: number;
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
  /** Milliseconds from spawn to the first 200 from its health path. */
  readyMs: number;
  /** Stops the process (SIGTERM by default) and waits for it; SIGKILL after 10 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** What to start. */
export interface ProcSpec {
  name: string;
  /** Arguments to node. */
  args: string[];
  env?: Record<string, string>;
  /** The path answered with 200 once the process serves. */
  health: string;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns `node <args>` with PORT set to a free port and resolves once `health` answers 200. */
export async function startProc(spec: ProcSpec, port?: number): Promise<Proc> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, spec.args, {
    cwd: ROOT,
    env: { ...process.env, ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let dead = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => ((dead = true), resolve())));
  for (;;) {
    if (dead) throw new Error(`${spec.name} exited before answering:\n${stderr}`);
    if ((await status(url + spec.health)) === 200) break;
    if (performance.now() - started > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`${spec.name} did not answer within 60 s:\n${stderr}`);
    }
    await sleep(2);
  }
  const readyMs = performance.now() - started;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (dead) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { name: spec.name, pid: child.pid!, url, child, exited, readyMs, stop };
}

/** Resident set size of a process, MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The fields of /proc/<pid>/stat after the command name (which may contain spaces), from the state (field 3) on; null once the process is gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time a process and its live children have used so far, seconds (user + system, Linux
 * /proc): a WORKERS=N server's primary does little, its workers the work.
 */
export function cpuSeconds(pid: number): number {
  const ticksPerSecond = 100;
  const own = (fields: string[] | null) => (fields ? (Number(fields[11]) + Number(fields[12])) / ticksPerSecond : 0);
  let total = own(statFields(pid));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields?.[1] === String(pid)) total += own(fields);
  }
  return total;
}

/**
 * The server under test as the Docker image runs it, `node dist/main.js serve` (see buildApp), with
 * the benchmark's settings. TRUST_PROXY=1: the redirect and event loads come from public addresses
 * in X-Forwarded-For, as visitors behind a proxy do, so geolocation has something to find.
 */
export function appSpec(name: string, dataDir: string, extra: { env?: Record<string, string>; nodeArgs?: string[] } = {}): ProcSpec {
  return {
    name,
    args: [...(extra.nodeArgs ?? []), 'dist/main.js', 'serve'],
    env: { DATA_DIR: dataDir, RATE_LIMIT: '1000000', EVENT_RATE_LIMIT: '1000000', LOG_LEVEL: 'warn', TRUST_PROXY: '1', ...extra.env },
    health: '/health',
  };
}

/** Builds dist/ from the current sources with `npm run build`'s script, so the benchmark never runs a stale build. */
export async function buildApp(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the build failed (${code})`))));
  });
}

/** The peer: json-server v1 serving `dbFile` (installed by installPeer). */
export function jsonServerSpec(name: string, dbFile: string): ProcSpec {
  return { name, args: [JSON_SERVER_BIN, dbFile, '--host', '127.0.0.1'], health: '/qrs?_page=1&_per_page=1' };
}

/** The baseline: a bare node:http server answering a small JSON body. */
export function baselineSpec(): ProcSpec {
  return { name: 'baseline', args: ['--import', 'tsx', 'bench/baseline-server.ts'], health: '/' };
}
