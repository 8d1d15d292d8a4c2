import type { Labels, RealtimeCounts, RealtimeDelta } from '../store.ts';

/** One subject's minute: its visitors' keys, pageviews per page, and the batches added to it. */
interface Minute {
  visitors: Set<string>;
  pages: Map<string, number>;
  batches: Set<string>;
}

/**
 * The file store's realtime window: in memory only, not journalled. It holds minutes, and the
 * counters of those minutes are in the daily statistics, which are kept: a restart empties the
 * realtime view for at most its window, which is what it shows.
 */
export class FileRealtime {
  private readonly subjects = new Map<string, Map<number, Minute>>();

  /** Adds a batch's minutes (once per batch and minute); forgets every minute before `keepFrom`. */
  add(batch: string, deltas: readonly RealtimeDelta[], keepFrom: number): void {
    this.prune(keepFrom);
    for (const d of deltas) {
      if (d.minute < keepFrom) continue;
      let minutes = this.subjects.get(d.subject);
      if (!minutes) this.subjects.set(d.subject, (minutes = new Map()));
      let m = minutes.get(d.minute);
      if (!m) minutes.set(d.minute, (m = { visitors: new Set(), pages: new Map(), batches: new Set() }));
      if (m.batches.has(batch)) continue;
      m.batches.add(batch);
      for (const v of d.visitors) m.visitors.add(v);
      for (const [page, n] of Object.entries(d.pages)) m.pages.set(page, (m.pages.get(page) ?? 0) + n);
    }
  }

  /** The window of `subject` from minute `from` on, `extra` visitors counted in. */
  counts(subject: string, from: number, extra: readonly string[]): RealtimeCounts {
    const visitors = new Set(extra);
    const pages = Object.create(null) as Labels;
    let pageviews = 0;
    for (const [minute, m] of this.subjects.get(subject) ?? []) {
      if (minute < from) continue;
      for (const v of m.visitors) visitors.add(v);
      for (const [page, n] of m.pages) {
        pages[page] = (pages[page] ?? 0) + n;
        pageviews += n;
      }
    }
    return { visitors: visitors.size, pageviews, pages };
  }

  /** Forgets a subject's window (its record was deleted). */
  drop(subject: string): void {
    this.subjects.delete(subject);
  }

  /** Forgets everything (the store's content was replaced). */
  clear(): void {
    this.subjects.clear();
  }

  private prune(keepFrom: number): void {
    for (const [subject, minutes] of this.subjects) {
      for (const minute of minutes.keys()) if (minute < keepFrom) minutes.delete(minute);
      if (minutes.size === 0) this.subjects.delete(subject);
    }
  }
}
