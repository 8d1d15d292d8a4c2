import type { Clock } from '../clock.ts';
import type { RandomSource } from '../random.ts';
import { resettableRandom, testClock } from './test-clock.ts';
import type { ResettableRandom, TestClock } from './test-clock.ts';

/** The random seed of a TEST_MODE server: aliases are the same on every run and after every reset. */
export const TEST_MODE_SEED = 'test-mode';

const isTestClock = (c: Clock | undefined): c is TestClock => !!c && 'set' in c && 'advance' in c && 'reset' in c;
const isResettable = (r: RandomSource | undefined): r is ResettableRandom => !!r && 'reset' in r;

/**
 * The clock and random source of a test-mode server: the given ones when they can be moved and
 * rewound; otherwise a clock that follows the given one (or the wall clock) until set, and a
 * random source seeded with TEST_MODE_SEED.
 */
export function testModeParts(clock?: Clock, random?: RandomSource): { clock: TestClock; random: ResettableRandom } {
  return {
    clock: isTestClock(clock) ? clock : testClock(undefined, clock ? () => clock.now() : Date.now),
    random: isResettable(random) ? random : resettableRandom(TEST_MODE_SEED),
  };
}
