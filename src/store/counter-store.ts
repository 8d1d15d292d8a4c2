/**
 * The statistics side of the storage interface (store.ts): per (subject, day) counts that flushes add
 * to, and the realtime window of the last minutes.
 */
import type { NewEvent } from './outbox-records.ts';
import type { StoredRecord } from './record.ts';

/** Label → count for one dimension of a day. */
export type Labels = Record<string, number>;

/** Counts of one subject on one day: totals (`pageviews: 12`) and per-label tallies (`page: {'/': 9}`). */
export type DayCounts = Record<string, number | Labels>;

/** The collection name statistics days go by in exports, imports, fixtures and `replaceAll`/`scan`. */
export const STATS_COLLECTION = 'stats';

/** A stored day of counters: one per subject ('website:3', 'link:7') and UTC day ('YYYY-MM-DD'). */
export type StatsDay = StoredRecord & { subject: string; day: string; counts: DayCounts };

/** What one flush adds to one (subject, day). */
export interface CountsDelta {
  subject: string;
  day: string;
  /** The subject's owner: deleting the user deletes the counts; a delta of a user deleted meanwhile is dropped. */
  owner?: number;
  counts: DayCounts;
}

/** The durable side of the statistics: per (subject, day) counts that flushes add to, never overwrite. */
export interface CounterStore {
  /**
   * Adds every delta to its (subject, day) in one durable write; a label past `maxLabels` per dimension and day counts as '(other)'.
   * With a `batch` id the write is idempotent: a batch already stored (its first write committed but
   * the answer was lost) is not added again, so a failed flush can be retried as it was.
   * `sightings` (stores shared by several processes only) are checked in the same write, and
   * `events` (what the counts report: clicks since the last flush) appended in it: a batch skipped
   * as stored already appends none again.
   */
  addCounts(deltas: readonly CountsDelta[], maxLabels: number, batch?: string, applied?: () => void, sightings?: SightingCheck, events?: readonly NewEvent[]): Promise<void>;
  /** A subject's stored days between `from` and `to` (inclusive, both optional), oldest first. */
  countedDays(subject: string, from?: string, to?: string): Promise<{ day: string; counts: DayCounts }[]>;
  /** Totals of `names` over all days, per subject (subjects never counted get zeros). */
  countTotals(subjects: readonly string[], names: readonly string[]): Promise<Map<string, Record<string, number>>>;
  /**
   * One bounded step of statistics retention: removes up to `limit` (subject, day)s dated before
   * `before` ('YYYY-MM-DD'), every subject's. How many it removed (0: none is left), or null when
   * another process is pruning now (PostgreSQL: one at a time; it will go on).
   */
  pruneDays(before: string, limit: number): Promise<number | null>;
  /**
   * One bounded step of thinning: removes the `dimensions` (hourly detail) from up to `limit` (subject,
   * day)s dated before `before`, their other counts kept. How many it changed (PostgreSQL: labels
   * removed), 0 when none is left, null when another process is pruning now.
   */
  pruneDimensions(before: string, dimensions: readonly string[], limit: number): Promise<number | null>;
}

/**
 * Visitors that one process took for new (its own ledger had not seen them), checked against every
 * process's in the flush that adds their counts: keys are salted hashes of day, subject and visitor.
 */
export interface SightingCheck {
  keys: readonly { day: string; key: string }[];
  /** What to add (negative counts) for the visitors some other process had seen first, given the keys that were new. */
  correct(fresh: ReadonlySet<string>): CountsDelta[];
}

/** One minute of one subject's pageviews, as a flush adds it to the realtime window. */
export interface RealtimeDelta {
  subject: string;
  /** The minute: whole minutes since the Unix epoch (UTC). */
  minute: number;
  /** The visitors seen in it, as salted hashes (hex): never an IP. */
  visitors: readonly string[];
  /** Page → pageviews in the minute. */
  pages: Labels;
}

/** What the realtime window holds of a subject. */
export interface RealtimeCounts {
  /** Distinct visitors. */
  visitors: number;
  pageviews: number;
  /** Page → pageviews. */
  pages: Labels;
}

/** The last minutes of pageviews and visitors per subject (the realtime view), kept apart from the daily counters. */
export interface RealtimeStore {
  /**
   * Adds a flush's minutes to the window; a `batch` already added is skipped, so a failed flush can
   * be retried as it was. Minutes before `keepFrom` may be forgotten (every process prunes now and then).
   */
  addRealtime(batch: string, deltas: readonly RealtimeDelta[], keepFrom: number): Promise<void>;
  /** A subject's window from minute `from` on; `visitors` counts the distinct ones of the window and of `extra` (keys not stored yet) together. */
  realtimeCounts(subject: string, from: number, extra: readonly string[]): Promise<RealtimeCounts>;
}
