import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import type { RandomSource } from '../random.ts';
import type { CountsDelta, NewEvent, Store, Tx } from '../store/store.ts';
import { countEvents } from '../events/count-events.ts';
import { outsideStoreDeadline, waitWithin } from '../store/deadline.ts';
import { dayOf, hourOf } from '../visits/visitor.ts';
import { emptyCounts, foldInto, mergeCounts, mergeCountsInTurns } from './counts.ts';
import type { DayCounts, Tally } from './counts.ts';
import { SharedSightings } from './shared-sightings.ts';
import { RealtimeBuffer, keptFrom } from './realtime-buffer.ts';
import type { PendingMinute, Realtime } from './realtime-buffer.ts';
import type { Sighting } from './visitor-ledger.ts';
import { VisitorLedger } from './visitor-ledger.ts';

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
  /** Least time between two savings of the visitor ledger while visits come in (default 10 s; always on close). */
  ledgerSaveMs?: number;
  /** The events a batch's write appends to the outbox (default: clicks and scans, countEvents). */
  events?: (deltas: readonly CountsDelta[]) => NewEvent[];
}

/** A batch of deltas on its way to the store, with the visits it asks the store about. */
interface Batch {
  id: string;
  deltas: Map<string, Map<string, CountsDelta>>;
  sightings: ReturnType<SharedSightings['take']>;
  /** The minutes of the realtime window it adds, and whether the store has them already (then reads no longer count them here). */
  realtime: PendingMinute[];
  realtimeWritten: boolean;
  /** What the batch reports (link.clicked, qr.scanned), made once: a retry sends the same event ids. */
  events: NewEvent[];
}

/** Who and when an event is counted for. */
export interface CountedFor {
  /** The subject's owner, stored as `userId` so deleting the user deletes the counts. */
  owner?: number;
  /** Epoch ms; default now. */
  at?: number;
}

/**
 * Per-(subject, day) counters for every kind of statistics (websites, links). Events fold into an
 * in-memory buffer of what they add (deltas); every `flushMs` (and on store close) one store call
 * adds the deltas to what is stored, so the request path never waits for storage, and a flush
 * adds rather than overwrites, so several processes can count the same subject. Reads are what
 * is stored plus what is buffered. A flush that fails keeps its batch, and the next flush writes
 * that batch again as it was, under the same id, before anything newer: a write whose commit went
 * through but whose answer was lost is then not added twice (the store skips a batch it has).
 */
export class DailyCounters {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly flushMs: number;
  private readonly maxLabels: number;
  private readonly random: RandomSource;
  private readonly ratedSightings: number | undefined;
  private readonly ledgerSaveMs: number;
  private readonly eventsOf: (deltas: readonly CountsDelta[]) => NewEvent[];
  private ledger: VisitorLedger;
  private ledgerKept = 0;
  private ledgerSavedAt = 0;
  private ledgerLoad: Promise<void>;
  /** Buffered deltas, by subject then day, so reads of one subject never scan the others. */
  private pending = new Map<string, Map<string, CountsDelta>>();
  private pendingCount = 0;
  /** The batch a failed flush took, written again (same id, same deltas) by the next flush; reads count it as buffered. */
  private unsent: Batch | null = null;
  /** The batch being written: reads count it as buffered until the store says its counts are visible. */
  private sending: Batch | null = null;
  /** Settles when the batch being written is visible or has failed; null while none is. */
  private writing: Promise<void> | null = null;
  /** Bumped when a batch starts being written and when that ends: a store read that saw it change may have seen the batch. */
  private writeEdges = 0;
  /** The last batch whose write began (kept after it settled, for reads that overlapped it). */
  private lastSent: Batch | null = null;
  /** With a store several processes share: the visits the ledger took for new, checked at the flush. */
  private readonly shared: SharedSightings | null;
  /** Pageviews of the realtime window, written with each batch. */
  private readonly live: RealtimeBuffer;
  /** Bumped whenever what reads see changes (an event, a dropped subject, a discard): caches compare it. */
  generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

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
    this.ledgerSaveMs = options.ledgerSaveMs ?? 10_000;
    this.eventsOf = options.events ?? ((deltas) => countEvents(deltas, this.clock));
    this.ledger = this.newLedger();
    this.shared = store.shared ? new SharedSightings(store.shared, options.random) : null;
    this.live = new RealtimeBuffer(store.shared, options.random, this.maxLabels);
    this.ledgerLoad = this.loadLedger();
    store.beforeClose(() => this.close());
  }

  /** Resolves once the kept visitor ledger is taken up (before the first counted visit of a server). */
  ready(): Promise<void> {
    return this.ledgerLoad;
  }

  private async loadLedger(): Promise<void> {
    try {
      const kept = await this.store.loadLedger();
      if (kept && this.ledger.size === 0 && this.ledger.restore(kept, this.clock.now())) this.ledgerKept = this.ledger.changes;
    } catch (err) {
      this.log.warn('the kept visitor ledger could not be read: today\'s visitors are counted afresh', { error: String(err) });
    }
  }

  /** Drops what is buffered and the visitors seen today, unwritten (test mode's reset replaces the data anyway). */
  discard(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = new Map();
    this.pendingCount = 0;
    this.unsent = null;
    this.lastSent = null;
    this.shared?.discard();
    this.live.discard();
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
      entry = { subject, day, owner: meta.owner, counts: emptyCounts() };
      days.set(day, entry);
      this.pendingCount++;
    }
    if (entry.owner === undefined && meta.owner !== undefined) entry.owner = meta.owner;
    foldInto(entry.counts, tally, this.maxLabels);
    this.timer ??= setTimeout(this.flushLater, this.flushMs).unref();
  }

  /**
   * Counts a pageview of `page` in the realtime window of `subject` (a website), by the visitor
   * `ip`+`ua`, who is hashed before anything is stored; visible to reads immediately.
   */
  recordRealtime(subject: string, ip: string, ua: string, page: string, at = this.clock.now()): void {
    this.generation++;
    this.live.record(subject, at, `${ip}\u0000${ua}`, page);
    this.timer ??= setTimeout(this.flushLater, this.flushMs).unref();
  }

  /** The realtime view of `subject`: distinct visitors, pageviews and pages of the last minutes, every process's flushes and this one's buffer together. */
  async realtime(subject: string): Promise<Realtime> {
    return this.exactly([subject], () => this.live.view(subject, this.clock.now(), this.bufferedRealtimeOf(subject), (from, keys) => this.store.realtimeCounts(subject, from, keys)));
  }

  /** Whether the visitor `ip`+`ua` is new to `subject` today / this hour (salted daily hash; the store keeps the day's ledger). */
  sight(subject: string, ip: string, ua: string, at = this.clock.now()): Sighting {
    return this.ledger.sight(subject, ip, ua, at);
  }

  /**
   * Counts a visit of `ip`+`ua` to `subject`: `tallyOf` gives its counts once the ledger said
   * whether the visitor is new (today, this hour). On a store several processes share, a visitor
   * the ledger took for new is checked against the others at the flush (shared-sightings.ts).
   */
  recordVisit(subject: string, ip: string, ua: string, tallyOf: (seen: Sighting) => Tally, meta: CountedFor = {}): void {
    const at = meta.at ?? this.clock.now();
    const seen = this.ledger.sight(subject, ip, ua, at);
    this.record(subject, tallyOf(seen), { ...meta, at });
    if (this.shared && (seen.newToday || seen.newThisHour)) {
      this.shared.add({ subject, day: dayOf(at), hour: hourOf(at), owner: meta.owner, visitor: `${ip}\u0000${ua}`, local: seen, tallyOf });
    }
  }

  /** One day's counts of a subject, or undefined when nothing was counted. */
  async day(subject: string, day: string): Promise<DayCounts | undefined> {
    return (await this.days(subject, day, day))[0]?.counts;
  }

  /** The counted days of a subject between `from` and `to` (inclusive, 'YYYY-MM-DD', both optional), oldest first. */
  async days(subject: string, from = '0000-00-00', to = '9999-99-99'): Promise<{ day: string; counts: DayCounts }[]> {
    const stored = await this.exactly([subject], () => this.store.countedDays(subject, from, to));
    const buffered = this.bufferedOf(subject);
    if (buffered.length === 0) return stored;
    const byDay = new Map(stored.map((d) => [d.day, d.counts]));
    for (const entry of buffered) {
      if (entry.day < from || entry.day > to) continue;
      const before = byDay.get(entry.day);
      byDay.set(entry.day, before ? mergeCounts([before, entry.counts]) : entry.counts);
    }
    return [...byDay.keys()].sort().map((day) => ({ day, counts: byDay.get(day)! }));
  }

  /** Some totals per subject over all days, without merging label maps (list entries need only these). */
  async totals<K extends string>(subjects: readonly string[], names: readonly K[]): Promise<Map<string, Record<K, number>>> {
    const stored = (await this.exactly(subjects, () => this.store.countTotals(subjects, names))) as Map<string, Record<K, number>>;
    for (const subject of subjects) {
      const buffered = this.bufferedOf(subject);
      if (buffered.length === 0) continue;
      const out = { ...stored.get(subject) } as Record<K, number>;
      for (const entry of buffered) {
        for (const n of names) {
          const v = entry.counts[n];
          out[n] = (out[n] ?? 0) + (typeof v === 'number' ? v : 0);
        }
      }
      stored.set(subject, out);
    }
    return stored;
  }

  /**
   * A subject's counts summed over `from`..`to` (default: all days): totals and merged label maps,
   * a day at a time between turns of the event loop (a year of a busy link's labels took seconds).
   */
  async sum(subject: string, from?: string, to?: string): Promise<DayCounts> {
    return mergeCountsInTurns((await this.days(subject, from, to)).map((d) => d.counts));
  }

  /** Removes a subject's counts, stored (inside `tx`) and buffered; call when the subject is deleted. */
  async dropSubject(tx: Tx, subject: string): Promise<void> {
    this.generation++;
    await tx.dropCounts(subject);
    this.pendingCount -= this.pending.get(subject)?.size ?? 0;
    this.pending.delete(subject);
    this.live.drop(subject);
    // Safe to change a batch in doubt: it was stored whole (then skipped on retry) or not at all.
    for (const batch of [this.unsent, this.sending]) {
      batch?.deltas.delete(subject);
      if (batch) batch.realtime = batch.realtime.filter((m) => m.subject !== subject);
    }
  }

  /**
   * Runs a read of `subjects` in the store so that what it found and what the buffer adds to it count
   * a batch once. A batch being written may become visible while the read runs (on PostgreSQL other
   * connections see the COMMIT before its answer arrives here), and the read may or may not include
   * it: when such a batch holds one of the subjects, the read is done again once the write settled.
   */
  private async exactly<T>(subjects: readonly string[], read: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      const edges = this.writeEdges;
      const before = this.writing ? this.sending : null;
      const stored = await read();
      const crossed = this.writeEdges - edges;
      if (crossed === 0 && before === null) return stored;
      // Writes are one at a time: up to two edges, the batches involved are the one being written
      // at the start and the last one begun; past that, more than one batch came and went.
      const involved = crossed <= 2 ? [before, this.lastSent] : null;
      const touched = involved === null || involved.some((b) => b !== null && subjects.some((s) => b.deltas.has(s) || b.realtime.some((m) => m.subject === s)));
      // Three tries: flushes are a second apart, so a fourth overlap means a store writing all the
      // time; an answer is then worth more than an exact one.
      if (!touched || tries === 3) return stored;
      // The write is nobody's request: the read waits for it only until its own deadline.
      if (this.writing) await waitWithin(this.writing);
    }
  }

  /** What of `subject` reads do not find in the store yet: the unsent batch's deltas, the batch being written, the pending ones. */
  private bufferedOf(subject: string): CountsDelta[] {
    const writing = this.sending !== this.unsent ? this.sending : null;
    return [...(this.unsent?.deltas.get(subject)?.values() ?? []), ...(writing?.deltas.get(subject)?.values() ?? []), ...(this.pending.get(subject)?.values() ?? [])];
  }

  /** The realtime minutes of `subject` that reads do not find in the store yet (as bufferedOf for counts). */
  private bufferedRealtimeOf(subject: string): PendingMinute[] {
    const writing = this.sending !== this.unsent ? this.sending : null;
    const batches = [this.unsent, writing].filter((b): b is Batch => b !== null && !b.realtimeWritten);
    return [...batches.flatMap((b) => b.realtime.filter((m) => m.subject === subject)), ...this.live.pendingOf(subject)];
  }

  /** The timer's flush: the count that armed it lends it no deadline (deadline.ts), as it is nobody's request to wait for. */
  private readonly flushLater = () => void outsideStoreDeadline(() => this.flush());

  /** Adds everything buffered to the store in one call; on failure the deltas wait for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    this.flushing = this.write().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  private async write(): Promise<void> {
    await this.saveLedger(false);
    // A batch in doubt goes first and alone: merged with newer deltas, a retry the store skips (it had
    // the batch) would skip them too, and one it applies would count the batch twice.
    if (this.unsent && !(await this.send(this.unsent))) return;
    if (this.pendingCount === 0 && !this.live.hasPending) return;
    // A crypto id, not this.random: test mode's seeded random would give every process the same ids.
    const batch: Batch = { id: randomUUID(), deltas: this.pending, sightings: this.shared?.take() ?? [], realtime: this.live.take(), realtimeWritten: false, events: this.eventsOf([...this.pending.values()].flatMap((days) => [...days.values()])) };
    this.pending = new Map();
    this.pendingCount = 0;
    await this.send(batch);
  }

  /** Writes one batch; on failure keeps it as the unsent batch and schedules the next try. Whether it was written. */
  private async send(batch: Batch): Promise<boolean> {
    const deltas = [...batch.deltas.values()].flatMap((days) => [...days.values()]);
    // Until the store's reads include the batch, reads count it here: taken out of the buffer before,
    // a click answered a moment ago would vanish from the statistics for the length of the write.
    this.sending = batch;
    let settle!: () => void;
    const writing = new Promise<void>((resolve) => (settle = resolve));
    this.writing = writing;
    this.lastSent = batch;
    this.writeEdges++;
    const settled = () => {
      if (this.writing !== writing) return;
      this.writing = null;
      this.writeEdges++;
      settle();
    };
    let visible = false;
    const applied = () => {
      visible = true;
      if (this.unsent === batch) this.unsent = null;
      if (this.sending === batch) this.sending = null;
      this.generation++;
      settled();
    };
    try {
      // The realtime minutes first (idempotent per batch too): the batch's counts becoming visible ends its being counted here.
      if (!batch.realtimeWritten && batch.realtime.length > 0) {
        await this.store.addRealtime(batch.id, await this.live.deltasOf(batch.realtime), keptFrom(this.clock.now()));
        batch.realtimeWritten = true;
      }
      const sightings = this.shared && batch.sightings.length > 0 ? await this.shared.check(batch.sightings, (subject, day) => batch.deltas.get(subject)?.has(day) === true) : undefined;
      await this.store.addCounts(deltas, this.maxLabels, batch.id, applied, sightings, batch.events);
      applied();
      return true;
    } catch (err) {
      // Visible already (the file store applied it, then its fsync failed): a retry would count it twice.
      if (visible) {
        this.log.error('writing statistics failed after they were applied: not written again', { error: String(err) });
        return true;
      }
      this.log.error('writing statistics failed: kept for the next flush', { error: String(err) });
      if (this.sending === batch) this.sending = null;
      settled();
      this.unsent = batch;
      this.timer ??= setTimeout(this.flushLater, this.flushMs).unref();
      return false;
    }
  }

  private async saveLedger(always: boolean): Promise<void> {
    const changes = this.ledger.changes;
    if (changes === this.ledgerKept) return;
    const now = this.clock.now();
    if (!always && now - this.ledgerSavedAt < this.ledgerSaveMs) return;
    const state = this.ledger.state();
    if (!state) return;
    try {
      await this.store.saveLedger(state);
      this.ledgerKept = changes;
      this.ledgerSavedAt = now;
    } catch (err) {
      this.log.error('keeping the visitor ledger failed', { error: String(err) });
    }
  }

  /** Stops the timer, writes what is buffered and keeps the visitor ledger. */
  async close(): Promise<void> {
    await this.flush();
    await this.saveLedger(true);
  }

  /** How many (subject, day) entries wait for the next write (the unsent batch's included). */
  get buffered(): number {
    let unsent = 0;
    for (const days of this.unsent?.deltas.values() ?? []) unsent += days.size;
    return this.pendingCount + unsent;
  }
}
