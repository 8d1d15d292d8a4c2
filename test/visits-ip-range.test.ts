import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ipInRanges, ipToBigInt, parseIpRanges } from '../src/visits/ip-range.ts';

const LIST = [
  '10.0.0.0/8',
  '',
  '  192.168.1.77  ',
  '2001:db8::/32',
  '::1',
  '172.16.5.9/12',
  'fe80::/10',
  '\t',
].join('\r\n');

test('parseIpRanges keeps valid lines and reports the rest', () => {
  const { ranges, invalid } = parseIpRanges(LIST);
  assert.deepEqual(
    ranges.map((r) => r.source),
    ['10.0.0.0/8', '192.168.1.77', '2001:db8::/32', '::1', '172.16.5.9/12', 'fe80::/10'],
  );
  assert.deepEqual(invalid, []);
  const [tenNet] = ranges;
  assert.deepEqual(tenNet, { source: '10.0.0.0/8', start: 0xffff0a000000n, end: 0xffff0affffffn });
});

const invalidCases = ['10.0.0.0/33', '2001:db8::/129', '10.0.0.256', '10.0.0/8', 'example.com', '1.2.3.4/8/8', '1.2.3.4/', '1.2.3.4/x', '2001:db8:::1', '01.2.3.4'];

test('parseIpRanges rejects', async (t) => {
  for (const line of invalidCases) {
    await t.test(line, () => assert.deepEqual(parseIpRanges(`1.1.1.1\n${line}`), { ranges: [{ source: '1.1.1.1', start: 0xffff01010101n, end: 0xffff01010101n }], invalid: [line] }));
  }
});

const { ranges } = parseIpRanges(LIST);

const matchCases: Array<{ ip: string; want: boolean }> = [
  { ip: '10.0.0.0', want: true },
  { ip: '10.255.255.255', want: true },
  { ip: '11.0.0.0', want: false },
  { ip: '9.255.255.255', want: false },
  { ip: '192.168.1.77', want: true },
  { ip: '192.168.1.78', want: false },
  { ip: '172.31.255.255', want: true },
  { ip: '172.32.0.0', want: false },
  { ip: '::ffff:10.1.2.3', want: true },
  { ip: '::FFFF:192.168.1.77', want: true },
  { ip: '0:0:0:0:0:ffff:c0a8:14d', want: true },
  { ip: '::ffff:8.8.8.8', want: false },
  { ip: '2001:db8::1', want: true },
  { ip: '2001:0DB8:ffff:ffff:ffff:ffff:ffff:ffff', want: true },
  { ip: '2001:db9::', want: false },
  { ip: '0:0:0:0:0:0:0:1', want: true },
  { ip: '::2', want: false },
  { ip: 'fe80::1%eth0', want: true },
  { ip: 'febf:ffff::1', want: true },
  { ip: 'fec0::', want: false },
  { ip: '', want: false },
  { ip: 'not-an-ip', want: false },
];

test('ipInRanges', async (t) => {
  for (const c of matchCases) {
    await t.test(c.ip || '(empty)', () => assert.equal(ipInRanges(c.ip, ranges), c.want));
  }
  assert.equal(ipInRanges('10.0.0.1', []), false);
});

const numberCases: Array<{ ip: string; want: bigint | null }> = [
  { ip: '::', want: 0n },
  { ip: '1::', want: 1n << 112n },
  { ip: '1.2.3.4', want: 0xffff01020304n },
  { ip: '::ffff:1.2.3.4', want: 0xffff01020304n },
  { ip: '64:ff9b::192.0.2.33', want: (0x64n << 112n) | (0xff9bn << 96n) | 0xc0000221n },
  { ip: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', want: (1n << 128n) - 1n },
  { ip: '1.2.3', want: null },
];

test('ipToBigInt', async (t) => {
  for (const c of numberCases) {
    await t.test(c.ip, () => assert.equal(ipToBigInt(c.ip), c.want));
  }
});

test('whole-space ranges', () => {
  const all = parseIpRanges('::/0').ranges;
  assert.equal(ipInRanges('8.8.8.8', all), true);
  const allV4 = parseIpRanges('0.0.0.0/0').ranges;
  assert.equal(ipInRanges('255.255.255.255', allV4), true);
  assert.equal(ipInRanges('2001:db8::1', allV4), false);
});
