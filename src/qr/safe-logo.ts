import { readLogo } from './logo.ts';
import type { QrLogo } from './logo.ts';
import type { LogoFetch } from './public-fetch.ts';

/**
 * Reads QR logos' files, data: URIs always and URLs (public addresses only) when fetching is on,
 * caching each source's result (the same object each time: image keys hash its bytes once).
 * Whether a file decodes is found out by the render threads.
 */
export class LogoCache {
  private readonly cache = new Map<string, Promise<QrLogo | null>>();

  constructor(
    private readonly fetchUrls: boolean,
    private readonly max = 200,
    /** readLogo's own (the checked publicFetch) unless a test injects one. */
    private readonly fetchImpl?: LogoFetch,
  ) {}

  /** The logo file of `src`, or null when it cannot be read. */
  get(src: string): Promise<QrLogo | null> {
    let hit = this.cache.get(src);
    if (!hit) {
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      hit = this.fetchUrls || /^data:/i.test(src.trim()) ? readLogo(src, this.fetchImpl) : Promise.resolve(null);
      this.cache.set(src, hit);
    }
    return hit;
  }
}
