import { isIP } from 'node:net';
import { ipInRanges, parseIpRanges } from '../visits/ip-range.ts';
import type { IpRange } from '../visits/ip-range.ts';

/** TRUST_PROXY: off (false), a number of trusted proxy hops (true is one), or the trusted proxies' addresses and CIDR ranges. */
export type TrustProxy = boolean | number | readonly string[];

/** Names accepted in a TRUST_PROXY list for whole families of proxy addresses (Express's names). */
export const TRUSTED_RANGE_NAMES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** The ranges of a TRUST_PROXY list, or null when an entry is neither an address, a CIDR range nor a name. */
export function trustedRanges(list: readonly string[]): IpRange[] | null {
  const lines = list.flatMap((entry) => TRUSTED_RANGE_NAMES[entry.toLowerCase()] ?? [entry]);
  const ranges: IpRange[] = [];
  for (const line of lines) {
    const parsed = parseIpRanges(line);
    if (parsed.ranges.length !== 1 || parsed.invalid.length > 0) return null;
    ranges.push(parsed.ranges[0]!);
  }
  return ranges;
}

// Compiled once per configured list; the list itself is immutable config.
const compiled = new WeakMap<readonly string[], IpRange[]>();

function rangesOf(list: readonly string[]): IpRange[] {
  let ranges = compiled.get(list);
  if (!ranges) {
    ranges = trustedRanges(list) ?? [];
    compiled.set(list, ranges);
  }
  return ranges;
}

/** An X-Forwarded-For entry as a bare address ("1.2.3.4:80" and "[::1]:80" lose the port), or null when it is not one. */
function addressOf(entry: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  const ip = bracketed?.[1] ?? (/^[\d.]+:\d+$/.test(entry) ? entry.slice(0, entry.lastIndexOf(':')) : entry);
  return isIP(ip) === 0 ? null : ip;
}

/**
 * The client IP of a request that came from `socket` with this X-Forwarded-For, as Express's
 * "trust proxy" finds it. The chain is the socket address, then the header's entries from the
 * right (each one appended by the proxy before it). Walking it from the socket, an address is
 * trusted when it is one of the first `hops` (true is 1) or lies in the trusted ranges; the client
 * is the first address that is not trusted, or the leftmost entry when all are. Entries a client
 * added on the left are never reached as long as a trusted proxy appended one after them. An entry
 * that is not an IP address stops the walk: the client is then the last trusted address (the proxy
 * that passed it on), so that no free text ever becomes a client IP.
 */
export function forwardedClient(socket: string, forwardedFor: string | undefined, trust: TrustProxy): string {
  if (trust === false || trust === 0) return socket;
  const hops = trust === true ? 1 : typeof trust === 'number' ? trust : null;
  const ranges = Array.isArray(trust) ? rangesOf(trust) : [];
  const trusted = (address: string, index: number) => (hops !== null ? index < hops : ipInRanges(address, ranges));
  const entries = (forwardedFor ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '').reverse();
  let client = socket;
  for (let i = 0; trusted(client, i) && i < entries.length; i++) {
    const next = addressOf(entries[i]!);
    if (next === null) break;
    client = next;
  }
  return client;
}

/** Whether connections from `socket` come through a proxy TRUST_PROXY trusts: every peer with a hop count, the listed ones with a list. */
export function isTrustedPeer(socket: string, trust: TrustProxy): boolean {
  if (trust === false || trust === 0) return false;
  if (!Array.isArray(trust)) return true;
  return ipInRanges(socket.startsWith('::ffff:') ? socket.slice(7) : socket, rangesOf(trust));
}
