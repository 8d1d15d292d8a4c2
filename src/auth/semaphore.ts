/** Raised when a refusable task finds the queue full: the caller should answer "busy, retry soon". */
export class BusyError extends Error {}

/**
 * Runs async tasks at most `limit` at a time, the rest in arrival order. Refusable tasks are
 * refused (BusyError) once `maxWaiting` tasks wait; the others always wait their turn.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly limit: number,
    readonly maxWaiting: number,
  ) {}

  /** Runs `task` once a slot is free; `refusable` tasks throw BusyError instead of joining a full queue. */
  async run<T>(task: () => Promise<T>, refusable = false): Promise<T> {
    if (this.running < this.limit) this.running++;
    else {
      if (refusable && this.waiting.length >= this.maxWaiting) throw new BusyError('Too many password checks are waiting.');
      // The slot is handed over by the task that ends, so `running` is unchanged.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}
