import * as v from 'valibot';
import { LONE_SURROGATE } from '../unicode.ts';

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

// C0 controls, DEL and lone surrogates: the URL parser would silently drop or rewrite them
// (`\r\n` vanish, `\u0001` becomes `%01`), so what is stored would not be what was sent. Refused.
const UNSAFE_URL_CHARS = new RegExp(`[\\u0000-\\u001f\\u007f]|${LONE_SURROGATE.source}`);

/** The normalised form of an http(s) URL (what `new URL(s).href` gives: printable ASCII only), or null when `s` is not one. */
export function normalHttpUrl(s: string): string | null {
  if (UNSAFE_URL_CHARS.test(s)) return null;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0 ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * An http(s) URL of sane length, stored normalised. Every URL the server later writes into a
 * `Location` header or a page passes here, so no stored URL can carry a byte a header refuses.
 */
export const httpUrl = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(2048, 'Please enter a valid URL.'),
  v.check((s) => normalHttpUrl(s) !== null, 'Please enter a valid URL.'),
  v.transform((s) => normalHttpUrl(s) ?? s),
  v.maxLength(2048, 'Please enter a valid URL.'),
);
