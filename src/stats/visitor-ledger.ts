import type { RandomSource } from '../random.ts';
import type { LedgerState } from '../store/store.ts';
import { avalanche, dayOf, hourOf, visitorFingerprint } from '../visits/visitor.ts';

/** Whether a visitor is new to a subject today and in this hour. */
export interface Sighting {
  newToday: boolean;
  newThisHour: boolean;
}

/** Bits of the filter: 2^27, 16 MiB, allocated on the day's first visit, whatever the traffic. */
export const LEDGER_BITS = 2 ** 27;

/** Bits set per sighting; with LEDGER_BITS, the best choice for about 10 million sightings a day. */
const PROBES = 7;

/** Sightings a day up to which fewer than 0.3% of new visitors are taken for known ones (measured: 0.02% at 6M, 0.3% at 10.8M, 1.6% at 15M). */
export const LEDGER_RATED_SIGHTINGS = 10_000_000;

/** What a VisitorLedger is told besides its random source. */
export interface LedgerOptions {
  /** Called once a day when the day's sightings pass `ratedSightings`: unique counts undercount more from then on. */
  onOverRating?: (day: string, sightings: number) => void;
  /** Default LEDGER_RATED_SIGHTINGS. */
  ratedSightings?: number;
}

/**
 * Today's visitors per subject, in a fixed 16 MiB: each (subject, visitor)
 * and (subject, visitor, hour) sighting sets a few bits of a Bloom filter, at positions from a
 * hash of subject, IP and user agent seeded with a random salt that is replaced when the day
 * changes, so no IP or per-visitor hash is kept and nothing links one day's visitors to another's. A filter
 * never takes a known visitor for a new one; it may take a new one for a known one, rarely
 * (under 0.3% up to LEDGER_RATED_SIGHTINGS sightings a day), so unique counts can only undercount.
 * The store keeps the day's salt and bits (`state`/`restore`), so a restart knows the day's visitors.
 */
export class VisitorLedger {
  private day = '';
  private seeds: [number, number] = [0, 0];
  private bits: Uint32Array | null = null;
  private sightings = 0;
  /** Bumped by every new sighting: whether the ledger changed since it was last kept. */
  changes = 0;

  constructor(
    private readonly random: RandomSource,
    private readonly options: LedgerOptions = {},
  ) {}

  /** Records a visit of `ip`+`ua` to `subject` at `at` (epoch ms) and tells what was new. */
  sight(subject: string, ip: string, ua: string, at: number): Sighting {
    const day = dayOf(at);
    if (day !== this.day) this.startDay(day, Buffer.from(this.random.bytes(16)).toString('hex'), null);
    const [a, b] = visitorFingerprint(this.seeds, subject, ip, ua);
    const hour = Number(hourOf(at).slice(11)) + 1; // the UTC hour, 1-24 (0 would leave the day's key unchanged)
    const newToday = this.add(a, b);
    const newThisHour = this.add(avalanche(a ^ Math.imul(hour, 0x9e3779b9)), avalanche(b ^ Math.imul(hour, 0x85ebca6b)));
    return { newToday, newThisHour };
  }

  private salt = '';

  private startDay(day: string, salt: string, bits: Uint32Array | null): void {
    const raw = Buffer.from(salt, 'hex');
    this.day = day;
    this.salt = salt;
    this.seeds = [raw.readUInt32LE(0), raw.readUInt32LE(4)];
    this.bits = bits;
    this.sightings = 0;
    this.changes++;
  }

  /** What the store keeps of the ledger: the day, its salt and the filter's bits (a view, not a copy). */
  state(): LedgerState | null {
    if (this.day === '') return null;
    return { day: this.day, salt: this.salt, bits: this.bits ? new Uint8Array(this.bits.buffer, this.bits.byteOffset, this.bits.byteLength) : null };
  }

  /** Takes up a kept ledger, if it is of the day `at` falls in and whole (an older day's is of no use). */
  restore(state: LedgerState, at: number): boolean {
    if (state.day !== dayOf(at) || !/^[0-9a-f]{16,}$/.test(state.salt)) return false;
    if (state.bits && state.bits.byteLength !== LEDGER_BITS / 8) return false;
    const bits = state.bits ? new Uint32Array(LEDGER_BITS / 32) : null;
    if (bits && state.bits) new Uint8Array(bits.buffer).set(state.bits);
    this.startDay(state.day, state.salt, bits);
    return true;
  }

  /** Sightings (visitor and day, visitor and hour) recorded today: past LEDGER_RATED_SIGHTINGS the filter is over its rating. */
  get size(): number {
    return this.sightings;
  }

  /** Bytes the ledger holds: 0 before the day's first visit, then LEDGER_BITS / 8, however many visitors come. */
  get bytes(): number {
    return this.bits?.byteLength ?? 0;
  }

  // Sets the PROBES bits of the key (h1, h2) and says whether any was unset, i.e. the key is new.
  private add(h1: number, h2: number): boolean {
    const bits = (this.bits ??= new Uint32Array(LEDGER_BITS / 32));
    const step = h2 | 1; // odd, so that the probes of a key never fall on the same bit
    let fresh = false;
    for (let i = 0, at = h1; i < PROBES; i++, at = (at + step) | 0) {
      const bit = at & (LEDGER_BITS - 1);
      const mask = 1 << (bit & 31);
      const word = bit >>> 5;
      if ((bits[word]! & mask) === 0) {
        bits[word]! |= mask;
        fresh = true;
      }
    }
    if (fresh) this.changes++;
    if (fresh && ++this.sightings === (this.options.ratedSightings ?? LEDGER_RATED_SIGHTINGS) + 1) this.options.onOverRating?.(this.day, this.sightings);
    return fresh;
  }
}
