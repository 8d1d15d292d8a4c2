import { isIP } from 'node:net';

/**
 * An inclusive range of addresses in the 128-bit IPv6 space; IPv4 ranges are stored as their
 * IPv4-mapped form (::ffff:a.b.c.d) so one comparison covers both families.
 */
export interface IpRange {
  /** The line it was parsed from, trimmed. */
  source: string;
  start: bigint;
  end: bigint;
}

const MAPPED_V4 = 0xffffn << 32n;
const ALL_BITS = (1n << 128n) - 1n;

function ipv4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6ToBigInt(ip: string): bigint {
  const groupsOf = (part: string): string[] => {
    if (part === '') return [];
    const groups = part.split(':');
    const last = groups[groups.length - 1] ?? '';
    if (!last.includes('.')) return groups;
    // An embedded IPv4 tail (::ffff:1.2.3.4) stands for the last two 16-bit groups.
    const v4 = ipv4ToBigInt(last);
    return [...groups.slice(0, -1), (v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
  };
  const [head = '', tail] = ip.split('::');
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const zeros: string[] = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n);
}

/** An address in the shared 128-bit space with its family's prefix offset (96 for IPv4), or null when invalid. */
function addressOf(text: string): { value: bigint; offset: number } | null {
  // A zone id (fe80::1%eth0) names an interface, not part of the address.
  const ip = text.trim().replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return { value: MAPPED_V4 | ipv4ToBigInt(ip), offset: 96 };
  if (family === 6) return { value: ipv6ToBigInt(ip), offset: 0 };
  return null;
}

/** The address of `ip` as a 128-bit number (IPv4 as IPv4-mapped IPv6), or null when `ip` is not an address. */
export function ipToBigInt(ip: string): bigint | null {
  return addressOf(ip)?.value ?? null;
}

function parseRange(line: string): IpRange | null {
  const [addressText = '', prefixText, extra] = line.split('/');
  if (extra !== undefined) return null;
  const address = addressOf(addressText);
  if (address === null) return null;
  if (prefixText === undefined) return { source: line, start: address.value, end: address.value };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText) + address.offset;
  if (prefix > 128) return null;
  const hostMask = ALL_BITS >> BigInt(prefix);
  // Host bits set in a CIDR (10.1.2.3/8) are forgiven: the range is the enclosing network.
  const start = address.value & ~hostMask & ALL_BITS;
  return { source: line, start, end: start | hostMask };
}

/**
 * Parses an exclusion list, one address or CIDR range per line (IPv4 or IPv6); blank lines are
 * ignored and lines that are neither are returned, trimmed, in `invalid`.
 */
export function parseIpRanges(text: string): { ranges: IpRange[]; invalid: string[] } {
  const ranges: IpRange[] = [];
  const invalid: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const range = parseRange(line);
    if (range === null) invalid.push(line);
    else ranges.push(range);
  }
  return { ranges, invalid };
}

/** Whether `ip` (IPv4, IPv6 or IPv4-mapped IPv6) lies in any of `ranges`; false for a non-address. */
export function ipInRanges(ip: string, ranges: readonly IpRange[]): boolean {
  const value = ipToBigInt(ip);
  if (value === null) return false;
  return ranges.some((range) => value >= range.start && value <= range.end);
}
