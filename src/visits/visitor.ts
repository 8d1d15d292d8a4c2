import { createHash } from 'node:crypto';

/**
 * A daily-rotating, salted visitor id: the first 32 hex chars of sha256 over salt, IP, UA and day,
 * so unique visitors can be counted without storing the raw IP.
 */
export function visitorHash(salt: string, ip: string, ua: string, day: string): string {
  // JSON framing keeps the parts unambiguous ("a"+"bc" must not equal "ab"+"c").
  return createHash('sha256').update(JSON.stringify([salt, ip, ua, day])).digest('hex').slice(0, 32);
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
