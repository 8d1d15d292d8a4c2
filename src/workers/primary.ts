import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { docsUrl, localUrl, probePort } from '../server.ts';

// In a module of its own, so that what sizes itself by the processes (the render pool) does not load the primary.
export { workerCount } from './count.ts';

/** Restarts of a worker that died young wait twice as long as the last one, from FIRST to MAX; a worker that lived STABLE resets its wait. */
export const RESTART = { FIRST_MS: 500, MAX_MS: 30_000, STABLE_MS: 10_000 };
/** How long workers get to drain on SIGTERM before they are killed (and the primary exits 1). */
const DRAIN_MS = 30_000;

/** The delay before restarting a worker that lived `livedMs`, after a last delay of `lastMs` (0: none yet). */
export function restartDelay(livedMs: number, lastMs: number): number {
  return livedMs >= RESTART.STABLE_MS || lastMs === 0 ? RESTART.FIRST_MS : Math.min(RESTART.MAX_MS, lastMs * 2);
}

/**
 * The primary of WORKERS=N: checks the port, forks `count` workers (each opens the store and
 * listens on the shared port; the primary opens nothing), restarts one that dies, after a delay that
 * grows while it keeps dying young. SIGTERM (or SIGINT) sends SIGTERM to every worker, which
 * closes its server, flushes its counters and closes the store; the primary exits 0 once all did.
 * When no worker ever came up (the start itself fails: the database unreachable, …) it exits 1.
 */
export async function runPrimary(count: number, config: Config, log: Logger): Promise<void> {
  if (config.port !== 0) await probePort(config);
  const slots = new Map<Worker, { slot: number; startedAt: number }>();
  const delays = new Array<number>(count).fill(0);
  const timers = new Set<NodeJS.Timeout>();
  let listening = 0;
  let stopping = false;
  let failed = false;

  const fork = (slot: number) => slots.set(cluster.fork(), { slot, startedAt: Date.now() });
  const finish = () => {
    if (slots.size > 0) return;
    log.info(`all workers stopped; exiting`);
    process.exit(failed ? 1 : 0);
  };
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: draining ${slots.size} workers`);
    for (const t of timers) clearTimeout(t);
    for (const w of slots.keys()) w.process.kill('SIGTERM');
    setTimeout(() => {
      log.error(`workers still running after ${DRAIN_MS / 1000} s: killing them`);
      failed = true;
      for (const w of slots.keys()) w.process.kill('SIGKILL');
    }, DRAIN_MS).unref();
    finish();
  };

  cluster.on('listening', (worker, address) => {
    if (++listening !== count) return;
    const url = localUrl(config.host, address.port);
    log.info(`${count} workers listening on ${url}; docs: ${docsUrl(config, url)}`);
  });
  cluster.on('exit', (worker, code, signal) => {
    const info = slots.get(worker);
    slots.delete(worker);
    if (!info) return;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (stopping) {
      // A worker still starting has no handler yet: SIGTERM ends it, with nothing to drain.
      if (code !== 0 && signal !== 'SIGTERM') failed = true;
      return finish();
    }
    if (listening === 0) {
      // Not one worker came up: the start fails as a single process's would (the worker said why).
      log.error(`worker ${worker.id} (pid ${worker.process.pid}) ${how} before any worker listened: stopping`);
      failed = true;
      return stop('start failed');
    }
    const delay = (delays[info.slot] = restartDelay(Date.now() - info.startedAt, delays[info.slot]!));
    log.warn(`worker ${worker.id} (pid ${worker.process.pid}) ${how}; starting another in ${delay / 1000} s`);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopping) fork(info.slot);
    }, delay);
    timers.add(timer);
  });
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  log.info(`starting ${count} workers`);
  for (let slot = 0; slot < count; slot++) fork(slot);
}
