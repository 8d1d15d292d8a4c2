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
  /** Subject → visitor hash → the hours of today it was seen in, as bits 0-23 (one number, not a key per hour). */
  private seen = new Map<string, Map<string, number>>();
  // One hash per visitor and day, whichever subjects the visitor sees.
  private hashes = new Map<string, string>();

  constructor(private readonly random: RandomSource) {}

  /** Records a visit of `ip`+`ua` to `subject` at `at` (epoch ms) and tells what was new. */
  sight(subject: string, ip: string, ua: string, at: number): Sighting {
    const day = dayOf(at);
    if (day !== this.day) {
      this.day = day;
      this.salt = Buffer.from(this.random.bytes(16)).toString('hex');
      this.seen = new Map();
      this.hashes = new Map();
    }
    const who = `${ip}\n${ua}`;
    let hash = this.hashes.get(who);
    if (hash === undefined) this.hashes.set(who, (hash = visitorHash(this.salt, ip, ua, day)));
    let visitors = this.seen.get(subject);
    if (!visitors) this.seen.set(subject, (visitors = new Map()));
    const hours = visitors.get(hash);
    const bit = 1 << Number(hourOf(at).slice(11)); // the UTC hour, 0-23
    if (hours === undefined || (hours & bit) === 0) visitors.set(hash, (hours ?? 0) | bit);
    return { newToday: hours === undefined, newThisHour: hours === undefined || (hours & bit) === 0 };
  }

  /** Forgets a subject's visitors (the subject was deleted). */
  forget(subject: string): void {
    this.seen.delete(subject);
  }

  /** How many (visitor, day) and (visitor, hour) sightings are held (for tests of the daily reset). */
  get size(): number {
    let n = 0;
    for (const visitors of this.seen.values()) {
      for (let hours of visitors.values()) {
        for (n++; hours; hours &= hours - 1) n++;
      }
    }
    return n;
  }
}
