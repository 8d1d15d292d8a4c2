import { availableParallelism } from 'node:os';
import type { Config } from '../config.ts';
import { siblingModule } from '../threads/start-thread.ts';
import { TaskError, WorkerPool } from '../threads/worker-pool.ts';
import { workerCount } from '../workers/count.ts';
import { fitsByLength } from './capacity.ts';
import { QrTooLongError } from './render-errors.ts';
import type { ErrorCorrection } from './render.ts';
import type { QrThreadTask, RenderTask } from './render-task.ts';

// The bitmaps (16 MB of RGBA for 2048 px, up to 16 MB more for a logo) are outside V8's heap; the
// heap itself needs little, and a thread whose heap runs away ends, taking only its own task with it.
const THREAD_MEMORY_MB = 256;

/** How a renderer's pool is sized. */
export interface RendererOptions {
  threads: number;
  /** Images that may wait for a thread. */
  queue: number;
  /** A thread idle this long ends (default 30 s). */
  idleMs?: number;
}

/**
 * Draws QR images (drawTask) and checks what fits (fitsInQr) on a bounded pool of worker threads,
 * so that a 2048 px render (about 0.4 s of CPU) or a long payload's symbol (up to 0.2 s) never holds
 * up the event loop. PoolFullError when the queue is full.
 */
export class QrRenderer {
  private readonly pool: WorkerPool<QrThreadTask, Uint8Array<ArrayBuffer> | boolean>;

  constructor(options: RendererOptions) {
    this.pool = new WorkerPool({
      name: 'QR render',
      entry: siblingModule('render-worker', import.meta.url),
      threads: options.threads,
      maxQueued: options.queue,
      idleMs: options.idleMs,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_MEMORY_MB },
    });
  }

  /** The image of `task` (see drawTask); QrTooLongError when the payload does not fit at its error correction. */
  async render(task: RenderTask): Promise<Uint8Array<ArrayBuffer>> {
    try {
      return (await this.pool.run({ draw: task })) as Uint8Array<ArrayBuffer>;
    } catch (err) {
      if (err instanceof TaskError && err.name === 'QrTooLongError') throw new QrTooLongError();
      throw err;
    }
  }

  /** Whether `payload` fits in a QR code at `level`: at once when its length tells, else on a thread. */
  async fits(payload: string, level: ErrorCorrection): Promise<boolean> {
    return fitsByLength(payload, level) || ((await this.pool.run({ fits: payload, level })) as boolean);
  }

  /** Tasks (renders and fit checks) that reached a thread so far. */
  get renders(): number {
    return this.pool.started;
  }

  /** Ends the threads (tests; a server's threads end by themselves when idle). */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Render threads per process: RENDER_THREADS, or for `auto` one less than the cores (the event loops
 * keep one), shared among the WORKERS processes, at least 1. On 2 cores: 1.
 */
export function renderThreadCount(config: Pick<Config, 'renderThreads' | 'workers' | 'databaseUrl'>, cores = availableParallelism()): number {
  if (config.renderThreads !== 'auto') return config.renderThreads;
  return Math.max(1, Math.floor((cores - 1) / workerCount(config, cores)));
}

// One pool per process and settings: the threads share the process's cores, whatever number of
// apps it builds (tests build one per case; TEST_MODE's reset builds another).
const shared = new Map<string, QrRenderer>();

/** This process's renderer for the settings of `config`. */
export function sharedRenderer(config: Pick<Config, 'renderThreads' | 'renderQueue' | 'workers' | 'databaseUrl'>): QrRenderer {
  const options = { threads: renderThreadCount(config), queue: config.renderQueue };
  const key = `${options.threads}/${options.queue}`;
  let renderer = shared.get(key);
  if (!renderer) shared.set(key, (renderer = new QrRenderer(options)));
  return renderer;
}
