import { aliasKey } from '../links/alias.ts';
import type { Services } from '../resources/define.ts';
import type { StoredFile } from '../resources/files.ts';
import { FILES_COLLECTION } from '../store/store.ts';

/** The file at `/<alias>` of a domain (null: the main host), if the server keeps files at all. */
export async function fileAt(s: Pick<Services, 'store' | 'resources'>, domainId: number | null, alias: string): Promise<StoredFile | undefined> {
  if (!s.resources.some((r) => r.collection === FILES_COLLECTION)) return undefined;
  return s.store.lookup<StoredFile>(FILES_COLLECTION, 'alias', aliasKey(domainId, alias));
}

// RFC 5987 attr-char: what may stand unescaped in filename*; encodeURIComponent leaves a few more.
const encodeAttr = (s: string) => encodeURIComponent(s).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment` with the file's name (RFC 6266): `filename` an ASCII stand-in (other characters,
 * quotes, backslashes and percent signs as `_`) for old clients, `filename*` the UTF-8 name.
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  let encoded: string;
  try {
    encoded = encodeAttr(filename);
  } catch {
    return `attachment; filename="${fallback}"`; // a lone surrogate has no UTF-8 form
  }
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * A file's download. Never a document of our origin: always an attachment, the type it was
 * stored with (never HTML or SVG: content-type.ts) and no sniffing, and a CSP that gives it no
 * script, no resource and a sandbox should a browser render it anyway. Not cached: each download counts.
 */
export function downloadResponse(file: StoredFile, bytes: Uint8Array): Response {
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      'Content-Type': file.type,
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': contentDisposition(file.filename),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'no-store',
    },
  });
}
