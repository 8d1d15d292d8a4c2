import { publicFetch } from './public-fetch.ts';
import type { LogoFetch } from './public-fetch.ts';

/** Image types accepted as a QR logo. */
export type LogoMime = 'image/png' | 'image/jpeg';

/** A logo image as raw file bytes. */
export type QrLogo = { mime: LogoMime; bytes: Buffer };

/** A decoded image: width × height pixels, 4 bytes (RGBA) each. */
export type RgbaImage = { width: number; height: number; data: Uint8Array };

/** Largest accepted logo file (the real product's "Max 500kb"). */
export const MAX_LOGO_BYTES = 500 * 1024;

/** How long loadLogo waits for a remote logo, redirects included, in milliseconds. */
export const LOGO_FETCH_TIMEOUT_MS = 3000;

// A small file can still inflate to a huge bitmap; 4 megapixels is 16 MB of RGBA.
export const MAX_LOGO_PIXELS = 4_000_000;

/** The image type of `bytes` by their magic number, or null when neither PNG nor JPEG. */
export function sniffLogoMime(bytes: Uint8Array): LogoMime | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return 'image/jpeg';
  }
  return null;
}

const DATA_URI_RE = /^data:image\/(png|jpe?g);base64,([A-Za-z0-9+/\s]*={0,2})$/i;

/** Parses a base64 `data:image/png` or `data:image/jpeg` URI whose bytes match its type; else null. */
export function parseDataUri(uri: string): QrLogo | null {
  const match = DATA_URI_RE.exec(uri.trim());
  if (!match?.[1] || match[2] === undefined) return null;
  const declared: LogoMime = match[1].toLowerCase() === 'png' ? 'image/png' : 'image/jpeg';
  const bytes = Buffer.from(match[2].replace(/\s/g, ''), 'base64');
  return sniffLogoMime(bytes) === declared ? { mime: declared, bytes } : null;
}

// The production path: public addresses only, checked at every redirect (see publicFetch).
const checkedFetch = publicFetch();

/**
 * Reads a logo's file from a data: URI or an http(s) URL: PNG or JPEG (by magic bytes), at most
 * MAX_LOGO_BYTES, within `timeoutMs` in all, without decoding it (a CPU-heavy step, left to the
 * render threads). Resolves to null on any failure; never throws.
 */
export async function readLogo(
  src: string,
  fetchImpl: LogoFetch = checkedFetch,
  timeoutMs: number = LOGO_FETCH_TIMEOUT_MS,
): Promise<QrLogo | null> {
  try {
    const source = src.trim();
    const logo = /^data:/i.test(source)
      ? parseDataUri(source)
      : await fetchLogo(source, fetchImpl, timeoutMs);
    return logo && logo.bytes.length <= MAX_LOGO_BYTES ? logo : null;
  } catch {
    return null;
  }
}

async function fetchLogo(src: string, fetchImpl: LogoFetch, timeoutMs: number): Promise<QrLogo | null> {
  const url = new URL(src);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The race also covers a fetchImpl that ignores the abort signal.
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(null);
    }, timeoutMs);
  });
  const download = (async () => {
    const response = await fetchImpl(url, { signal: controller.signal });
    if (!response.ok || !response.body) return null;
    if (Number(response.headers.get('content-length') ?? 0) > MAX_LOGO_BYTES) {
      await response.body.cancel();
      return null;
    }
    const bytes = await readAtMost(response.body, MAX_LOGO_BYTES, controller.signal);
    const mime = bytes && sniffLogoMime(bytes);
    return bytes && mime ? { mime, bytes } : null;
  })().catch(() => null);
  try {
    return await Promise.race([download, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readAtMost(body: ReadableStream<Uint8Array>, max: number, signal: AbortSignal): Promise<Buffer | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    // A body not tied to the signal (e.g. from an injected fetch) keeps flowing after a timeout.
    if (signal.aborted) {
      await reader.cancel();
      return null;
    }
    if (done) return Buffer.concat(chunks);
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
}
