import type { SnapshotView, StoredRecord } from '../store/store.ts';

/** Files records with their bytes in `content`, base64: how exports carry uploaded files. */
export async function withContents(store: SnapshotView, files: readonly StoredRecord[]): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for (const f of files) {
    const bytes = await store.readFileContent(f.id);
    out.push(bytes ? { ...f, content: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') } : f);
  }
  return out;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether an exported file's `content` can be read back: absent, or base64. */
export const isContent = (content: unknown) => content === undefined || (typeof content === 'string' && BASE64.test(content));

/** A files record of an export split into the record to store and its bytes (none when it had no `content`). */
export function splitContent(record: StoredRecord): { record: StoredRecord; bytes: Uint8Array | undefined } {
  const { content, ...rest } = record;
  return { record: rest as StoredRecord, bytes: typeof content === 'string' ? new Uint8Array(Buffer.from(content, 'base64')) : undefined };
}
