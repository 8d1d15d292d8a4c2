import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topCounts } from '../src/visits/top.ts';

const many = new Map(Array.from({ length: 12 }, (_, i): [string, number] => [`label${String(i).padStart(2, '0')}`, 100 - i]));

const cases: Array<{ name: string; counts: Map<string, number> | Record<string, number>; n?: number; want: Array<[string, string]> }> = [
  { name: 'empty', counts: {}, want: [] },
  { name: 'record sorted by count', counts: { Firefox: 3, Chrome: 10, Safari: 5 }, want: [['Chrome', '10'], ['Safari', '5'], ['Firefox', '3']] },
  { name: 'ties by label', counts: new Map([['b', 2], ['c', 2], ['a', 2], ['z', 9]]), want: [['z', '9'], ['a', '2'], ['b', '2'], ['c', '2']] },
  { name: 'ties use code-unit order', counts: { beta: 1, Alpha: 1, alpha: 1 }, want: [['Alpha', '1'], ['alpha', '1'], ['beta', '1']] },
  { name: 'defaults to ten', counts: many, want: Array.from({ length: 10 }, (_, i): [string, string] => [`label0${i}`, String(100 - i)]) },
  { name: 'custom n', counts: { a: 1, b: 2, c: 3 }, n: 2, want: [['c', '3'], ['b', '2']] },
  { name: 'n of zero', counts: { a: 1 }, n: 0, want: [] },
  { name: 'negative n', counts: { a: 1 }, n: -3, want: [] },
  { name: 'labels with spaces and colons', counts: { 'US:United States': 4, 'Direct, email and other': 7, Unknown: 4 }, want: [['Direct, email and other', '7'], ['US:United States', '4'], ['Unknown', '4']] },
];

test('topCounts', async (t) => {
  for (const c of cases) {
    await t.test(c.name, () => {
      const result = topCounts(c.counts, c.n);
      assert.deepEqual(Object.entries(result), c.want);
      assert.equal(JSON.stringify(result), JSON.stringify(Object.fromEntries(c.want)));
    });
  }
});

test('a __proto__ label is an ordinary key', () => {
  const result = topCounts(new Map([['__proto__', 2]]));
  assert.deepEqual(Object.keys(result), ['__proto__']);
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
});
