/**
 * Reads a zip archive as a zip tool does, from its central directory, for tests of what the server
 * writes: every entry's name and bytes, its CRC-32 checked. Stored and deflated entries only.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { crc32 } from '../src/export/zip.ts';

/** The files of `zip` by name, in the order of its central directory. */
export function readZip(zip: Uint8Array): Map<string, string> {
  const buf = Buffer.from(zip);
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > buf.length) throw new Error('no end of central directory');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  if (at + buf.readUInt32LE(end + 12) !== end) throw new Error('the central directory does not end where the end record says');
  const out = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`entry ${i}: no central header`);
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const size = buf.readUInt32LE(at + 20);
    const nameLength = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`${name}: no local header`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const body = buf.subarray(start, start + size);
    const data = method === 0 ? body : method === 8 ? inflateRawSync(body) : null;
    if (!data) throw new Error(`${name}: method ${method}`);
    if (crc32(data) !== crc) throw new Error(`${name}: CRC mismatch`);
    out.set(name, data.toString('utf8'));
    at += 46 + nameLength + extra + comment;
  }
  return out;
}

/** `unzip -t`'s verdict on `zip` (exit status 0: every entry tests OK), or null where Info-ZIP's unzip is not installed. */
export function unzipTest(zip: Uint8Array): { ok: boolean; output: string } | null {
  if (!existsSync('/usr/bin/unzip')) return null;
  const dir = mkdtempSync(join(tmpdir(), 'zip-test-'));
  try {
    const file = join(dir, 'archive.zip');
    writeFileSync(file, zip);
    const r = spawnSync('/usr/bin/unzip', ['-t', file], { encoding: 'utf8' });
    return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
