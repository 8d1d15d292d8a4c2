import { createHash } from 'node:crypto';
import type { RandomSource } from '../random.ts';
import type { Labels, RealtimeCounts, RealtimeDelta, SharedValues } from '../store/store.ts';
import { dayOf } from '../visits/visitor.ts';
import { OVERFLOW_LABEL } from './counts.ts';

/** The realtime view covers the current minute and the five before it: every pageview of the last 5 minutes (5 to 6 in all). */
export const REALTIME_MINUTES = 5;

/** Pages the realtime answer lists at most, most viewed first. */
export const REALTIME_PAGES = 100;

/** Minutes the store keeps past the window: another process's clock may be a little behind. */
const KEPT_MINUTES = 10;

/** Whole minutes since the Unix epoch of an epoch-ms time. */
export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

/** The first minute the realtime view of `now` covers. */
export const windowStart = (now: number): number => minuteOf(now) - REALTIME_MINUTES;

/** The first minute the store must keep at `now`. */
export const keptFrom = (now: number): number => minuteOf(now) - KEPT_MINUTES;

/** One subject's minute of pageviews before it is written: its visitors as IP and user agent (memory only, about a second), pages. */
export interface PendingMinute {
  subject: string;
  minute: number;
  visitors: Set<string>;
  pages: Map<string, number>;
}

/** What a realtime view answers: distinct visitors, pageviews, and the pages most viewed first. */
export interface Realtime {
  visitors: number;
  pageviews: number;
  pages: { value: string; count: number }[];
}

/**
 * The realtime side of the statistics buffer: pageviews per subject and minute, taken by each
 * flush with the daily counts. Visitors leave memory only as salted hashes (SHA-256 of a salt of
 * the day, the subject, IP and user agent, cut to 128 bits): on a store several processes share the
 * salt is agreed through it, so each visitor has one key whichever process counted it, and distinct
 * visitors are exact across processes. The salt is forgotten with its day; a visitor whose minutes
 * straddle midnight (UTC) counts twice for those minutes.
 */
export class RealtimeBuffer {
  private pending = new Map<string, Map<number, PendingMinute>>();
  private readonly salts = new Map<string, Promise<string>>();

  constructor(
    private readonly shared: SharedValues | undefined,
    private readonly random: RandomSource,
    private readonly maxLabels: number,
  ) {}

  /** Counts a pageview of `page` by `visitor` (IP and user agent) at `at`. */
  record(subject: string, at: number, visitor: string, page: string): void {
    const minute = minuteOf(at);
    let minutes = this.pending.get(subject);
    if (!minutes) this.pending.set(subject, (minutes = new Map()));
    let m = minutes.get(minute);
    if (!m) minutes.set(minute, (m = { subject, minute, visitors: new Set(), pages: new Map() }));
    m.visitors.add(visitor);
    const key = m.pages.has(page) || m.pages.size < this.maxLabels ? page : OVERFLOW_LABEL;
    m.pages.set(key, (m.pages.get(key) ?? 0) + 1);
  }

  /** The minutes buffered since the last call, for the batch about to be written. */
  take(): PendingMinute[] {
    const taken = [...this.pending.values()].flatMap((minutes) => [...minutes.values()]);
    this.pending = new Map();
    return taken;
  }

  /** Whether any minute waits for the next flush. */
  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** The buffered minutes of `subject`. */
  pendingOf(subject: string): PendingMinute[] {
    return [...(this.pending.get(subject)?.values() ?? [])];
  }

  /** Forgets a subject's buffered minutes (it was deleted). */
  drop(subject: string): void {
    this.pending.delete(subject);
  }

  /** Forgets everything buffered (test mode's reset). */
  discard(): void {
    this.pending = new Map();
  }

  /** The minutes as the store keeps them: visitors hashed. */
  async deltasOf(minutes: readonly PendingMinute[]): Promise<RealtimeDelta[]> {
    const out: RealtimeDelta[] = [];
    for (const m of minutes) out.push({ subject: m.subject, minute: m.minute, visitors: await this.keysOf(m), pages: Object.fromEntries(m.pages) });
    return out;
  }

  /** The realtime view of `subject` at `now`: what the store holds (`read`, given the buffered visitors' keys) with the buffered minutes added. */
  async view(subject: string, now: number, buffered: readonly PendingMinute[], read: (from: number, keys: string[]) => Promise<RealtimeCounts>): Promise<Realtime> {
    const from = windowStart(now);
    const inWindow = buffered.filter((m) => m.minute >= from);
    const keys = new Set<string>();
    for (const m of inWindow) for (const k of await this.keysOf(m)) keys.add(k);
    const stored = await read(from, [...keys]);
    const pages = Object.assign(Object.create(null) as Labels, stored.pages);
    let pageviews = stored.pageviews;
    for (const m of inWindow) {
      for (const [page, n] of m.pages) {
        pages[page] = (pages[page] ?? 0) + n;
        pageviews += n;
      }
    }
    const rows = Object.entries(pages).map(([value, count]) => ({ value, count }));
    rows.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    return { visitors: stored.visitors, pageviews, pages: rows.slice(0, REALTIME_PAGES) };
  }

  private async keysOf(m: PendingMinute): Promise<string[]> {
    const salt = await this.saltOf(dayOf(m.minute * 60_000));
    return [...m.visitors].map((v) => createHash('sha256').update(`${salt}\u0000${m.subject}\u0000${v}`).digest('hex').slice(0, 32));
  }

  private saltOf(day: string): Promise<string> {
    let salt = this.salts.get(day);
    if (!salt) {
      const proposed = Buffer.from(this.random.bytes(16)).toString('hex');
      salt = this.shared ? this.shared.agree(`realtime salt ${day}`, proposed, 2) : Promise.resolve(proposed);
      // A failed agreement is asked again next time rather than kept.
      salt.catch(() => this.salts.delete(day));
      if (this.salts.size > 4) this.salts.clear();
      this.salts.set(day, salt);
    }
    return salt;
  }
}
