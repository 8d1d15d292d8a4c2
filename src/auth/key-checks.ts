import { parseIpRanges, ipInRanges } from '../visits/ip-range.ts';
import type { IpRange } from '../visits/ip-range.ts';
import type { ApiKeyRecord } from './api-key-record.ts';

/** Whether a key expiry (`YYYY-MM-DD HH:MM:SS` UTC, or null for never) has passed at `now`. */
export function keyExpired(expires: string | null | undefined, now: number): boolean {
  return !!expires && Date.parse(expires.replace(' ', 'T') + 'Z') <= now;
}

/** The range of one allow-list entry (an address or a CIDR range, IPv4 or IPv6), or null when it is neither. */
export function ipEntryRange(entry: string): IpRange | null {
  const parsed = parseIpRanges(entry);
  return parsed.ranges.length === 1 && parsed.invalid.length === 0 && !entry.includes('\n') ? parsed.ranges[0]! : null;
}

// Each stored key's ranges, parsed once: the records the key index hands out are read only and kept.
const compiled = new WeakMap<ApiKeyRecord, IpRange[]>();

/** Whether `key` may be used from the client address `ip`: always when its allow-list is empty. */
export function allowedFrom(key: ApiKeyRecord, ip: string): boolean {
  if (key.ips.length === 0) return true;
  let ranges = compiled.get(key);
  if (!ranges) {
    ranges = key.ips.map(ipEntryRange).filter((r): r is IpRange => r !== null);
    compiled.set(key, ranges);
  }
  // An IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d, which the ranges hold as IPv4.
  return ipInRanges(ip, ranges);
}

/** Whether every address of `inner` lies in one of the `outer` entries (a new key cannot reach further than the key that makes it). */
export function rangesWithin(inner: readonly string[], outer: readonly string[]): boolean {
  const bounds = outer.map(ipEntryRange).filter((r): r is IpRange => r !== null);
  return inner.every((entry) => {
    const r = ipEntryRange(entry);
    return r !== null && bounds.some((b) => r.start >= b.start && r.end <= b.end);
  });
}
