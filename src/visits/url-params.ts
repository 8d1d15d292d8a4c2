// Relative page paths ("/x?a=1") are resolved against a placeholder origin that never leaks out.
const PLACEHOLDER_ORIGIN = 'http://placeholder.invalid';

function parse(pageUrl: string): URL | null {
  try {
    return new URL(pageUrl.trim(), PLACEHOLDER_ORIGIN);
  } catch {
    return null;
  }
}

function nameOf(pair: string): string {
  const raw = (pair.split('=')[0] ?? '').replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

// Campaign tags (utm_source, utm_medium, …): the same page reached from two newsletters is one page.
const CAMPAIGN_TAG = /^utm_/i;

/**
 * The path and query of a page URL without its fragment, without any `utm_*` parameter, and
 * without the query parameters named in `exclude` (`&` there means all of them); the rest keep
 * their order and original encoding. Answers '' for a URL that cannot be parsed.
 */
export function stripQueryParams(pageUrl: string, exclude: string[]): string {
  const url = parse(pageUrl);
  if (url === null) return '';
  const names = new Set(exclude.map((name) => name.trim()).filter((name) => name !== ''));
  if (names.has('&')) return url.pathname;
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !names.has(nameOf(pair)) && !CAMPAIGN_TAG.test(nameOf(pair)));
  return kept.length === 0 ? url.pathname : `${url.pathname}?${kept.join('&')}`;
}

/** The trimmed `utm_campaign` query parameter of a page URL, or null when missing, empty or unparseable. */
export function utmCampaign(pageUrl: string): string | null {
  const value = parse(pageUrl)?.searchParams.get('utm_campaign')?.trim() ?? '';
  return value === '' ? null : value;
}
