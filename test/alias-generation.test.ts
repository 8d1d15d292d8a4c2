import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateAlias } from '../src/links/alias.ts';
import { seededRandom } from '../src/random.ts';

/**
 * generateAlias (src/links/alias.ts): a fresh alias that `taken` does not know, one character
 * longer after every 5 collisions; answered at once while `taken` answers at once (the file store's
 * bulk create makes no promise per link), and the same aliases through a `taken` that waits.
 */
const cases = [
  { name: 'free at once', collisions: 0, length: 6 },
  { name: 'after 3 collisions', collisions: 3, length: 6 },
  { name: 'after 5 collisions: one longer', collisions: 5, length: 7 },
  { name: 'after 12 collisions: two longer', collisions: 12, length: 8 },
];

for (const c of cases) {
  test(`generateAlias: ${c.name}`, async () => {
    const asked: string[] = [];
    const syncTaken = (a: string) => (asked.push(a), asked.length <= c.collisions);
    const made = generateAlias(seededRandom('alias-test'), syncTaken);
    assert.equal(typeof made, 'string', 'answered at once, not as a promise');
    assert.equal(asked.length, c.collisions + 1);
    assert.equal(made, asked.at(-1));
    assert.equal((made as string).length, c.length);

    const waited: string[] = [];
    const asyncTaken = async (a: string) => (waited.push(a), waited.length <= c.collisions);
    const later = generateAlias(seededRandom('alias-test'), asyncTaken);
    assert.ok(later instanceof Promise);
    assert.equal(await later, made, 'the same alias through a taken that waits');
    assert.deepEqual(waited, asked);
  });
}
