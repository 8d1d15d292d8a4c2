/** A surrogate half without its partner: no UTF-8 form, so no file, header or QR code can hold it. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether any string in `value` (keys too, at any depth) has a lone surrogate. */
export function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v));
  return false;
}

/** `s` with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder writes it; for text stored before it was refused. */
export function wellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd') : s;
}
