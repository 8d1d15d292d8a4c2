import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nestsDeeperThan } from '../src/http/validate.ts';
import { hasLoneSurrogate } from '../src/unicode.ts';

test('nestsDeeperThan counts the brackets outside strings, escaped quotes and backslashes included', () => {
  const cases: [string, number, boolean][] = [
    ['{}', 1, false],
    ['{"a":[1]}', 1, true],
    ['{"a":[1]}', 2, false],
    ['[[[]]]', 2, true],
    ['[[],[],[]]', 2, false],
    ['{"s":"[[[[{{{{"}', 1, false],
    ['{"s":"\\"[[[[\\""}', 1, false],
    ['{"s":"\\\\"}', 1, false],
    ['{"s":"\\\\","t":[[]]}', 2, true],
    ['["unterminated [[[[', 1, false],
  ];
  for (const [text, limit, over] of cases) assert.equal(nestsDeeperThan(text, limit), over, `${text} over ${limit}`);
});

test('hasLoneSurrogate walks any depth without the call stack and finds keys and values', () => {
  let deep: unknown = 'a\ud800';
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(hasLoneSurrogate(deep), true);
  assert.equal(hasLoneSurrogate({ ok: ['smile \ud83d\ude00', { fine: 1 }] }), false);
  assert.equal(hasLoneSurrogate({ ['k\udc00']: 1 }), true);
  assert.equal(hasLoneSurrogate(Array.from({ length: 300_000 }, () => 'x')), false);
});
