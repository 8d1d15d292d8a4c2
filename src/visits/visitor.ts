import { createHash } from 'node:crypto';

/**
 * A daily-rotating, salted visitor id: the first 32 hex chars of sha256 over salt, IP, UA and day,
 * so unique visitors can be counted without storing the raw IP.
 */
export function visitorHash(salt: string, ip: string, ua: string, day: string): string {
  // JSON framing keeps the parts unambiguous ("a"+"bc" must not equal "ab"+"c").
  return createHash('sha256').update(JSON.stringify([salt, ip, ua, day])).digest('hex').slice(0, 32);
}

/** The UTC day 'YYYY-MM-DD' of an epoch-milliseconds time; throws RangeError for an invalid time. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC hour 'YYYY-MM-DD HH' of an epoch-milliseconds time; throws RangeError for an invalid time. */
export function hourOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13).replace('T', ' ');
}
