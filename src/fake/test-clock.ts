import type { Clock } from '../clock.ts';
import type { RandomSource } from '../random.ts';
import { seededRandom } from '../random.ts';

/** A clock tests can move; `reset()` returns it to how it started. */
export interface TestClock extends Clock {
  /** Stops the clock at `at` (epoch ms or an ISO date). */
  set(at: number | string): void;
  /** Moves the clock by `ms` (negative moves it back); a running clock keeps running from there. */
  advance(ms: number): void;
  /** Back to the start: the start time, or the wall clock when there was none. */
  reset(): void;
  /** True when stopped at a set time, false while it follows the wall clock. */
  readonly frozen: boolean;
}

/** Epoch ms of an ISO date or epoch ms; throws on anything else. */
export function toEpochMs(at: number | string): number {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) throw new RangeError(`not a date: ${JSON.stringify(at)}`);
  return ms;
}

/** A clock stopped at `start`, or following the wall clock (TEST_MODE) until it is set. */
export function testClock(start?: number | string, wall: () => number = Date.now): TestClock {
  const origin = start === undefined ? null : toEpochMs(start);
  let fixed = origin;
  let offset = 0;
  return {
    now: () => fixed ?? wall() + offset,
    set(at) {
      fixed = toEpochMs(at);
    },
    advance(ms) {
      if (!Number.isFinite(ms)) throw new RangeError(`not a number of milliseconds: ${ms}`);
      if (fixed === null) offset += ms;
      else fixed += ms;
    },
    reset() {
      fixed = origin;
      offset = 0;
    },
    get frozen() {
      return fixed !== null;
    },
  };
}

/** A seeded random source that `reset()` rewinds, so aliases repeat after a reset. */
export interface ResettableRandom extends RandomSource {
  reset(): void;
}

/** seededRandom(seed), rewindable. */
export function resettableRandom(seed: string | number): ResettableRandom {
  let current = seededRandom(seed);
  return {
    bytes: (n) => current.bytes(n),
    reset() {
      current = seededRandom(seed);
    },
  };
}
