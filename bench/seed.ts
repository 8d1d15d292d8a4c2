/** Seeds data directories for the benchmark by writing the store's JSON files directly (no HTTP). */
import { cp, mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDateTime } from '../src/clock.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { newUserFields } from '../src/resources/users.ts';
import { collectionFileChunks } from '../src/store/file/collection.ts';
import type { StoredRecord } from '../src/store/store.ts';

/** The admin key of every benchmarked server. */
export const BENCH_KEY = 'sk_bench_admin_00000000000000000000000000000';

/** The domain of the website events are posted for. */
export const BENCH_SITE = 'bench.example.com';

const DATE = formatDateTime(Date.UTC(2026, 0, 1));

/** A stored QR code of the admin, as `POST /api/qr/add` would have made it. */
export function qrRecord(id: number): StoredRecord {
  return {
    id,
    userId: 1,
    name: `QR ${id}`,
    alias: `q${id.toString(36).padStart(7, '0')}`,
    type: 'text',
    data: `Hello ${id}`,
    background: 'rgb(255,255,255)',
    foreground: 'rgb(0,0,0)',
    logo: null,
    channels: [],
    date: DATE,
  };
}

/** The alias of seeded link `id`. */
export const linkAlias = (id: number) => `b${id.toString(36)}`;

/** A stored short link of the admin, as `POST /api/url/add` would have made it. */
export function linkRecord(id: number): StoredRecord {
  return {
    id,
    userId: 1,
    url: `https://example.com/page/${id}`,
    description: '',
    title: '',
    domainId: null,
    type: 'direct',
    splashId: null,
    overlayId: null,
    channels: [],
    campaign: null,
    pixels: [],
    status: 'public',
    password: null,
    alias: linkAlias(id),
    date: DATE,
  };
}

let admin: Promise<UserRecord> | null = null;

/** The admin user record (hashed once: scrypt is slow on purpose). */
export function adminRecord(): Promise<UserRecord> {
  admin ??= newUserFields(
    { email: 'admin@localhost', username: 'admin', password: 'bench-password', admin: true, planid: 1, apikey: BENCH_KEY },
    Date.UTC(2026, 0, 1),
  ).then((made) => ({ id: 1, ...made.fields }) as UserRecord);
  return admin;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

function* made(count: number, make: (id: number) => StoredRecord): Generator<StoredRecord> {
  for (let id = 1; id <= count; id++) yield make(id);
}

/** Writes a collection file of records 1..count as the store writes it, in pieces: millions never exist at once. */
async function writeCollection(dir: string, name: string, count: number, make: (id: number) => StoredRecord): Promise<void> {
  const fh = await open(join(dir, `${name}.json`), 'w', 0o600);
  try {
    for (const piece of collectionFileChunks({ collection: name, seq: 0, nextId: count + 1, records: made(count, make) })) await fh.write(piece);
  } finally {
    await fh.close();
  }
}

/** Writes a data directory holding the admin, `qrs` QR codes and `links` short links. */
export async function seedDataDir(dir: string, counts: { qrs?: number; links?: number }): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const admin = await adminRecord();
  await writeCollection(dir, 'users', 1, () => admin);
  if (counts.qrs) await writeCollection(dir, 'qrs', counts.qrs, qrRecord);
  if (counts.links) await writeCollection(dir, 'links', counts.links, linkRecord);
}

/** Writes json-server's database file with the same QR codes. */
export async function seedJsonServerDb(file: string, qrs: number): Promise<void> {
  await writeFile(file, JSON.stringify({ qrs: range(qrs).map(qrRecord) }, null, 2));
}

/** A fresh copy of a seeded directory (each create round starts from the same state). */
export async function copyDir(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true });
}
