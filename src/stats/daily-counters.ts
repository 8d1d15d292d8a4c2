import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import type { RandomSource } from '../random.ts';
import type { Store, Tx } from '../store/store.ts';
import { dayOf } from '../visits/visitor.ts';
import { copyCounts, emptyCounts, foldInto, mergeCounts, totalOf } from './counts.ts';
import type { DayCounts, StatsDay, Tally } from './counts.ts';
import type { Sighting } from './visitor-ledger.ts';
import { VisitorLedger } from './visitor-ledger.ts';

// What a subject that was never counted has: read only, shared, never written to.
const NO_DAYS: ReadonlyMap<string, number> = new Map();

/** The collection day counters are kept in. */
export const STATS_COLLECTION = 'stats';

/** How a DailyCounters is built; everything but clock and random has a default. */
export interface DailyCounterOptions {
  clock: Clock;
  random: RandomSource;
  log?: Logger;
  /** Delay between the first buffered event and the batched write (default 1000 ms). */
  flushMs?: number;
  /** Distinct labels per dimension and day before OVERFLOW_LABEL takes the rest (default 1000). */
  maxLabels?: number;
  /** Visitor sightings a day past which a warning says unique counts may undercount (default LEDGER_RATED_SIGHTINGS). */
  ratedSightings?: number;
}

/** Who and when an event is counted for. */
export interface CountedFor {
  /** The subject's owner, stored as `userId` so deleting the user deletes the counts. */
  owner?: number;
  /** Epoch ms; default now. */
  at?: number;
}

interface Pending {
  subject: string;
  day: string;
  owner: number | undefined;
  counts: DayCounts;
}

/**
 * Per-(subject, day) counters for every kind of statistics (websites, links): events fold into an
 * in-memory buffer that reads see at once, and one batched store write every `flushMs` (and on
 * store close) makes them durable, so the request path never waits for the disk.
 */
export class DailyCounters {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly flushMs: number;
  private readonly maxLabels: number;
  private readonly random: RandomSource;
  private readonly ratedSightings: number | undefined;
  private ledger: VisitorLedger;
  /** Buffered days, by subject then day, so reads of one subject never scan the others. */
  private readonly pending = new Map<string, Map<string, Pending>>();
  private pendingCount = 0;
  /** Bumped whenever what reads see changes (an event, a dropped subject, a discard): caches compare it. */
  generation = 0;
  private index = new Map<string, Map<string, number>>();
  private indexedAt = -1;
  private timer: NodeJS.Timeout | null = null;
  /**
   * Counts objects made here (null-prototype label maps, safe to fold visitor labels into). Once
   * written, a day keeps its counts object: the next event folds into the stored one instead of a
   * copy. Copying every busy day every second made most of the old-generation garbage under traffic
   * (a day is replaced every few seconds, long after it was promoted), and with it the RSS's
   * sawtooth. It is safe because the journal serialises a write's records while the write is made,
   * and whole-record puts make replay idempotent: a snapshot that catches a day between two
   * writes holds a few more events than its journal position, never fewer, never one twice.
   */
  private readonly ownCounts = new WeakSet<DayCounts>();

  constructor(
    private readonly store: Store,
    options: DailyCounterOptions,
  ) {
    this.clock = options.clock;
    this.log = options.log ?? silentLogger;
    this.flushMs = options.flushMs ?? 1000;
    this.maxLabels = options.maxLabels ?? 1000;
    this.random = options.random;
    this.ratedSightings = options.ratedSightings;
    this.ledger = this.newLedger();
    store.beforeClose(() => this.close());
  }

  /** Drops what is buffered and the visitors seen today, unwritten (test mode's reset replaces the data anyway). */
  discard(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
    this.pendingCount = 0;
    this.ledger = this.newLedger();
  }

  private newLedger(): VisitorLedger {
    return new VisitorLedger(this.random, {
      ratedSightings: this.ratedSightings,
      onOverRating: (day, sightings) =>
        this.log.warn('the visitor ledger is over its rating for today: unique visitors may undercount by more than 0.3% until the day ends', { day, sightings }),
    });
  }

  /** Counts one event for `subject` (e.g. 'website:3', 'link:7'); visible to reads immediately. */
  record(subject: string, tally: Tally, meta: CountedFor = {}): void {
    this.generation++;
    const day = dayOf(meta.at ?? this.clock.now());
    let days = this.pending.get(subject);
    if (!days) this.pending.set(subject, (days = new Map()));
    let entry = days.get(day);
    if (!entry) {
      const stored = this.storedDay(subject, day);
      // A day read from a file or a fixture is copied once, into maps that cannot inherit anything.
      const counts = stored && this.ownCounts.has(stored.counts) ? stored.counts : stored ? copyCounts(stored.counts) : emptyCounts();
      this.ownCounts.add(counts);
      entry = { subject, day, owner: meta.owner ?? stored?.userId, counts };
      days.set(day, entry);
      this.pendingCount++;
    }
    foldInto(entry.counts, tally, this.maxLabels);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Whether the visitor `ip`+`ua` is new to `subject` today / this hour (salted daily hash, memory only). */
  sight(subject: string, ip: string, ua: string, at = this.clock.now()): Sighting {
    return this.ledger.sight(subject, ip, ua, at);
  }

  /** One day's counts of a subject (read-only), or undefined when nothing was counted. */
  day(subject: string, day: string): DayCounts | undefined {
    return this.pending.get(subject)?.get(day)?.counts ?? this.storedDay(subject, day)?.counts;
  }

  /** The counted days of a subject between `from` and `to` (inclusive, 'YYYY-MM-DD', both optional), oldest first. */
  days(subject: string, from = '0000-00-00', to = '9999-99-99'): { day: string; counts: DayCounts }[] {
    const days = new Set(this.indexOf(subject).keys());
    for (const day of this.pending.get(subject)?.keys() ?? []) days.add(day);
    return [...days]
      .filter((d) => d >= from && d <= to)
      .sort()
      .map((d) => ({ day: d, counts: this.day(subject, d) ?? emptyCounts() }));
  }

  /** Some totals of a subject over all days, without merging label maps (list entries need only these). */
  totals<K extends string>(subject: string, names: readonly K[]): Record<K, number> {
    // Hot (every list entry): plain loops, no closures.
    const out = {} as Record<K, number>;
    for (const n of names) out[n] = 0;
    const days = this.indexOf(subject);
    const buffered = this.pending.get(subject);
    if (days.size === 0 && !buffered) return out;
    for (const [day, id] of days) {
      if (buffered?.has(day)) continue;
      const counts = this.store.get<StatsDay>(STATS_COLLECTION, id)?.counts;
      if (counts) for (const n of names) out[n] += totalOf(counts, n);
    }
    if (buffered) for (const entry of buffered.values()) for (const n of names) out[n] += totalOf(entry.counts, n);
    return out;
  }

  /** A subject's counts summed over `from`..`to` (default: all days): totals and merged label maps. */
  sum(subject: string, from?: string, to?: string): DayCounts {
    return mergeCounts(this.days(subject, from, to).map((d) => d.counts));
  }

  /** Removes a subject's counts, stored (inside `tx`) and buffered; call when the subject is deleted. */
  dropSubject(tx: Tx, subject: string): void {
    this.generation++;
    for (const id of this.indexOf(subject).values()) tx.remove(STATS_COLLECTION, id);
    this.pendingCount -= this.pending.get(subject)?.size ?? 0;
    this.pending.delete(subject);
  }

  /** Writes everything buffered in one store write. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pendingCount === 0) return;
    const entries = [...this.pending.values()].flatMap((days) => [...days.values()]);
    this.pending.clear();
    this.pendingCount = 0;
    const index = entries.map((e) => this.indexOf(e.subject, true) as Map<string, number>);
    const written = this.store.write((tx) => {
      entries.forEach((e, i) => {
        // A user deleted since the event took its statistics along; do not bring them back.
        if (e.owner !== undefined && !this.store.get('users', e.owner)) return;
        const days = index[i]!;
        const id = days.get(e.day);
        const fields = { subject: e.subject, day: e.day, ...(e.owner === undefined ? {} : { userId: e.owner }), counts: e.counts };
        const record = id !== undefined && this.store.get(STATS_COLLECTION, id) ? tx.put(STATS_COLLECTION, { id, ...fields }) : tx.insert(STATS_COLLECTION, fields);
        days.set(e.day, record.id);
      });
    });
    // The transaction ran synchronously inside write(): the index already matches the collection.
    this.indexedAt = this.store.version(STATS_COLLECTION);
    try {
      await written;
    } catch (err) {
      this.log.error('writing statistics failed', { error: String(err) });
    }
  }

  /** Stops the timer and writes what is buffered. */
  async close(): Promise<void> {
    await this.flush();
  }

  /** How many (subject, day) entries wait for the next write. */
  get buffered(): number {
    return this.pendingCount;
  }

  private storedDay(subject: string, day: string): StatsDay | undefined {
    const id = this.indexOf(subject).get(day);
    return id === undefined ? undefined : this.store.get<StatsDay>(STATS_COLLECTION, id);
  }

  // Rebuilt only when someone else changed the collection (a cascade, an import).
  private indexOf(subject: string, create = false): ReadonlyMap<string, number> {
    const version = this.store.version(STATS_COLLECTION);
    if (version !== this.indexedAt) {
      this.index = new Map();
      for (const r of this.store.all<StatsDay>(STATS_COLLECTION)) {
        let days = this.index.get(r.subject);
        if (!days) this.index.set(r.subject, (days = new Map()));
        days.set(r.day, r.id);
      }
      this.indexedAt = version;
    }
    let days = this.index.get(subject);
    if (!days && create) this.index.set(subject, (days = new Map()));
    return days ?? NO_DAYS;
  }
}
