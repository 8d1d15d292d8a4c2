import type { ResourceLimits, Worker } from 'node:worker_threads';
import { startThread } from './start-thread.ts';
import type { TaskReply } from './task-port.ts';

/** Raised when a pool's queue is full: answer "busy" (503) and ask the client to come back after `retryAfter` seconds. */
export class PoolFullError extends Error {
  constructor(
    readonly pool: string,
    readonly retryAfter: number,
  ) {
    super(`The ${pool} queue is full.`);
    this.name = 'PoolFullError';
  }
}

/** A task that failed in its thread (or took its thread down), with the name of what was thrown there. */
export class TaskError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** How a pool is made. */
export interface PoolOptions {
  /** For messages: "QR render". */
  name: string;
  /** The module each thread runs; it calls serveTasks. */
  entry: URL;
  /** Threads at most; each runs one task at a time. */
  threads: number;
  /** Tasks that may wait for a thread; one more is refused with PoolFullError. */
  maxQueued: number;
  /** A thread idle this long ends, giving its memory back (a later task starts another). */
  idleMs?: number;
  resourceLimits?: ResourceLimits;
}

type Job = { task: unknown; resolve: (value: unknown) => void; reject: (err: Error) => void };
type Thread = { worker: Worker; job: Job | null; since: number; idle?: NodeJS.Timeout };

/**
 * A bounded pool of worker threads for CPU-heavy tasks, so the event loop only routes and waits.
 * Threads start when tasks need them and end when idle; an idle thread does not keep the process
 * alive. Tasks beyond the threads wait in arrival order, at most `maxQueued` of them.
 */
export class WorkerPool<In, Out> {
  private readonly threads = new Set<Thread>();
  private readonly queue: Job[] = [];
  // A running estimate of one task's time, for Retry-After.
  private taskMs = 250;
  private closed = false;
  /** Tasks that reached a thread so far (tests count renders by it). */
  started = 0;

  constructor(readonly options: PoolOptions) {}

  /** Runs `task` on a thread; PoolFullError at once when `maxQueued` tasks already wait. */
  run(task: In): Promise<Out> {
    if (this.closed) return Promise.reject(new Error(`The ${this.options.name} pool is closed.`));
    const free = [...this.threads].find((t) => t.job === null);
    if (!free && this.threads.size >= this.options.threads && this.queue.length >= this.options.maxQueued) {
      return Promise.reject(new PoolFullError(this.options.name, this.retryAfter()));
    }
    return new Promise<unknown>((resolve, reject) => {
      const job = { task, resolve, reject };
      if (free) this.dispatch(free, job);
      else if (this.threads.size < this.options.threads) this.dispatch(this.spawn(), job);
      else this.queue.push(job);
    }) as Promise<Out>;
  }

  /** Tasks on a thread now. */
  get running(): number {
    return [...this.threads].filter((t) => t.job !== null).length;
  }

  /** Threads alive now, busy or idle. */
  get size(): number {
    return this.threads.size;
  }

  /** Tasks waiting for a thread. */
  get queued(): number {
    return this.queue.length;
  }

  /** Ends every thread; waiting and running tasks are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error(`The ${this.options.name} pool is closed.`));
    await Promise.all([...this.threads].map((t) => this.end(t, new Error(`The ${this.options.name} pool is closed.`))));
  }

  /** Seconds until a place in the queue is likely free: the work ahead, shared by the threads. */
  private retryAfter(): number {
    const ahead = this.queue.length + this.threads.size;
    return Math.max(1, Math.ceil((ahead * this.taskMs) / this.options.threads / 1000));
  }

  private spawn(): Thread {
    const worker = startThread(this.options.entry, this.options.resourceLimits);
    const thread: Thread = { worker, job: null, since: 0 };
    this.threads.add(thread);
    worker.on('message', (reply: TaskReply<Out>) => {
      const job = thread.job;
      if (!job) return;
      this.taskMs = this.taskMs * 0.8 + (performance.now() - thread.since) * 0.2;
      thread.job = null;
      if (reply.ok) job.resolve(reply.value);
      else job.reject(new TaskError(reply.name, reply.message));
      this.next(thread);
    });
    // A thread that throws outside a task, runs out of memory or exits takes its task with it; the
    // next task starts another thread.
    worker.on('error', (err) => void this.end(thread, new TaskError('ThreadError', `A ${this.options.name} thread failed: ${err.message}`)));
    worker.on('exit', (code) => void this.end(thread, new TaskError('ThreadError', `A ${this.options.name} thread exited with code ${code}.`)));
    return thread;
  }

  private dispatch(thread: Thread, job: Job): void {
    clearTimeout(thread.idle);
    thread.job = job;
    thread.since = performance.now();
    thread.worker.ref();
    this.started++;
    thread.worker.postMessage(job.task);
  }

  private next(thread: Thread): void {
    const job = this.queue.shift();
    if (job) return this.dispatch(thread, job);
    thread.worker.unref();
    thread.idle = setTimeout(() => void this.end(thread), this.options.idleMs ?? 30_000);
    thread.idle.unref();
  }

  private async end(thread: Thread, err?: Error): Promise<void> {
    if (!this.threads.delete(thread)) return;
    clearTimeout(thread.idle);
    thread.job?.reject(err ?? new Error('thread ended'));
    thread.job = null;
    // A task that waited for this thread gets a new one.
    const job = !this.closed && this.threads.size < this.options.threads && this.queue.shift();
    if (job) this.dispatch(this.spawn(), job);
    await thread.worker.terminate();
  }
}
