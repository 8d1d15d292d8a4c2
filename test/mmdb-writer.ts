/**
 * A small writer of MaxMind DB files (format 2.0: https://maxmind.github.io/MaxMind-DB/), for
 * tests and benchmarks that need a City database of their own: an IPv6 tree (IPv4 networks under
 * ::/96, as MaxMind's files have them), 24-bit records, strings, unsigned integers, doubles,
 * booleans, arrays and maps. No npm package writes the format, and a fixture file would hide what it holds.
 */
import { isIPv4 } from 'node:net';

type Value = string | number | boolean | Value[] | { [key: string]: Value };

interface TreeNode {
  zero: TreeNode | number | null;
  one: TreeNode | number | null;
}

function control(type: number, size: number): number[] {
  const out = [type <= 7 ? type << 5 : 0];
  // An extended type's byte comes right after the control byte, before any size bytes.
  if (type > 7) out.push(type - 7);
  if (size < 29) out[0]! |= size;
  else if (size < 285) out.push(size - 29), (out[0]! |= 29);
  else if (size < 65_821) out.push((size - 285) >> 8, (size - 285) & 255), (out[0]! |= 30);
  else out.push(((size - 65_821) >> 16) & 255, ((size - 65_821) >> 8) & 255, (size - 65_821) & 255), (out[0]! |= 31);
  return out;
}

/** The MaxMind DB encoding of a value. */
export function encodeValue(value: Value): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([Buffer.from(control(2, bytes.length)), bytes]);
  }
  if (typeof value === 'boolean') return Buffer.from(control(14, value ? 1 : 0));
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < 2 ** 32) {
      const bytes: number[] = [];
      for (let n = value; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
      return Buffer.from([...control(6, bytes.length), ...bytes]);
    }
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleBE(value);
    return Buffer.concat([Buffer.from(control(3, 8)), bytes]);
  }
  if (Array.isArray(value)) return Buffer.concat([Buffer.from(control(11, value.length)), ...value.map(encodeValue)]);
  const entries = Object.entries(value);
  return Buffer.concat([Buffer.from(control(7, entries.length)), ...entries.flatMap(([k, v]) => [encodeValue(k), encodeValue(v)])]);
}

/** The 128 bits of an address (IPv4 as ::a.b.c.d), most significant first. */
function bitsOf(address: string): number[] {
  let bytes: number[];
  if (isIPv4(address)) bytes = [...new Array(12).fill(0), ...address.split('.').map(Number)];
  else {
    const [head = '', tail = ''] = address.split('::');
    const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
    const h = groups(head);
    const t = groups(tail);
    const all = address.includes('::') ? [...h, ...new Array(8 - h.length - t.length).fill(0), ...t] : h;
    bytes = all.flatMap((g) => [g >> 8, g & 255]);
  }
  return bytes.flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
}

/** What a database file holds: networks (`81.2.69.0/24`, `2a02:db8::/32`) and their records; later networks may sit inside earlier ones. */
export interface MmdbContent {
  networks: readonly (readonly [string, Value])[];
  databaseType?: string;
}

/** The bytes of a MaxMind DB file holding `content`. */
export function buildMmdb(content: MmdbContent): Buffer {
  const root: TreeNode = { zero: null, one: null };
  const data: Buffer[] = [];
  const offsets: number[] = [];
  const stored = new Map<string, number>();
  let size = 0;
  for (const [network, record] of content.networks) {
    const [address = '', prefix = ''] = network.split('/');
    const depth = Number(prefix) + (isIPv4(address) ? 96 : 0);
    const bits = bitsOf(address);
    // Equal records are stored once, as real databases do (a 24-bit record reaches 16 MB of data).
    const encoded = encodeValue(record);
    const key = encoded.toString('latin1');
    let offset = stored.get(key);
    if (offset === undefined) {
      stored.set(key, (offset = size));
      data.push(encoded);
      size += encoded.length;
    }
    offsets.push(offset);
    let node = root;
    for (let i = 0; i < depth - 1; i++) {
      const side = bits[i] ? 'one' : 'zero';
      const next = node[side];
      // A record met on the way (a wider network) is split: both halves keep its data.
      if (typeof next !== 'object' || next === null) node[side] = { zero: next, one: next };
      node = node[side] as TreeNode;
    }
    node[bits[depth - 1] ? 'one' : 'zero'] = offsets.length - 1;
  }
  const nodes: TreeNode[] = [];
  // Breadth first; `nodes` is its own queue (shift() would make a large tree quadratic).
  nodes.push(root);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    for (const child of [node.zero, node.one]) if (typeof child === 'object' && child !== null) nodes.push(child);
  }
  const index = new Map(nodes.map((n, i) => [n, i]));
  const count = nodes.length;
  const recordOf = (child: TreeNode | number | null) => (child === null ? count : typeof child === 'number' ? count + 16 + offsets[child]! : index.get(child)!);
  const tree = Buffer.alloc(count * 6);
  nodes.forEach((node, i) => {
    tree.writeUIntBE(recordOf(node.zero), i * 6, 3);
    tree.writeUIntBE(recordOf(node.one), i * 6 + 3, 3);
  });
  const metadata = encodeValue({
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_764_000_000,
    database_type: content.databaseType ?? 'Test-City',
    description: { en: 'A test database' },
    ip_version: 6,
    languages: ['en'],
    node_count: count,
    record_size: 24,
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com'), metadata]);
}

/** A GeoLite2-City-shaped record. */
export function cityRecord(country: string, region: string, city: string): Value {
  return { city: { geoname_id: 1, names: { en: city } }, country: { geoname_id: 2, iso_code: country, names: { en: country } }, subdivisions: [{ geoname_id: 3, iso_code: 'XX', names: { en: region } }], location: { latitude: 1.5, longitude: -0.25 } };
}
