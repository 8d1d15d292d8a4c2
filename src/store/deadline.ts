import { AsyncLocalStorage } from 'node:async_hooks';
import { StoreUnavailableError } from './store.ts';
import { outsideWorkMark } from './work-marks.ts';

/**
 * How long a caller will wait for the store: a moment (Unix ms) carried with the work it starts
 * (AsyncLocalStorage), so that every wait of a backend on the way (a pooled connection, each
 * statement, a retry, a place in a group commit) takes only what is left, and a request that needs
 * the database answers by then (DATABASE_TIMEOUT) however many steps it has. Work without one
 * (flushes, folds, the CLI) keeps each step's own bound. The time a request spends waiting for other
 * work of its own (a render thread, a password hash: awayFromStore) moves its deadline on by as much,
 * so it counts what the database takes, not a queue elsewhere.
 */
const deadlines = new AsyncLocalStorage<{ at: number }>();
// Only PostgreSQL's waits read a deadline, and carrying one costs the whole process: once a first
// deadline is carried, Node 20's AsyncLocalStorage hooks every promise made after it (on the file
// store, ~15% of a redirect's CPU for nothing). So none is carried until a PostgreSQL store opens in
// this process (honourStoreDeadlines); before that, the functions below run `fn` as it is.
let honoured = false;

/** From now on this process carries deadlines: a store that reads them (PostgreSQL) is open. */
export function honourStoreDeadlines(): void {
  honoured = true;
}

/** Runs `fn` with the store's waits ending within `ms` from now (or by an earlier deadline already set). */
export function withStoreDeadline<R>(ms: number, fn: () => R): R {
  // Every route's handler comes through here: no clock read where no deadline is carried.
  if (!honoured) return fn();
  return withStoreDeadlineAt(Date.now() + ms, fn);
}

/** Runs `fn` with the store's waits ending by `at` (Unix ms; undefined: none), or by an earlier deadline already set. */
export function withStoreDeadlineAt<R>(at: number | undefined, fn: () => R): R {
  if (!honoured) return fn();
  if (at !== undefined && !Number.isFinite(at)) at = undefined;
  const outer = deadlines.getStore()?.at;
  const next = outer !== undefined && (at === undefined || outer < at) ? outer : at;
  return next === undefined ? deadlines.exit(fn) : deadlines.run({ at: next }, fn);
}

/**
 * Runs `fn` without the caller's deadline: for work started on a request's behalf that is not the
 * request's own to wait for (a timer's flush, a group commit's runner, a fold).
 */
export function outsideStoreDeadline<R>(fn: () => R): R {
  // Nor is it the request's to mark as its own writes (work-marks.ts).
  return outsideWorkMark(() => (honoured ? deadlines.exit(fn) : fn()));
}

/** The deadline of the work under way (Unix ms), or undefined. */
export function storeDeadline(): number | undefined {
  return deadlines.getStore()?.at;
}

/**
 * Waits for work of the caller's that is not the store's (a render thread's answer, a password
 * hash): however long it takes, the caller's deadline moves on by as much, so the store's waits after
 * it still have what they had before it. That work has bounds of its own (the render queue, the
 * password queue).
 */
export async function awayFromStore<T>(work: Promise<T>): Promise<T> {
  const deadline = deadlines.getStore();
  if (deadline === undefined) return work;
  const start = Date.now();
  try {
    return await work;
  } finally {
    deadline.at += Date.now() - start;
  }
}

/** The time left before the deadline, at most `bound` ms (the step's own bound); throws once nothing is left. */
export function timeLeft(bound: number): number {
  const at = deadlines.getStore()?.at;
  if (at === undefined) return bound;
  const left = at - Date.now();
  if (left <= 0) throw outOfTime();
  return Math.min(bound, left);
}

/** The error of a wait the deadline ended: the store did not answer in the time the caller had. */
export function outOfTime(): StoreUnavailableError {
  return new StoreUnavailableError('no answer within the time allowed (DATABASE_TIMEOUT)', true);
}

/**
 * Waits for `promise` (work shared with others, under way already) until the deadline, if any;
 * past it, throws outOfTime and leaves the work to finish by itself.
 */
export async function waitWithin<T>(promise: Promise<T>): Promise<T> {
  const at = deadlines.getStore()?.at;
  if (at === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(outOfTime()), Math.max(0, at - Date.now()))))]);
  } finally {
    clearTimeout(timer);
  }
}
