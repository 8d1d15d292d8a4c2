import { createHash } from 'node:crypto';
import type { QrLogo } from './logo.ts';
import type { RenderTask } from './render-task.ts';

// A logo's digest, once per logo object: LogoCache hands out the same object for a source, so a
// cached answer does not hash up to 500 KB again.
const logoDigests = new WeakMap<QrLogo, string>();

function logoDigest(logo: QrLogo): string {
  let digest = logoDigests.get(logo);
  if (digest === undefined) {
    digest = createHash('sha256').update(logo.bytes).digest('base64url');
    logoDigests.set(logo, digest);
  }
  return digest;
}

/**
 * The key of a task's image: a SHA-256 of everything its bytes depend on (payload, format, size,
 * margin, error correction, colours, the logo's bytes). Any update of the QR code or of what it
 * encodes that changes the image changes the key, so entries never need to be dropped, and every
 * process computes the same key for the same image.
 */
export function imageKey(task: RenderTask): string {
  const { logo, ...rest } = task;
  const fields = Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify([fields, logo ? [logo.mime, logoDigest(logo)] : null])).digest('base64url');
}

/**
 * The cache of rendered QR images (PNG and SVG bytes) by imageKey, least recently used dropped
 * first, bounded by the bytes it holds (RENDER_CACHE_BYTES). One per app; never invalidated: an
 * updated code has a new key, and its old images age out.
 */
export class QrImageCache {
  private readonly entries = new Map<string, Uint8Array<ArrayBuffer>>();
  private held = 0;

  constructor(readonly maxBytes: number) {}

  /** The image of `key`, now the most recently used; undefined when not held. */
  get(key: string): Uint8Array<ArrayBuffer> | undefined {
    const image = this.entries.get(key);
    if (image) {
      this.entries.delete(key);
      this.entries.set(key, image);
    }
    return image;
  }

  /** Keeps `image` under `key`, dropping the least recently used images beyond maxBytes (one larger than that is not kept). */
  set(key: string, image: Uint8Array<ArrayBuffer>): void {
    if (image.byteLength > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.byteLength;
    }
    this.entries.set(key, image);
    this.held += image.byteLength;
    for (const [k, v] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(k);
      this.held -= v.byteLength;
    }
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }

  /** Images held now. */
  get size(): number {
    return this.entries.size;
  }
}
