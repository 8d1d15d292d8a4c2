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
// (`\r\n` vanish, `\u0001` becomes `%01`), and no header can carry them. Refused.
const UNSAFE_URL_CHARS = new RegExp(`[\\u0000-\\u001f\\u007f]|${LONE_SURROGATE.source}`);

// Spelt without the `i` flag, so that the OpenAPI document can carry it as a JSON Schema pattern.
const HTTP_SCHEME = /^[Hh][Tt][Tt][Pp][Ss]?:\/\//;
const HTTP_SCHEME_OR_EMPTY = /^$|^[Hh][Tt][Tt][Pp][Ss]?:\/\//;

/** The longest URL a URL field takes, in characters. */
export const MAX_URL_LENGTH = 2048;

/**
 * Whether `s` starts with `http://` or `https://` (in any letter case). Stored as given, a URL must
 * mean the same absolute URL wherever it is read: `https:example.com` is example.com to the URL
 * parser alone, but a path of this server to a browser resolving it against a page of ours.
 */
export const hasHttpScheme = (s: string): boolean => HTTP_SCHEME.test(s);

/**
 * Whether `s` is an http(s) URL a URL field takes, exactly as it is: it starts with `http://` or
 * `https://`, the URL parser reads it with a host, and it holds no control character or lone surrogate.
 */
export function isHttpUrl(s: string): boolean {
  if (!hasHttpScheme(s) || UNSAFE_URL_CHARS.test(s)) return false;
  try {
    return new URL(s).hostname.length > 0;
  } catch {
    return false;
  }
}

/** What a URL field answers when it refuses a value: without `http://` or `https://` in front, or otherwise not a URL it takes. */
export interface UrlMessages {
  scheme: string;
  invalid: string;
}

/** The link API's messages for a URL (the real product's "Please enter a valid URL.", and why). */
export const URL_MESSAGES: UrlMessages = {
  scheme: 'Please enter a valid URL: it must start with http:// or https://.',
  invalid: 'Please enter a valid URL.',
};

/**
 * The checks of a URL field, in the order their messages win: length, scheme, the rest. Nothing is
 * rewritten. `orEmpty`: the empty string passes too (a field where "" means none).
 */
export function urlChecks(messages: UrlMessages = URL_MESSAGES, orEmpty = false) {
  const empty = (s: string) => orEmpty && s === '';
  return [
    v.maxLength<string, number, string>(MAX_URL_LENGTH, messages.invalid),
    v.regex<string, string>(orEmpty ? HTTP_SCHEME_OR_EMPTY : HTTP_SCHEME, messages.scheme),
    v.check((s: string) => empty(s) || isHttpUrl(s), messages.invalid),
  ] as const;
}

/**
 * An http(s) URL, stored exactly as the client sent it (surrounding spaces trimmed): a client reads
 * back what it wrote (`https://example.com` stays without a slash). What a header or a page cannot
 * carry is refused here (control characters, CR/LF, no scheme, no host), and a redirect's `Location`
 * percent-encodes the rest (http/location.ts). Older data stored in the URL parser's form reads the same.
 */
export const httpUrl = v.pipe(v.string(), v.trim(), ...urlChecks());
