import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ipInRanges, parseIpRanges } from '../visits/ip-range.ts';
import { loadLogo } from './logo.ts';
import type { QrLogo } from './logo.ts';

// Addresses a logo URL may not lead to: the server's own network (a request forgery target).
const PRIVATE = parseIpRanges(
  ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16', '::/128', '::1/128', 'fc00::/7', 'fe80::/10'].join('\n'),
).ranges;

/** Whether every address `host` resolves to is public. */
export async function isPublicHost(host: string, resolve = lookup): Promise<boolean> {
  const bare = host.replace(/^\[|\]$/g, '');
  try {
    const addresses = isIP(bare) ? [bare] : (await resolve(bare, { all: true })).map((a) => a.address);
    return addresses.length > 0 && addresses.every((a) => !ipInRanges(a, PRIVATE));
  } catch {
    return false;
  }
}

/** Loads QR logos, data: URIs always and URLs only on public hosts, caching each source's result. */
export class LogoCache {
  private readonly cache = new Map<string, Promise<QrLogo | null>>();

  constructor(
    private readonly fetchUrls: boolean,
    private readonly max = 200,
  ) {}

  /** The decoded-ready logo of `src`, or null when it cannot be used. */
  get(src: string): Promise<QrLogo | null> {
    let hit = this.cache.get(src);
    if (!hit) {
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      hit = this.load(src);
      this.cache.set(src, hit);
    }
    return hit;
  }

  private async load(src: string): Promise<QrLogo | null> {
    if (!src.startsWith('data:')) {
      if (!this.fetchUrls) return null;
      if (!(await isPublicHost(new URL(src).hostname))) return null;
    }
    return loadLogo(src);
  }
}
