import { loadLogo } from './logo.ts';
import type { QrLogo } from './logo.ts';
import type { LogoFetch } from './public-fetch.ts';

/** Loads QR logos, data: URIs always and URLs (public addresses only) when fetching is on, caching each source's result. */
export class LogoCache {
  private readonly cache = new Map<string, Promise<QrLogo | null>>();

  constructor(
    private readonly fetchUrls: boolean,
    private readonly max = 200,
    /** loadLogo's own (the checked publicFetch) unless a test injects one. */
    private readonly fetchImpl?: LogoFetch,
  ) {}

  /** The decoded-ready logo of `src`, or null when it cannot be used. */
  get(src: string): Promise<QrLogo | null> {
    let hit = this.cache.get(src);
    if (!hit) {
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      hit = this.fetchUrls || /^data:/i.test(src.trim()) ? loadLogo(src, this.fetchImpl) : Promise.resolve(null);
      this.cache.set(src, hit);
    }
    return hit;
  }
}
