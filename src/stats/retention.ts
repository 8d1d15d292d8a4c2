import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { dayOf } from '../visits/visitor.ts';

/** The hourly detail of the statistics: kept for STATS_HOURLY_DAYS, while the days keep their other counts. */
export const HOURLY_DIMENSIONS = ['pageviews_hour', 'visitors_hour'] as const;

/** How long statistics are kept (the settings STATS_RETENTION_DAYS and STATS_HOURLY_DAYS). */
export interface RetentionSettings {
  /** Days kept before today; 0 keeps every day. */
  statsRetentionDays: number;
  /** Days before today whose hourly detail is kept; 0 keeps all of it. */
  statsHourlyDays: number;
}

/** (Subject, day)s one pruning step changes at most: one short transaction each, so writers never wait long. */
export const PRUNE_BATCH = 200;

const DAY_MS = 86_400_000;

/** The first day kept at `now` (days before it are removed) and the first that keeps its hourly detail; undefined where everything is kept. */
export function retentionCutoffs(now: number, settings: RetentionSettings): { before: string | undefined; hourlyBefore: string | undefined } {
  const cutoff = (days: number) => (days > 0 ? dayOf(now - days * DAY_MS) : undefined);
  return { before: cutoff(settings.statsRetentionDays), hourlyBefore: cutoff(settings.statsHourlyDays) };
}

/** What one retention run removed. */
export interface Pruned {
  /** (Subject, day)s removed. */
  days: number;
  /** (Subject, day)s whose hourly detail was removed. */
  thinned: number;
}

/** How often the schedule looks whether the clock's day changed (its runs are once a day). */
const CHECK_EVERY_MS = 3_600_000;

/**
 * Statistics retention: removes the days STATS_RETENTION_DAYS no longer keeps and the hourly detail
 * of the days past STATS_HOURLY_DAYS, off the request path: soon after the start, then whenever the
 * clock's day changed (looked at hourly). A run goes step by step (PRUNE_BATCH each) until nothing is
 * left; on PostgreSQL one process at a time prunes a schema, and a process that finds another at it
 * leaves the run to it. Sightings and the realtime window are pruned by the flushes, on their own schedule.
 */
export class StatsRetention {
  private timer: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private running: Promise<Pruned> | null = null;
  private stopped = false;
  private lastDay = '';

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: RetentionSettings,
    private readonly log: Logger,
  ) {}

  /** Starts the schedule: a run after `delayMs`, then one each time the clock's day changed. */
  start(delayMs = 1000): void {
    this.timer = setTimeout(() => void this.run(), delayMs).unref();
    this.ticker = setInterval(() => {
      if (dayOf(this.clock.now()) !== this.lastDay) void this.run();
    }, CHECK_EVERY_MS).unref();
  }

  /** One run now (or the one under way): everything past the cut-offs of the clock's time removed. Never throws: a failure is logged, and the next run goes on. */
  run(): Promise<Pruned> {
    this.running ??= this.prune().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async prune(): Promise<Pruned> {
    const now = this.clock.now();
    const { before, hourlyBefore } = retentionCutoffs(now, this.settings);
    const done: Pruned = { days: 0, thinned: 0 };
    try {
      if (before !== undefined) done.days = await this.steps(() => this.store.pruneDays(before, PRUNE_BATCH));
      if (hourlyBefore !== undefined) done.thinned = await this.steps(() => this.store.pruneDimensions(hourlyBefore, HOURLY_DIMENSIONS, PRUNE_BATCH));
      this.lastDay = dayOf(now);
      if (done.days > 0 || done.thinned > 0) this.log.info('statistics retention', { removedDays: done.days, before: before ?? null, hourlyRemovedDays: done.thinned, hourlyBefore: hourlyBefore ?? null });
    } catch (err) {
      this.log.error('statistics retention failed: the next run goes on', { error: String(err) });
    }
    return done;
  }

  /** Runs `step` until it changes nothing, another process has the turn, or the schedule stops; the total it changed. */
  private async steps(step: () => Promise<number | null>): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const n = await step();
      if (!n) break;
      total += n;
      // Let requests in between steps.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }

  /** Stops the schedule and waits for a run under way to end its step. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    await this.running;
  }
}
