import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countText } from '../src/html/count-text.ts';

test('countText groups thousands with commas, en-US style, whatever the locale', () => {
  const cases: [number, string][] = [[0, '0'], [7, '7'], [999, '999'], [1000, '1,000'], [12345, '12,345'], [100000, '100,000'], [1234567, '1,234,567'], [-1234, '-1,234'], [1234.5, '1,234.5'], [Number.MAX_SAFE_INTEGER, '9,007,199,254,740,991'], [Infinity, 'Infinity']];
  for (const [n, want] of cases) assert.equal(countText(n), want, String(n));
});
