import { createHash } from 'node:crypto';
import type { RandomSource } from '../random.ts';
import type { CountsDelta, SharedValues, SightingCheck } from '../store/store.ts';
import { emptyCounts, foldInto, mergeCounts } from './counts.ts';
import type { DayCounts, Tally } from './counts.ts';
import type { Sighting } from './visitor-ledger.ts';

/** A visit this process's ledger took for new, waiting for the next flush to ask the store whether another process saw the visitor first. */
export interface PendingSighting {
  subject: string;
  day: string;
  /** The UTC hour ('YYYY-MM-DDTHH'). */
  hour: string;
  owner?: number;
  /** IP and user agent, held in memory until the flush (about a second) to be hashed with the day's shared salt; never stored. */
  visitor: string;
  /** What the ledger said. */
  local: Sighting;
  /** The visit's counts for a given answer (the flush recounts it when the store's answer differs). */
  tallyOf: (seen: Sighting) => Tally;
}

// A salted SHA-256, cut to 128 bits: collisions among a day's visitors are out of reach.
function keyOf(salt: string, ...parts: string[]): string {
  return createHash('sha256').update([salt, ...parts].join('\u0000')).digest('hex').slice(0, 32);
}

/** `a` minus `b`, without the zeros. */
function difference(a: DayCounts, b: DayCounts): DayCounts {
  const negated = emptyCounts();
  for (const [name, value] of Object.entries(b)) {
    negated[name] = typeof value === 'number' ? -value : Object.fromEntries(Object.entries(value).map(([label, n]) => [label, -n]));
  }
  const out = mergeCounts([a, negated]);
  for (const [name, value] of Object.entries(out)) {
    if (typeof value === 'number') {
      if (value === 0) delete out[name];
      continue;
    }
    for (const [label, n] of Object.entries(value)) if (n === 0) delete value[label];
    if (Object.keys(value).length === 0) delete out[name];
  }
  return out;
}

/**
 * Unique visitors across processes (a store with `sharedVisitors`, i.e. PostgreSQL): each process
 * counts from its own ledger at once (the hot path stays in memory), and keeps the visits its ledger
 * took for new; the flush sends their keys (salted hashes, the salt of the day shared through the
 * store) with the counts, and the store takes back, in the same transaction, the count of every
 * visitor another process had stored first. Reads may count such a visitor twice until the flush;
 * from then on every process reads the same sums.
 */
export class SharedSightings {
  private pending: PendingSighting[] = [];
  private readonly salts = new Map<string, string>();

  constructor(
    private readonly shared: SharedValues,
    private readonly random: RandomSource,
  ) {}

  /** Keeps a visit the ledger took for new today or this hour. */
  add(sighting: PendingSighting): void {
    this.pending.push(sighting);
  }

  /** The visits kept since the last call, for the batch about to be written. */
  take(): PendingSighting[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }

  /** Forgets the visits kept (test mode's reset). */
  discard(): void {
    this.pending = [];
  }

  /** The store's check of `sightings`; counts are taken back only for the (subject, day)s `inBatch` still has. */
  async check(sightings: readonly PendingSighting[], inBatch: (subject: string, day: string) => boolean): Promise<SightingCheck> {
    const keyed: { s: PendingSighting; today: string; hour: string }[] = [];
    for (const s of sightings) {
      const salt = await this.saltOf(s.day);
      keyed.push({ s, today: keyOf(salt, s.subject, s.visitor), hour: keyOf(salt, s.subject, s.visitor, s.hour) });
    }
    const keys = keyed.flatMap(({ s, today, hour }) => [...(s.local.newToday ? [{ day: s.day, key: today }] : []), ...(s.local.newThisHour ? [{ day: s.day, key: hour }] : [])]);
    const correct = (fresh: ReadonlySet<string>): CountsDelta[] =>
      keyed.flatMap(({ s, today, hour }) => {
        const actual = { newToday: s.local.newToday && fresh.has(today), newThisHour: s.local.newThisHour && fresh.has(hour) };
        if ((actual.newToday === s.local.newToday && actual.newThisHour === s.local.newThisHour) || !inBatch(s.subject, s.day)) return [];
        const counts = difference(foldInto(emptyCounts(), s.tallyOf(actual)), foldInto(emptyCounts(), s.tallyOf(s.local)));
        return [{ subject: s.subject, day: s.day, owner: s.owner, counts }];
      });
    return { keys, correct };
  }

  private async saltOf(day: string): Promise<string> {
    let salt = this.salts.get(day);
    if (salt === undefined) {
      // Forgotten with the day's sightings: nothing links one day's visitors to another's after that.
      salt = await this.shared.agree(`visitor salt ${day}`, Buffer.from(this.random.bytes(16)).toString('hex'), 2);
      if (this.salts.size > 4) this.salts.clear();
      this.salts.set(day, salt);
    }
    return salt;
  }
}
