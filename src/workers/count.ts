import { availableParallelism } from 'node:os';
import type { Config } from '../config.ts';

/** How many workers the settings mean here: `auto` is one per core, but one on the JSON files (one process's). */
export function workerCount(config: Pick<Config, 'workers' | 'databaseUrl'>, cores = availableParallelism()): number {
  if (config.workers !== 'auto') return config.workers;
  return config.databaseUrl ? cores : 1;
}
