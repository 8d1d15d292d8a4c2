import { countryName } from '../visits/country.ts';

// Names the real product's clients send that differ from Intl's English names (CLDR renamed some).
const COUNTRY_ALIASES: Record<string, string> = {
  'united states of america': 'US',
  usa: 'US',
  uk: 'GB',
  'great britain': 'GB',
  'czech republic': 'CZ',
  'ivory coast': 'CI',
  "cote d'ivoire": 'CI',
  turkey: 'TR',
  'republic of korea': 'KR',
  'korea, republic of': 'KR',
  macedonia: 'MK',
  swaziland: 'SZ',
  burma: 'MM',
  'russian federation': 'RU',
  'viet nam': 'VN',
};

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').replace(/[’`]/g, "'").trim().toLowerCase();

// Codes with a name that are no country (or, UK, a second code of one): never what a name means.
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'QO', 'UN', 'UK']);

// Every two-letter country code with an English name, by its folded name; built once, when first
// needed (676 lookups: ~25 ms a server would otherwise spend as it starts).
let byName: ReadonlyMap<string, string> | undefined;
const countriesByName = (): ReadonlyMap<string, string> => (byName ??= (() => {
  const out = new Map<string, string>();
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) {
    for (const b of letters) {
      const name = countryName(a + b);
      if (name !== 'Unknown' && !NOT_COUNTRIES.has(a + b)) out.set(fold(name), a + b);
    }
  }
  for (const [name, code] of Object.entries(COUNTRY_ALIASES)) out.set(name, code);
  return out;
})());

/**
 * A geotarget location as stored: a two-letter code as given ("ca"), or the code of an English
 * country name ("Canada" → CA, "United States" → US), as the real product takes both; null when it is neither.
 */
export function countryCodeOf(location: string): string | null {
  const text = location.trim();
  if (/^[A-Za-z]{2}$/.test(text)) return text;
  return countriesByName().get(fold(text)) ?? null;
}

// The real product's device names that are spelt otherwise here.
const DEVICE_ALIASES: Record<string, string> = {
  mac: 'macintosh',
  macos: 'macintosh',
  'mac os': 'macintosh',
  'mac os x': 'macintosh',
  osx: 'macintosh',
  'chrome os': 'chromeos',
  windowsphone: 'windows phone',
  'windows mobile': 'windows phone',
};

/** A device target's name in our spelling: letter case folded, the real product's other names mapped ("Mac" → macintosh). */
export function deviceNameOf(device: string): string {
  const text = device.trim().toLowerCase().replace(/\s+/g, ' ');
  return DEVICE_ALIASES[text] ?? text;
}
