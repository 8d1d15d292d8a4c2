// Made at the first name asked for: loading the region names costs a server start ~30 ms of CPU.
let regionNames: Intl.DisplayNames | undefined;

// Cache: the name of each two-letter code asked for (at most 26 × 26), fixed with the runtime's
// data. Intl answers in microseconds, and every located click and visit asks.
const NAMES = new Map<string, string>();

/** The English name of an ISO 3166-1 alpha-2 country code, or 'Unknown' (missing, XX, ZZ, T1, ...). */
export function countryName(code: string | undefined): string {
  const upper = code?.trim().toUpperCase() ?? '';
  // Only two-letter codes; CDN pseudo-codes like Cloudflare's T1 (Tor) would make `of` throw.
  if (!/^[A-Z]{2}$/.test(upper)) return 'Unknown';
  const known = NAMES.get(upper);
  if (known !== undefined) return known;
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const name = regionNames.of(upper);
  // ZZ is CLDR's "Unknown Region"; XX and other unassigned codes have no name.
  const answer = name === undefined || upper === 'ZZ' ? 'Unknown' : name;
  NAMES.set(upper, answer);
  return answer;
}

/** The stats label of a country code, `'US:United States'`, or 'Unknown' when the code has no name. */
export function countryLabel(code: string | undefined): string {
  const name = countryName(code);
  return name === 'Unknown' ? name : `${(code ?? '').trim().toUpperCase()}:${name}`;
}
