/** murmur3's finaliser, as an unsigned 32-bit number: every input bit moves about half of the output bits. */
export function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Two seeded 32-bit hashes of a visitor (IP and user agent) of a subject, for the visitor
 * ledger's filter: plain multiply-xor lanes over the characters, each part followed by its
 * length so that parts are framed ("a"+"bc" is not "ab"+"c"). Not a cryptographic hash: the seeds
 * are random and kept only where the server's own data is (memory, the data directory or the
 * database, readable by the server alone), so nobody outside can aim at its collisions.
 */
export function visitorFingerprint(seeds: readonly [number, number], subject: string, ip: string, ua: string): [number, number] {
  let a = seeds[0] | 0;
  let b = seeds[1] | 0;
  for (const part of [subject, ip, ua]) {
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    a = Math.imul(a ^ part.length, 0x01000193);
    b = Math.imul(b ^ part.length, 0x5bd1e995);
  }
  return [avalanche(a), avalanche(b)];
}

const HOUR_MS = 3_600_000;
// Every counted visit asks for its day and hour, and nearly all of them fall in the same hour as the
// last one: that hour's strings are kept instead of formatting a Date each time.
let cachedHour = { start: NaN, day: '', hour: '' };

function hourEntry(ms: number) {
  const start = ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
  if (start !== cachedHour.start) {
    const iso = new Date(ms).toISOString();
    cachedHour = { start, day: iso.slice(0, 10), hour: `${iso.slice(0, 10)} ${iso.slice(11, 13)}` };
  }
  return cachedHour;
}

/** The UTC day 'YYYY-MM-DD' of an epoch-milliseconds time; throws RangeError for an invalid time. */
export function dayOf(ms: number): string {
  return hourEntry(ms).day;
}

/** The UTC hour 'YYYY-MM-DD HH' of an epoch-milliseconds time; throws RangeError for an invalid time. */
export function hourOf(ms: number): string {
  return hourEntry(ms).hour;
}
