import { ipToBigInt, parseIpRanges } from '../visits/ip-range.ts';

// What a fetch made for a user may not reach: this host and its networks (request forgery
// targets), and ranges that are not unicast on the internet. IPv4 ranges also cover their
// IPv4-mapped IPv6 form (::ffff:a.b.c.d), which ip-range stores them as.
const NOT_PUBLIC = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, cloud metadata services
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255
  '::/96', // unspecified, loopback, and the deprecated IPv4-compatible form
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard-only
  '2001::/32', // Teredo
  '2001:db8::/32', // documentation
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // old site-local
  'ff00::/8', // multicast
];
// Parsed at the first check, not as the server starts.
let notPublicRanges: ReturnType<typeof parseIpRanges>['ranges'] | undefined;
const notPublic = () => (notPublicRanges ??= parseIpRanges(NOT_PUBLIC.join('\n')).ranges);

const V4_BITS = 0xffffffffn;
const MAPPED_V4 = 0xffffn << 32n;
const NAT64_PREFIX = 0x64ff9bn; // 64:ff9b::/96, bits 96..127 of the address
const SIX_TO_FOUR_PREFIX = 0x2002n; // 2002::/16

/** The IPv4 address that an IPv6 address reaches through a translator (NAT64, 6to4), in IPv4-mapped form; else the address itself. */
function reached(value: bigint): bigint {
  // A NAT64 gateway or 6to4 relay forwards to the IPv4 address inside, so that address is what counts.
  if (value >> 96n === NAT64_PREFIX) return MAPPED_V4 | (value & V4_BITS);
  if (value >> 112n === SIX_TO_FOUR_PREFIX) return MAPPED_V4 | ((value >> 80n) & V4_BITS);
  return value;
}

/** Whether `ip` is a public unicast address that a fetch on a user's behalf may connect to; false for anything else, non-addresses included. */
export function isPublicAddress(ip: string): boolean {
  const value = ipToBigInt(ip);
  if (value === null) return false;
  const target = reached(value);
  return !notPublic().some((range) => target >= range.start && target <= range.end);
}
