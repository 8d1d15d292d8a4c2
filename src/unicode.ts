/** A surrogate half without its partner: no UTF-8 form, so no file, header or QR code can hold it. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether any string in `value` (keys too, at any depth) has a lone surrogate. A walk with its own stack: a value may nest deeper than the call stack goes. */
export function hasLoneSurrogate(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const inner of v) pending.push(inner);
    } else if (v && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/** `s` with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder writes it; for text stored before it was refused. */
export function wellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd') : s;
}
