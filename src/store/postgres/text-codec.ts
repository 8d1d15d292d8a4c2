/**
 * PostgreSQL text cannot hold NUL, and jsonb refuses NUL and lone surrogates, but records carry
 * whatever a client sent (the file store keeps it as is). Such characters are stored escaped:
 * \u0001 starts an escape: \u0001 '0' is NUL, \u0001 '1' is \u0001 itself, \u0001 'u' XXXX one
 * UTF-16 code unit. Everything else is stored as it is, so SQL on ordinary text stays plain.
 */
const ESC = '\u0001';
const NEEDS = /[\u0000\u0001\ud800-\udfff]/;
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `s` as it can be stored in a text column. */
export function encodeText(s: string): string {
  if (!NEEDS.test(s) || (!/[\u0000\u0001]/.test(s) && !LONE.test(s))) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) out += `${ESC}0`;
    else if (c === 1) out += `${ESC}1`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) out += s[i]! + s[++i]!;
    else if (c >= 0xd800 && c <= 0xdfff) out += `${ESC}u${c.toString(16).padStart(4, '0')}`;
    else out += s[i]!;
  }
  return out;
}

/** The text `encodeText` was given. */
export function decodeText(s: string): string {
  if (!s.includes(ESC)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== ESC) {
      out += s[i]!;
      continue;
    }
    const kind = s[++i];
    if (kind === '0') out += '\u0000';
    else if (kind === 'u') {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 5), 16));
      i += 4;
    } else out += ESC;
  }
  return out;
}

// Deep copies with every string and key passed through `f`; labels may be "__proto__", so no prototype.
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      Object.defineProperty(out, f(k), { value: mapStrings(v, f), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

// What JSON.stringify writes for NUL, \u0001 and lone surrogates (a literal backslash-u also matches: harmless).
const ESCAPED_IN_JSON = /\\u(000[01]|d[89a-f])/i;

/** Whether JSON.stringify's text of a value is what encodeJson stores for it (no NUL, \u0001 or lone surrogate in it). */
export function storableJson(json: string): boolean {
  // includes() first: a plain search is several times cheaper than the regular expression, and almost no record has a \u escape.
  return !json.includes('\\u') || !ESCAPED_IN_JSON.test(json);
}

/** JSON of `value` as jsonb can store it. */
export function encodeJson(value: unknown): string {
  const json = JSON.stringify(value);
  return storableJson(json) ? json : JSON.stringify(mapStrings(value, encodeText));
}

/** The value a jsonb text holds, escapes undone (the driver's jsonb parser). */
export function decodeJson(json: string): unknown {
  const value: unknown = JSON.parse(json);
  return json.includes('\\u0001') ? mapStrings(value, decodeText) : value;
}
