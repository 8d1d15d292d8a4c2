import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { dayOf, hourOf, visitorHash } from '../src/visits/visitor.ts';

const reference = (parts: string[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);

const hashCases: Array<{ name: string; args: [string, string, string, string]; want: string }> = [
  { name: 'known value', args: ['s3cret', '203.0.113.7', 'curl/8.4.0', '2024-05-01'], want: 'd93a10127e4beb41f9e283fc4893a3f1' },
  { name: 'next day differs', args: ['s3cret', '203.0.113.7', 'curl/8.4.0', '2024-05-02'], want: '4aa1b6a406705eeb0a7535ba548a260a' },
  { name: 'parts are framed', args: ['s3cret', '203.0.113.7a', 'b', '2024-05-01'], want: 'b8e29975edf2b51743f7ed814c5162cc' },
];

test('visitorHash', async (t) => {
  for (const c of hashCases) {
    await t.test(c.name, () => {
      const hash = visitorHash(...c.args);
      assert.equal(hash, c.want);
      assert.equal(hash, reference(c.args));
      assert.match(hash, /^[0-9a-f]{32}$/);
      assert.ok(!hash.includes(c.args[1]));
    });
  }
  assert.notEqual(visitorHash('s', '1.2.3.4a', 'b', 'd'), visitorHash('s', '1.2.3.4', 'ab', 'd'));
  assert.notEqual(visitorHash('salt1', 'ip', 'ua', 'd'), visitorHash('salt2', 'ip', 'ua', 'd'));
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
