import { test } from 'node:test';
import assert from 'node:assert/strict';
import { avalanche, dayOf, hourOf, visitorFingerprint } from '../src/visits/visitor.ts';

const SEEDS: [number, number] = [0x12345678, 0x9abcdef0];

test('visitorFingerprint: two seeded 32-bit hashes of subject, IP and user agent', async (t) => {
  const base = visitorFingerprint(SEEDS, 'link:1', '203.0.113.7', 'curl/8.4.0');
  const differs: Array<{ name: string; got: [number, number] }> = [
    { name: 'another subject', got: visitorFingerprint(SEEDS, 'link:2', '203.0.113.7', 'curl/8.4.0') },
    { name: 'another IP', got: visitorFingerprint(SEEDS, 'link:1', '203.0.113.8', 'curl/8.4.0') },
    { name: 'another user agent', got: visitorFingerprint(SEEDS, 'link:1', '203.0.113.7', 'curl/8.4.1') },
    { name: 'parts are framed (IP "…7a" + UA "b" is not IP "…7" + UA "ab")', got: visitorFingerprint(SEEDS, 'link:1', '203.0.113.7a', 'b') },
    { name: 'another day\'s seeds', got: visitorFingerprint([SEEDS[0] + 1, SEEDS[1] + 1], 'link:1', '203.0.113.7', 'curl/8.4.0') },
  ];
  assert.notDeepEqual(visitorFingerprint(SEEDS, 'link:1', '203.0.113.7a', 'b'), visitorFingerprint(SEEDS, 'link:1', '203.0.113.7', 'ab'));
  for (const c of differs) {
    await t.test(c.name, () => {
      assert.notEqual(c.got[0], base[0]);
      assert.notEqual(c.got[1], base[1]);
    });
  }
  assert.deepEqual(visitorFingerprint(SEEDS, 'link:1', '203.0.113.7', 'curl/8.4.0'), base, 'the same inputs, the same hashes');
  for (const h of base) assert.ok(Number.isInteger(h) && h >= 0 && h < 2 ** 32, 'unsigned 32-bit');
});

test('visitorFingerprint spreads near-identical visitors evenly over the bits', () => {
  // 64 buckets over 64,000 visitors that differ in one IP digit: a bad spread would pile them up.
  const buckets = new Array<number>(64).fill(0);
  for (let i = 0; i < 64_000; i++) buckets[visitorFingerprint(SEEDS, 'link:1', `10.0.${i >> 8}.${i & 255}`, 'ua')[0] >>> 26]!++;
  for (const n of buckets) assert.ok(n > 850 && n < 1150, `bucket of ${n}`);
});

test('avalanche moves about half of the 32 bits for one flipped input bit', () => {
  let moved = 0;
  for (let i = 0; i < 1000; i++) moved += (avalanche(i) ^ avalanche(i ^ 1)).toString(2).split('1').length - 1;
  assert.ok(moved / 1000 > 14 && moved / 1000 < 18, `moved ${moved / 1000} bits on average`);
  assert.notEqual(avalanche(1), avalanche(2));
});

const timeCases: Array<{ name: string; ms: number; day: string; hour: string }> = [
  { name: 'epoch', ms: 0, day: '1970-01-01', hour: '1970-01-01 00' },
  { name: 'afternoon', ms: Date.UTC(2024, 4, 1, 15, 30, 59), day: '2024-05-01', hour: '2024-05-01 15' },
  { name: 'last millisecond of a day', ms: Date.UTC(2024, 1, 29, 23, 59, 59, 999), day: '2024-02-29', hour: '2024-02-29 23' },
  { name: 'first millisecond of a year', ms: Date.UTC(2025, 0, 1), day: '2025-01-01', hour: '2025-01-01 00' },
];

test('dayOf and hourOf', async (t) => {
  for (const c of timeCases) {
    await t.test(c.name, () => {
      assert.equal(dayOf(c.ms), c.day);
      assert.equal(hourOf(c.ms), c.hour);
    });
  }
  assert.throws(() => dayOf(Number.NaN), RangeError);
});
