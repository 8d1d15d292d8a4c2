import * as v from 'valibot';

/** `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DD` (midnight), a real calendar date; output in the long form. */
export const dateTime = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/, 'Dates must be in the form YYYY-MM-DD HH:MM:SS.'),
  v.transform((s) => (s.length === 10 ? `${s} 00:00:00` : s)),
  v.check((s) => {
    const d = new Date(s.replace(' ', 'T') + 'Z');
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 19).replace('T', ' ') === s;
  }, 'Dates must be real calendar dates in the form YYYY-MM-DD HH:MM:SS.'),
);

/** Milliseconds since the epoch of a `YYYY-MM-DD HH:MM:SS` UTC date. */
export function parseDateTime(s: string): number {
  return Date.parse(s.replace(' ', 'T') + 'Z');
}

/** An http(s) URL of sane length. */
export const httpUrl = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(2048, 'Please enter a valid URL.'),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'Please enter a valid URL.'),
);
