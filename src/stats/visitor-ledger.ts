import type { RandomSource } from '../random.ts';
import { dayOf, hourOf, visitorHash } from '../visits/visitor.ts';

/** Whether a visitor is new to a subject today and in this hour. */
export interface Sighting {
  newToday: boolean;
  newThisHour: boolean;
}

/**
 * Today's salted visitor hashes per subject, in memory only: the salt is random and replaced
 * when the day changes, so hashes cannot be linked across days or reversed into IPs. A restart
 * forgets the current day's hashes, so a visitor seen before and after it counts twice that day.
 */
export class VisitorLedger {
  private day = '';
  private salt = '';
  private seen = new Set<string>();
  // One hash per visitor and day, whichever subjects the visitor sees.
  private hashes = new Map<string, string>();

  constructor(private readonly random: RandomSource) {}

  /** Records a visit of `ip`+`ua` to `subject` at `at` (epoch ms) and tells what was new. */
  sight(subject: string, ip: string, ua: string, at: number): Sighting {
    const day = dayOf(at);
    if (day !== this.day) {
      this.day = day;
      this.salt = Buffer.from(this.random.bytes(16)).toString('hex');
      this.seen = new Set();
      this.hashes = new Map();
    }
    const who = `${ip}\n${ua}`;
    let hash = this.hashes.get(who);
    if (hash === undefined) this.hashes.set(who, (hash = visitorHash(this.salt, ip, ua, day)));
    const visitor = `${subject}|${hash}`;
    const hour = `${visitor}|${hourOf(at).slice(11)}`;
    const newToday = !this.seen.has(visitor);
    const newThisHour = !this.seen.has(hour);
    this.seen.add(visitor).add(hour);
    return { newToday, newThisHour };
  }

  /** Forgets a subject's visitors (the subject was deleted). */
  forget(subject: string): void {
    const prefix = `${subject}|`;
    for (const key of this.seen) if (key.startsWith(prefix)) this.seen.delete(key);
  }

  /** How many entries are held (for tests of the daily reset). */
  get size(): number {
    return this.seen.size;
  }
}
