/** The errors of the storage interface (store.ts). */

/** `replaceAll(…, { onlyIfEmpty })` found records: how many per collection that holds any. */
export class StoreNotEmptyError extends Error {
  constructor(readonly held: Record<string, number>) {
    super('the store is not empty');
    this.name = 'StoreNotEmptyError';
  }
}

/** A change a unique index refused: another record has the same key. */
export class ConflictError extends Error {
  constructor(
    readonly collection: string,
    readonly index: string,
  ) {
    super(`${collection}: another record has the same ${index}`);
    this.name = 'ConflictError';
  }
}

/** The store could not be reached or failed (a database down): answered 503, never with its details. */
export class StoreUnavailableError extends Error {
  constructor(
    readonly reason: string,
    /** A wait that ran out (a statement or lock timeout), the connection still sound, not a database gone. */
    readonly timedOut = false,
  ) {
    super(`storage unavailable: ${reason}`);
    this.name = 'StoreUnavailableError';
  }
}
