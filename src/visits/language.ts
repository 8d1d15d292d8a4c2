const TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/;
const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The language tags of an Accept-Language header, lowercased, best first (by q, ties in header
 * order), without duplicates. `*`, `q=0` entries and malformed entries are left out.
 */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (header === undefined) return [];
  const entries: Array<{ tag: string; q: number }> = [];
  for (const part of header.split(',')) {
    const [rawTag = '', ...params] = part.split(';').map((s) => s.trim());
    // Some clients send POSIX-style "en_US".
    const tag = rawTag.toLowerCase().replace(/_/g, '-');
    if (!TAG.test(tag)) continue;
    let q = 1;
    let malformed = false;
    for (const param of params) {
      const weight = WEIGHT.exec(param.toLowerCase().replace(/\s+/g, ''));
      if (weight?.[1] === undefined) malformed = true;
      else q = Number(weight[1]);
    }
    if (malformed || q === 0 || entries.some((e) => e.tag === tag)) continue;
    entries.push({ tag, q });
  }
  // Array.prototype.sort is stable, so equal weights keep the header's order.
  return entries.sort((a, b) => b.q - a.q).map((e) => e.tag);
}

/** The primary subtag of the preferred language of an Accept-Language header ('en' for 'en-US'), or null. */
export function primaryLanguage(header: string | undefined): string | null {
  const [first] = parseAcceptLanguage(header);
  return first?.split('-')[0] ?? null;
}
