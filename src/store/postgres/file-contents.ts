import type { Db } from './reads.ts';

/** Keeps a file's bytes in file_contents (migration 005), in the caller's transaction. */
export async function putFileContentIn(db: Db, fileId: number, bytes: Uint8Array): Promise<void> {
  await db('INSERT INTO file_contents (file_id, bytes) VALUES ($1, $2) ON CONFLICT (file_id) DO UPDATE SET bytes = excluded.bytes', [fileId, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
}

/** A file's bytes, or undefined. */
export async function readFileContentIn(db: Db, fileId: number): Promise<Uint8Array | undefined> {
  const { rows } = await db<{ bytes: Buffer }>('SELECT bytes FROM file_contents WHERE file_id = $1', [fileId]);
  const bytes = rows[0]?.bytes;
  return bytes ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined;
}
