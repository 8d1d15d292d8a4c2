/** The five UTM tags of a URL's query, trimmed; null for each one missing or empty. */
export interface Utm {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
}

/** The UTM parts, in the order of their stats names (`utm_source`, …). */
export const UTM_PARTS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

// UTM values are a few words; a longer one is junk, kept short like every label.
const VALUE_MAX = 255;

/**
 * The UTM tags in the query of `url` (absolute, or a path with a query), or null when it has none.
 * Names are matched without regard to case; the first of a repeated tag counts; `+` is a space and
 * %-escapes are decoded (one that is not an escape, `100%`, is kept as written).
 */
export function utmOf(url: string): Utm | null {
  const start = url.indexOf('?');
  // Most URLs have no query, or none with a tag: no parsing for them (the redirect path).
  if (start < 0 || !/utm_/i.test(url)) return null;
  const end = url.indexOf('#', start);
  let found: Utm | null = null;
  for (const [name, raw] of new URLSearchParams(url.slice(start + 1, end < 0 ? undefined : end))) {
    const lower = name.toLowerCase();
    if (!lower.startsWith('utm_')) continue;
    const part = lower.slice(4) as (typeof UTM_PARTS)[number];
    if (!UTM_PARTS.includes(part)) continue;
    const value = raw.trim().slice(0, VALUE_MAX);
    if (value === '') continue;
    found ??= { source: null, medium: null, campaign: null, term: null, content: null };
    found[part] ??= value;
  }
  return found;
}
