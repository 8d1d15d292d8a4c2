import { STATS_COLLECTION } from '../store.ts';
import type { CountsDelta, DayCounts, Labels, StatsDay, StoredRecord } from '../store.ts';
import { capPropertyDimensions, isPropertyDimension, propertyDimensionsOf } from '../property-dimensions.ts';
import { Turns } from '../../turns.ts';
import type { Collection } from './collection.ts';
import type { SyncTx } from './transaction.ts';

export { STATS_COLLECTION };

const OVERFLOW_LABEL = '(other)';

// Labels come from visitors ("__proto__", "constructor"), so the maps must not inherit anything.
function labelMap(from?: Labels): Labels {
  return Object.assign(Object.create(null) as Labels, from);
}

/** `into` plus `delta`, in place: totals added, labels merged, new labels past `maxLabels` under '(other)', event property dimensions past theirs under one. */
export function addInto(into: DayCounts, given: DayCounts, maxLabels: number): DayCounts {
  let delta = given;
  for (const key in given) {
    if (isPropertyDimension(key) && !(key in into)) {
      delta = capPropertyDimensions(given, propertyDimensionsOf(into));
      break;
    }
  }
  for (const key in delta) {
    const value = delta[key]!;
    const existing = into[key];
    if (typeof value === 'number') {
      into[key] = (typeof existing === 'number' ? existing : 0) + value;
      continue;
    }
    const labels = typeof existing === 'object' ? existing : (into[key] = labelMap());
    let size = Object.keys(labels).length;
    for (const label in value) {
      const known = Object.hasOwn(labels, label);
      const at = known || size < maxLabels ? label : OVERFLOW_LABEL;
      if (!Object.hasOwn(labels, at)) size++;
      labels[at] = (labels[at] ?? 0) + value[label]!;
    }
  }
  return into;
}

/** A deep copy whose label maps are safe to fold into. */
function copyCounts(counts: DayCounts): DayCounts {
  const out = Object.create(null) as DayCounts;
  for (const [key, value] of Object.entries(counts)) out[key] = typeof value === 'number' ? value : labelMap(value);
  return out;
}

/**
 * The file store's statistics: one `stats` record per (subject, day), found through a subject →
 * day → id map that is rebuilt only when someone else changed the collection (an import, a reset).
 */
export class FileCounters {
  private index = new Map<string, Map<string, number>>();
  private indexedAt = -1;
  /** Days whose counts object was made here: later flushes add to it in place instead of copying it. */
  private readonly own = new WeakSet<DayCounts>();
  /** While add runs: the collection's version moves with its own writes, which it keeps the index up with. */
  private adding = false;

  constructor(private readonly stats: Collection) {}

  /** The stored days of a subject, oldest first. */
  days(subject: string, from = '0000-00-00', to = '9999-99-99'): { day: string; counts: DayCounts }[] {
    const days = this.indexOf(subject);
    const out: { day: string; counts: DayCounts }[] = [];
    for (const [day, id] of days) {
      if (day < from || day > to) continue;
      const counts = (this.stats.records.get(id) as StatsDay | undefined)?.counts;
      if (counts) out.push({ day, counts });
    }
    return out.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  }

  /** Totals of `names` over all stored days of a subject. */
  totals(subject: string, names: readonly string[]): Record<string, number> {
    // Hot (every list entry): plain loops, no closures.
    const out: Record<string, number> = {};
    for (const n of names) out[n] = 0;
    for (const id of this.indexOf(subject).values()) {
      const counts = (this.stats.records.get(id) as StatsDay | undefined)?.counts;
      if (!counts) continue;
      for (const n of names) {
        const v = counts[n];
        if (typeof v === 'number') out[n]! += v;
      }
    }
    return out;
  }

  /**
   * Adds the deltas inside `tx`. A written day keeps its counts object and later deltas are added to
   * it in place: copying every busy day on every flush made most of the old-generation garbage under
   * traffic. It is safe because the journal serialises a write's records while the write is made, and
   * whole-record puts make replay idempotent.
   *
   * A busy second's flush carries thousands of deltas: the loop gives the event loop turns (turns.ts),
   * in one piece it held it for ~12 ms. The store's transactions run one at a time, so no other write
   * comes in between; a read in between sees the days added so far, each whole, and does not rebuild
   * the index (a rebuild then would miss the days added after it, and the next flush would make them again).
   */
  async add(tx: SyncTx, deltas: readonly CountsDelta[], maxLabels: number, userExists: (id: number) => boolean, turns = new Turns()): Promise<void> {
    // Looked up before the first write: each write bumps the collection's version.
    const maps = deltas.map((d) => this.indexOf(d.subject, true) as Map<string, number>);
    this.adding = true;
    try {
      await this.addAll(tx, deltas, maps, maxLabels, userExists, turns);
    } finally {
      this.adding = false;
    }
    this.indexedAt = this.stats.version;
  }

  private async addAll(tx: SyncTx, deltas: readonly CountsDelta[], maps: readonly Map<string, number>[], maxLabels: number, userExists: (id: number) => boolean, turns: Turns): Promise<void> {
    for (const [i, d] of deltas.entries()) {
      if (turns.due()) await turns.next();
      // A user deleted since the event took its statistics along; do not bring them back.
      if (d.owner !== undefined && !userExists(d.owner)) continue;
      const days = maps[i]!;
      const id = days.get(d.day);
      const stored = id === undefined ? undefined : (this.stats.records.get(id) as StatsDay | undefined);
      const counts = stored && this.own.has(stored.counts) ? stored.counts : stored ? copyCounts(stored.counts) : (Object.create(null) as DayCounts);
      this.own.add(counts);
      addInto(counts, d.counts, maxLabels);
      const owner = d.owner ?? stored?.userId;
      const fields = { subject: d.subject, day: d.day, ...(owner === undefined ? {} : { userId: owner }), counts };
      const record = stored ? tx.put(STATS_COLLECTION, { id: stored.id, ...fields } as StoredRecord) : tx.insert(STATS_COLLECTION, fields);
      days.set(d.day, record.id);
    }
  }

  /** Removes up to `limit` days dated before `before`, every subject's, inside `tx`; how many. */
  pruneDays(tx: SyncTx, before: string, limit: number): number {
    let n = 0;
    for (const r of this.stats.records.values() as Iterable<StatsDay>) {
      if (n >= limit) break;
      if (r.day < before) {
        tx.remove(STATS_COLLECTION, r.id);
        n++;
      }
    }
    return n;
  }

  /** Removes `dimensions` from up to `limit` days dated before `before`, inside `tx`: each such day is written again without them. How many. */
  pruneDimensions(tx: SyncTx, before: string, dimensions: readonly string[], limit: number): number {
    let n = 0;
    for (const r of [...(this.stats.records.values() as Iterable<StatsDay>)]) {
      if (n >= limit) break;
      if (r.day >= before || !dimensions.some((d) => d in r.counts)) continue;
      // A new counts object: the stored one may be the one later flushes add to in place.
      const counts = copyCounts(r.counts);
      for (const d of dimensions) delete counts[d];
      tx.put(STATS_COLLECTION, { ...r, counts } as StoredRecord);
      n++;
    }
    return n;
  }

  /** Removes a subject's days inside `tx`. */
  drop(tx: SyncTx, subject: string): void {
    for (const id of this.indexOf(subject).values()) tx.remove(STATS_COLLECTION, id);
  }

  private indexOf(subject: string, create = false): ReadonlyMap<string, number> {
    if (this.stats.version !== this.indexedAt && !this.adding) {
      this.index = new Map();
      for (const r of this.stats.records.values() as Iterable<StatsDay>) {
        let days = this.index.get(r.subject);
        if (!days) this.index.set(r.subject, (days = new Map()));
        days.set(r.day, r.id);
      }
      this.indexedAt = this.stats.version;
    }
    let days = this.index.get(subject);
    if (!days && create) this.index.set(subject, (days = new Map()));
    return days ?? new Map();
  }
}
