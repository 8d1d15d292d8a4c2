import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store, Tx } from './store.ts';

/**
 * A record that every transaction of some work, which writes anything, updates in that same
 * transaction: so the record says, atomically with the work's first commit, that the work wrote
 * (an idempotency key's claim: a retry after a crash then knows the first attempt took effect).
 */
export interface WorkMark {
  collection: string;
  id: number;
  /** The fields to set, read at each commit. */
  fields: () => Record<string, unknown>;
  /** False once the work is over: a transaction started later on its behalf (a timer's) marks nothing. */
  open: boolean;
}

const marks = new AsyncLocalStorage<WorkMark>();
// Carrying a store through async work hooks every promise of the process (Node 20), so the
// storage is enabled only while some marked work runs, and disabled again when none does.
let running = 0;

/** Runs `work` with `mark` carried: every write transaction it starts updates the mark's record too. */
export async function withWorkMark<R>(mark: WorkMark, work: () => Promise<R>): Promise<R> {
  running++;
  try {
    return await marks.run(mark, work);
  } finally {
    mark.open = false;
    if (--running === 0) marks.disable();
  }
}

/** Runs `fn` as work of nobody's marked work (a flush a timer starts on a request's behalf). */
export function outsideWorkMark<R>(fn: () => R): R {
  return running > 0 ? marks.exit(fn) : fn();
}

const WRITES: ReadonlySet<PropertyKey> = new Set<keyof Tx>(['insert', 'insertMany', 'update', 'updateMany', 'remove', 'put', 'removeWhere', 'dropCounts', 'addCounts', 'putFileContent', 'appendEvents']);

/**
 * The store with work marks honoured: a transaction started while marked work runs updates the
 * mark's record before it commits, when it wrote anything. Everything else passes through.
 */
export function withWorkMarks(store: Store): Store {
  const transaction = <R>(fn: (tx: Tx) => Promise<R>): Promise<R> => {
    const mark = running > 0 ? marks.getStore() : undefined;
    if (!mark?.open) return store.transaction(fn);
    return store.transaction(async (tx) => {
      let wrote = false;
      const watched = new Proxy(tx, {
        get(target, prop) {
          const value: unknown = Reflect.get(target, prop, target);
          if (typeof value !== 'function') return value;
          if (!WRITES.has(prop)) return (value as (...args: unknown[]) => unknown).bind(target);
          return (...args: unknown[]) => {
            wrote = true;
            return (value as (...args: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const result = await fn(watched);
      if (wrote && mark.open) await tx.update(mark.collection, mark.id, mark.fields());
      return result;
    });
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (!bound.has(prop)) bound.set(prop, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(prop);
    },
  });
}
