/**
 * The geolocation lookup, timed in this process (`npm run bench` runs it first; alone:
 * `node --import tsx bench/geo-lookup.ts`). Geolocator.locate as a request calls it (address check,
 * tree walk, record decoding), over a set of public addresses (nine in ten IPv4), against the
 * bundled country database and against a City database made here (test/mmdb-writer.ts) with
 * 100,000 networks, a tree as deep as real ones. Batches of lookups; the median of the batches'
 * µs per lookup is reported, as the issue's target (≤ 5 µs) asks.
 */
import { bundledCountryReader } from '../src/geo/bundled-country.ts';
import { Geolocator } from '../src/geo/geolocator.ts';
import { readerOf } from '../src/geo/mmdb.ts';
import { buildMmdb, cityRecord } from '../test/mmdb-writer.ts';
import { median } from './load.ts';

/** The median µs per lookup of each kind, and how many lookups were timed. */
export interface LookupTimes {
  countryUs: number;
  cityUs: number;
  headerUs: number;
  lookups: number;
}

/** `n` public addresses, the same on every run: spread over the IPv4 space without private and reserved blocks, one in ten IPv6. */
export function addresses(n: number): string[] {
  const out: string[] = [];
  let s = 0x9e3779b9;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  while (out.length < n) {
    const x = next();
    if (out.length % 10 === 9) {
      out.push(`2a0${x & 7}:${((x >>> 3) & 0xffff).toString(16)}:${((x >>> 19) & 0xfff).toString(16)}::${(x & 0xff).toString(16)}`);
      continue;
    }
    const a = (x >>> 24) % 223 + 1;
    if (a === 10 || a === 127 || a === 100 || a === 169 || a === 172 || a === 192) continue;
    out.push(`${a}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`);
  }
  return out;
}

/** A City database of `n` /24 networks spread like `addresses` (about 30 MB of tree and records, like a small real one). */
function cityDatabase(n: number): Buffer {
  const networks: [string, ReturnType<typeof cityRecord>][] = [];
  for (const ip of addresses(n * 2)) {
    if (networks.length === n) break;
    if (ip.includes(':')) continue;
    networks.push([`${ip.split('.').slice(0, 3).join('.')}.0/24`, cityRecord('US', `Region ${networks.length % 50}`, `City ${networks.length % 5000}`)]);
  }
  return buildMmdb({ networks });
}

function timeBatches(locate: (ip: string) => unknown, ips: readonly string[], batches: number): number {
  for (const ip of ips) locate(ip); // warm-up: the JIT and the caches
  const perLookup: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = process.hrtime.bigint();
    for (const ip of ips) locate(ip);
    perLookup.push(Number(process.hrtime.bigint() - start) / 1000 / ips.length);
  }
  return median(perLookup);
}

/** Times the lookups (about 2 s on 2 cores). */
export function measureLookups(batches = 15, perBatch = 20_000): LookupTimes {
  const ips = addresses(perBatch);
  const country = new Geolocator({ country: bundledCountryReader() });
  const city = new Geolocator({ country: bundledCountryReader(), city: { current: readerOf(cityDatabase(100_000)) } });
  return {
    countryUs: timeBatches((ip) => country.locate(ip), ips, batches),
    cityUs: timeBatches((ip) => city.locate(ip), ips, batches),
    // A CDN's header and no City database: no lookup at all.
    headerUs: timeBatches((ip) => country.locate(ip, 'DE'), ips, batches),
    lookups: batches * perBatch,
  };
}

/** The report's line. */
export function lookupLine(t: LookupTimes): string {
  return `Geolocation per lookup (median of batches, ${t.lookups.toLocaleString('en')} lookups each): bundled countries ${t.countryUs.toFixed(2)} µs, with a City database of 100,000 networks ${t.cityUs.toFixed(2)} µs, country header given ${t.headerUs.toFixed(2)} µs`;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(lookupLine(measureLookups()));
