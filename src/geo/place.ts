import { countryName } from '../visits/country.ts';

/** Where a visitor is, as far as the request and the databases tell: a two-letter country code and English names. */
export interface Place {
  country: string | null;
  region: string | null;
  city: string | null;
}

/** A place nothing is known of. */
export const NOWHERE: Place = Object.freeze({ country: null, region: null, city: null });

// Cache: the place of each country alone, by its code (at most 26 × 26), shared and frozen.
const COUNTRIES = new Map<string, Place>();

/** The place of a country (a code countryCode accepted) without region or city. */
export function countryOnly(code: string): Place {
  let place = COUNTRIES.get(code);
  if (!place) COUNTRIES.set(code, (place = Object.freeze({ country: code, region: null, city: null })));
  return place;
}

/**
 * A record of a MaxMind-format database, in either shape in use: MaxMind's and DB-IP's
 * (`country.iso_code`, `subdivisions[0].names.en`, `city.names.en`) or ip-location-db's flat one
 * (`country_code`, `state1`, `city`). Everything is optional: a database may have any of it.
 */
export interface GeoRecord {
  country?: { iso_code?: unknown };
  registered_country?: { iso_code?: unknown };
  subdivisions?: unknown;
  city?: unknown;
  country_code?: unknown;
  state1?: unknown;
}

// Names come from a file the admin chose; they are shown escaped, but a day's labels stay short.
const NAME_MAX = 128;

function nameOf(value: unknown): string | null {
  const raw = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? (value as { names?: { en?: unknown } }).names?.en : undefined;
  if (typeof raw !== 'string') return null;
  // Control characters would only make a label unreadable.
  const name = raw.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return name === '' ? null : name.slice(0, NAME_MAX);
}

// Cache: whether each two-letter code names a country (Intl's answer costs microseconds on every
// request); at most 26 × 26 entries, fixed with the runtime's data.
const NAMED = new Map<string, boolean>();

/** A two-letter code that names a country, uppercased, else null (Cloudflare's XX and T1, junk). */
export function countryCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const code = value.length === 2 ? value.toUpperCase() : value.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return null;
  let named = NAMED.get(code);
  if (named === undefined) NAMED.set(code, (named = countryName(code) !== 'Unknown'));
  return named ? code : null;
}

// Cache: the place of each decoded record, by the record object itself (readers hand out the same
// object for the same record, see recordCache); weak, so it holds nothing the readers dropped.
const PLACES = new WeakMap<GeoRecord, Place>();

/** The place a database record describes; a region or city without a country is dropped (its label needs one). */
export function placeOf(record: GeoRecord | null | undefined): Place {
  if (!record) return NOWHERE;
  let place = PLACES.get(record);
  if (!place) PLACES.set(record, (place = readPlace(record)));
  return place;
}

function readPlace(record: GeoRecord): Place {
  const country = countryCode(record.country?.iso_code ?? record.country_code ?? record.registered_country?.iso_code);
  if (country === null) return NOWHERE;
  const subdivisions = Array.isArray(record.subdivisions) ? (record.subdivisions as unknown[]) : [];
  const region = nameOf(subdivisions[0] ?? record.state1);
  const city = nameOf(record.city);
  return region === null && city === null ? countryOnly(country) : Object.freeze({ country, region, city });
}

/** The stats label of a place's region or city, `US:California`, `US:San Francisco`; null when unknown. */
export function placeLabel(place: Place, part: 'region' | 'city'): string | null {
  const name = place[part];
  return name === null || place.country === null ? null : `${place.country}:${name}`;
}
