/** Where the app gets the time; tests and the fake backend inject a fixed one. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until moved, for deterministic tests. */
export function fixedClock(start: number | string): Clock & { set(ms: number | string): void; advance(ms: number): void } {
  let t = typeof start === 'number' ? start : Date.parse(start);
  return {
    now: () => t,
    set: (ms) => {
      t = typeof ms === 'number' ? ms : Date.parse(ms);
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the date format of the link-management API. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `YYYY-MM-DD` in UTC. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
