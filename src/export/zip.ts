import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync } from 'node:zlib';

/** One file of a zip archive. */
export interface ZipEntry {
  /** Path inside the archive, `/` between folders. */
  name: string;
  data: Uint8Array | string;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes` (the zip format's, ISO 3309). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// MS-DOS date and time, as zip headers keep them: 2-second steps, years from 1980.
function dosTime(ms: number): { time: number; date: number } {
  const d = new Date(Math.max(ms, Date.UTC(1980, 0, 1)));
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/**
 * A zip archive of `entries` (PKWARE APPNOTE: local headers, deflated data, central directory),
 * every file dated `at` (epoch ms, UTC). Names are flagged UTF-8. Small archives only (statistics
 * exports): no ZIP64, so at most 65,535 files and 4 GiB; past that it throws.
 */
export function zipOf(entries: readonly ZipEntry[], at: number, deflated?: readonly Buffer[]): Buffer {
  if (entries.length > 0xffff) throw new RangeError('a zip without ZIP64 holds at most 65535 files');
  const { time, date } = dosTime(at);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [i, entry] of entries.entries()) {
    const name = Buffer.from(entry.name, 'utf8');
    const raw = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    const packed = deflated?.[i] ?? deflateRawSync(raw);
    // Data that does not shrink is stored as it is (method 0), as zip tools do.
    const stored = packed.length >= raw.length;
    const body = stored ? raw : packed;
    const crc = crc32(raw);
    if (offset + 30 + name.length + body.length > 0xffffffff) throw new RangeError('a zip without ZIP64 holds at most 4 GiB');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // bit 11: the name is UTF-8
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const deflating = promisify(deflateRaw);

/** zipOf with every entry deflated on libuv's threads rather than the event loop (an export of megabytes of CSV). */
export async function zipOffLoop(entries: readonly ZipEntry[], at: number): Promise<Buffer> {
  // Each text encoded once, for both the deflating and the archive.
  const bytes = entries.map((e) => ({ name: e.name, data: typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data }));
  const deflated = await Promise.all(bytes.map((e) => deflating(e.data)));
  return zipOf(bytes, at, deflated);
}
