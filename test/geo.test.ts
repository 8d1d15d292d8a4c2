import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledCountryReader } from '../src/geo/bundled-country.ts';
import { Geolocator, countryGeolocator, openGeolocator } from '../src/geo/geolocator.ts';
import { readerOf } from '../src/geo/mmdb.ts';
import { NOWHERE, placeOf } from '../src/geo/place.ts';
import { GeoDatabaseError, WatchedDatabase } from '../src/geo/watched-database.ts';
import type { Logger } from '../src/log.ts';
import { eventually } from './helpers.ts';
import { buildMmdb, cityRecord } from './mmdb-writer.ts';

/** A logger that keeps its lines. */
function keptLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (msg: string) => void lines.push(`${level} ${msg}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error'), enabled: () => true };
}

const london = buildMmdb({ networks: [['81.2.69.0/24', cityRecord('GB', 'England', 'London')]] });
const manchester = buildMmdb({ networks: [['81.2.69.0/24', cityRecord('GB', 'England', 'Manchester')]] });
const cityAt = (db: WatchedDatabase) => new Geolocator({ city: db }).locate('81.2.69.10').city;

test('Geolocator: the header wins when it names a country; else the City database, else the bundled countries', async (t) => {
  const geo = new Geolocator({ country: bundledCountryReader(), city: { current: readerOf(london) } });
  const cases: [string, string, string | undefined, unknown][] = [
    ['bundled database, IPv4', '8.8.8.8', undefined, { country: 'US', region: null, city: null }],
    ['bundled database, IPv6', '2a00:1450:4001::1', undefined, { country: 'DE', region: null, city: null }],
    ['an IPv4-mapped socket address', '::ffff:8.8.8.8', undefined, { country: 'US', region: null, city: null }],
    ['City database', '81.2.69.10', undefined, { country: 'GB', region: 'England', city: 'London' }],
    ['the header agrees with the City database', '81.2.69.10', ' gb ', { country: 'GB', region: 'England', city: 'London' }],
    ['the header names another country: no region or city', '81.2.69.10', 'FR', { country: 'FR', region: null, city: null }],
    ['the header wins over the bundled database', '8.8.8.8', 'de', { country: 'DE', region: null, city: null }],
    ["Cloudflare's T1 (Tor) and XX name no country: the database answers", '8.8.8.8', 'T1', { country: 'US', region: null, city: null }],
    ['no data for the address', '192.0.2.1', undefined, NOWHERE],
    ['no address (no socket)', 'unknown', undefined, NOWHERE],
    ['no address, a header', 'unknown', 'CA', { country: 'CA', region: null, city: null }],
  ];
  for (const [name, ip, header, want] of cases) await t.test(name, () => assert.deepEqual(geo.locate(ip, header), want));
  await t.test('GEOIP off: the header only', () => {
    const off = countryGeolocator({ geoip: false });
    assert.deepEqual([off.locate('8.8.8.8'), off.locate('8.8.8.8', 'IT')], [NOWHERE, { country: 'IT', region: null, city: null }]);
    assert.deepEqual(openGeolocator({ geoip: false, geoipDatabase: '/nowhere.mmdb' }, keptLog()).locate('8.8.8.8'), NOWHERE, 'nor is the City database read');
  });
});

test('placeOf reads MaxMind and DB-IP records and ip-location-db flat ones; names are cleaned and bounded', () => {
  assert.deepEqual(placeOf({ country: { iso_code: 'gb' }, subdivisions: [{ names: { en: 'England' } }], city: { names: { en: 'London' } } }), { country: 'GB', region: 'England', city: 'London' });
  assert.deepEqual(placeOf({ country_code: 'US', state1: 'California', city: 'San Francisco' }), { country: 'US', region: 'California', city: 'San Francisco' });
  assert.deepEqual(placeOf({ registered_country: { iso_code: 'FR' } }), { country: 'FR', region: null, city: null });
  assert.deepEqual(placeOf({ country_code: 'ZZ', city: 'Nowhere' }), NOWHERE, 'no country, no place');
  assert.deepEqual(placeOf({ country_code: 'DE', city: ' Ber\u0007lin\n ', state1: 7 }), { country: 'DE', region: null, city: 'Berlin' });
  assert.equal(placeOf({ country_code: 'DE', city: 'x'.repeat(500) }).city?.length, 128);
  assert.deepEqual(placeOf(null), NOWHERE);
});

test('GEOIP_DATABASE that cannot be used stops the start with one line naming the setting and the path', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'geo-'));
  const junk = join(dir, 'junk.mmdb');
  await writeFile(junk, 'not a database at all');
  for (const [path, reason] of [[join(dir, 'missing.mmdb'), 'no such file'], [dir, 'it is a directory'], [junk, '']] as const) {
    assert.throws(
      () => openGeolocator({ geoip: true, geoipDatabase: path }, keptLog()),
      (err: Error) => err instanceof GeoDatabaseError && err.message.startsWith(`GEOIP_DATABASE ${path} cannot be used: ${reason}`) && !err.message.includes('\n'),
      path,
    );
  }
  await rm(dir, { recursive: true });
});

test('a replaced City database is read again while lookups go on answering (old or new, never a mix); a broken or missing new file keeps the old one and logs one line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'geo-'));
  const path = join(dir, 'City.mmdb');
  await writeFile(path, london);
  const log = keptLog();
  const db = WatchedDatabase.open(path, log, 20);
  try {
    assert.equal(cityAt(db), 'London');
    // Replaced by a rename, as geoipupdate does: lookups go on answering, from the old file or the new one.
    await writeFile(`${path}.tmp`, manchester);
    await rename(`${path}.tmp`, path);
    const seen = new Set<string | null>();
    assert.ok(await eventually(() => (seen.add(cityAt(db)), cityAt(db) === 'Manchester'), 5000), 'the renamed file was read');
    assert.deepEqual([...seen].filter((c) => c !== 'London' && c !== 'Manchester'), [], 'never anything else');
    await db.settled();
    assert.deepEqual(log.lines.filter((l) => l.startsWith('warn')), []);
    assert.match(log.lines.at(-1) ?? '', new RegExp(`^info GEOIP_DATABASE ${path} read again \\(Test-City\\)$`));

    // A half-copied file: the old reader stays, one line says why.
    await writeFile(path, manchester.subarray(0, 40));
    assert.ok(await eventually(() => log.lines.some((l) => l.startsWith('warn')), 5000), 'the broken file was noticed');
    await db.settled();
    assert.equal(cityAt(db), 'Manchester');
    const warnings = log.lines.filter((l) => l.startsWith('warn'));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`^warn GEOIP_DATABASE ${path} changed but cannot be used \\(.+\\); still using the database read before$`));
    // Still broken, another way (a copy under way grows): no second line until a copy can be used.
    await writeFile(path, manchester.subarray(0, 80));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await db.settled();
    assert.equal(log.lines.filter((l) => l.startsWith('warn')).length, 1);
    assert.equal(cityAt(db), 'Manchester');

    // Written in place, complete: read again.
    await writeFile(path, london);
    assert.ok(await eventually(() => cityAt(db) === 'London', 5000), 'the file written in place was read');

    // Gone: the old reader stays; back: read again.
    await rm(path);
    assert.ok(await eventually(() => log.lines.some((l) => l.includes('is gone')), 5000));
    assert.equal(cityAt(db), 'London');
    await writeFile(path, manchester);
    assert.ok(await eventually(() => cityAt(db) === 'Manchester', 5000), 'the file that came back was read');
  } finally {
    db.close();
    await rm(dir, { recursive: true });
  }
});

test('openGeolocator reads GEOIP_DATABASE at start and close() stops watching it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'geo-'));
  const path = join(dir, 'City.mmdb');
  await writeFile(path, london);
  const geo = openGeolocator({ geoip: true, geoipDatabase: path }, keptLog());
  assert.deepEqual(geo.locate('81.2.69.10'), { country: 'GB', region: 'England', city: 'London' });
  assert.deepEqual(geo.locate('8.8.8.8'), { country: 'US', region: null, city: null }, 'the bundled countries stay behind it');
  geo.close();
  await rm(dir, { recursive: true });
});
