import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Reader } from 'mmdb-lib';
import type { Response } from 'mmdb-lib';
import type { GeoRecord } from './place.ts';

/** A reader of one MaxMind-format database, loaded whole into memory (lookups are synchronous). */
export type GeoReader = Reader<Response>;

/** The record a database holds for `ip` (a valid address), or null. */
export function recordAt(reader: GeoReader, ip: string): GeoRecord | null {
  // mmdb-lib types MaxMind's own shapes; a file may hold others (ip-location-db's flat one), and
  // GeoRecord reads every field as unknown, so the cast only widens.
  return reader.get(ip) as GeoRecord | null;
}

// Addresses every database of the world has an answer (or a clean miss) for: a file whose tree
// or data is damaged throws on them, so it is refused before it replaces a good one.
const PROBES = ['8.8.8.8', '1.1.1.1', '81.2.69.142'];
const PROBES_V6 = ['2001:4860:4860::8888', '2a00:1450:4001::1'];

/** How many decoded records a reader keeps (see recordCache). */
export const RECORD_CACHE_SIZE = 20_000;

/**
 * Cache: a reader's decoded records by their offset in the file, at most RECORD_CACHE_SIZE, the
 * oldest dropped first; it lives and dies with its reader (a reloaded file gets a new one). Visitors
 * share few records (a country database has about 250), and decoding one costs more than the
 * tree walk. The records are shared objects: nothing may change them.
 */
function recordCache(max = RECORD_CACHE_SIZE) {
  const entries = new Map<number | string, unknown>();
  return {
    get: (offset: number | string) => entries.get(offset),
    set: (offset: number | string, value: unknown) => {
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(offset, value);
    },
  };
}

/** The bytes of a MaxMind-format database as a reader; throws (with the reason) when they are not one. */
export function readerOf(bytes: Buffer): GeoReader {
  const reader = new Reader<Response>(bytes, { cache: recordCache() });
  const { searchTreeSize, ipVersion } = reader.metadata;
  if (!(searchTreeSize > 0) || searchTreeSize + 16 > bytes.length) throw new Error('its search tree is larger than the file');
  for (const ip of ipVersion === 6 ? [...PROBES, ...PROBES_V6] : PROBES) reader.get(ip);
  return reader;
}

/** Reads and checks a database file at start (synchronously: nothing is served yet). */
export function loadReaderSync(path: string): GeoReader {
  return readerOf(readFileSync(path));
}

/** Reads and checks a database file off the request path (the file is read on libuv's threads). */
export async function loadReader(path: string): Promise<GeoReader> {
  return readerOf(await readFile(path));
}

/** An address a database can be asked about: IPv4-mapped IPv6 (`::ffff:1.2.3.4`, sockets of a dual-stack server) as plain IPv4. */
export function lookupAddress(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
