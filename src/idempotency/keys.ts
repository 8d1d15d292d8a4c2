import { ConflictError } from '../store/store.ts';
import type { CollectionSchema, Store, StoredRecord } from '../store/store.ts';

/** The collection of idempotency keys: kept beside the resource table's, never exported. */
export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/** A key is one user's: the same text sent by two users is two keys. */
const keyOf = (r: StoredRecord) => (typeof r.userId === 'number' && typeof r.key === 'string' ? `${r.userId}:${r.key}` : null);

/** What the store keeps of the collection: one record per user and key (unique). */
export const IDEMPOTENCY_SCHEMA: CollectionSchema = { name: IDEMPOTENCY_COLLECTION, indexes: { key: { key: keyOf, unique: true } } };

/** How long a key answers its first answer again (as Stripe: 24 hours). */
export const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * A request still marked in progress after this long was cut off (its process died between the
 * work and the answer): its key may run again. Longer than any request takes (a bulk request of
 * 1,000 protected links hashes 1,000 passwords).
 */
export const ABANDONED_MS = 5 * 60 * 1000;

/**
 * A request whose write committed (its transaction marked the key: committedAt) but whose answer is
 * still not kept this long after that commit, and ABANDONED_MS after it began, was cut off between
 * the two (its process died): it is not run again, and the key answers LOST_ANSWER from then on.
 */
export const LOST_AFTER_MS = 60 * 1000;

/** What a key answers when its request took effect but its answer was lost (see LOST_AFTER_MS). */
export const LOST_ANSWER: KeptAnswer = {
  error: {
    status: 409,
    message: 'The first request with this Idempotency-Key was carried out, but its answer was not kept (the server failed or stopped first): it is not run again. Look up what it did (a list, or the record), or use a new key for a new request.',
  },
};

/** What a key answers after a request whose answer showed a secret once (never kept: holdsSecret). */
export const SECRET_NOT_KEPT: KeptAnswer = {
  error: {
    status: 409,
    message: 'The first request with this Idempotency-Key was carried out; its answer showed a secret once, and is not kept: it is not run again. Look up what it made, or use a new key for a new request.',
  },
};

/** The first answer as it is replayed: a response (status, body text, content type), or the ApiError a handler threw. */
export type KeptAnswer =
  | { status: number; body: string; type: string }
  | { error: { status: number; message: string; fields?: Record<string, string[]>; extra?: Record<string, unknown> } };

/** A stored idempotency key: whose, which request (a hash of method, path and body), when, and its answer once there is one. */
export interface IdempotencyRecord extends StoredRecord {
  userId: number;
  key: string;
  request: string;
  /** Unix ms when the request that holds it began. */
  created: number;
  /** Unix ms after which the key is forgotten (pruneKeys). */
  expires: number;
  answer: KeptAnswer | null;
  /** Unix ms when a transaction of its request committed a write (work-marks.ts), if one did. */
  committedAt?: number | null;
}

/** What claiming a key found: a fresh claim (the request runs), the first answer, another request still running, or another request under the key. */
export type Claim = { kind: 'run'; id: number } | { kind: 'replay'; answer: KeptAnswer } | { kind: 'busy' } | { kind: 'mismatch' };

/**
 * Claims `key` for `userId`'s request (`request`: its hash), in one transaction: an unexpired
 * record of the key answers (mismatch, replay, or busy while its request runs); an expired or
 * abandoned one is taken over; else a new record marks the request as running. Two processes
 * claiming at once: the unique index lets one in, the other is busy.
 */
export async function claimKey(store: Store, userId: number, key: string, request: string, now: number): Promise<Claim> {
  const fresh = { created: now, expires: now + KEEP_MS, answer: null, committedAt: null };
  try {
    return await store.transaction(async (tx): Promise<Claim> => {
      const found = await tx.lookup<IdempotencyRecord>(IDEMPOTENCY_COLLECTION, 'key', `${userId}:${key}`);
      // Locked, as read again: a takeover must not wipe the mark of a commit the first request makes meanwhile.
      const held = found && (await tx.getForUpdate<IdempotencyRecord>(IDEMPOTENCY_COLLECTION, found.id));
      if (held && held.expires > now) {
        if (held.request !== request) return { kind: 'mismatch' };
        if (held.answer) return { kind: 'replay', answer: held.answer };
        if (typeof held.committedAt === 'number') {
          // Its write took effect: never run again; once its answer is surely lost (the request would
          // have kept it by now, however long it runs), say so for good.
          if (now - held.committedAt < LOST_AFTER_MS || now - held.created < ABANDONED_MS) return { kind: 'busy' };
          await tx.update(IDEMPOTENCY_COLLECTION, held.id, { answer: LOST_ANSWER });
          return { kind: 'replay', answer: LOST_ANSWER };
        }
        if (now - held.created < ABANDONED_MS) return { kind: 'busy' };
        await tx.update(IDEMPOTENCY_COLLECTION, held.id, fresh);
        return { kind: 'run', id: held.id };
      }
      if (held) await tx.remove(IDEMPOTENCY_COLLECTION, held.id);
      const made = await tx.insert(IDEMPOTENCY_COLLECTION, { userId, key, request, ...fresh });
      return { kind: 'run', id: made.id };
    });
  } catch (err) {
    if (err instanceof ConflictError && err.collection === IDEMPOTENCY_COLLECTION) return { kind: 'busy' };
    throw err;
  }
}

/** Keeps the first answer of a claimed key. */
export async function keepAnswer(store: Store, id: number, answer: KeptAnswer): Promise<void> {
  await store.transaction((tx) => tx.update(IDEMPOTENCY_COLLECTION, id, { answer }));
}

/**
 * Forgets a claimed key whose request failed on the server's side (5xx): a retry with it runs
 * again; unless a write of the request had committed already, which must not happen twice: then
 * the key answers LOST_ANSWER.
 */
export async function releaseKey(store: Store, id: number): Promise<void> {
  await store.transaction(async (tx) => {
    const held = await tx.get<IdempotencyRecord>(IDEMPOTENCY_COLLECTION, id);
    if (typeof held?.committedAt === 'number') await tx.update(IDEMPOTENCY_COLLECTION, id, { answer: LOST_ANSWER });
    else await tx.remove(IDEMPOTENCY_COLLECTION, id);
  });
}

/** Removes every expired key; how many. */
export async function pruneKeys(store: Store, now: number): Promise<number> {
  return store.transaction((tx) => tx.removeWhere(IDEMPOTENCY_COLLECTION, { conditions: [{ field: 'expires', below: now }] }));
}

/**
 * POST routes whose answer carries a new API key (key rotations, a user made by the admin): their
 * answers are never kept, as a key must not lie in the store in plain text for a day, so
 * Idempotency-Key is not honoured there (app.ts; the OpenAPI document leaves the header out).
 */
export const ANSWERS_WITH_SECRETS: ReadonlySet<string> = new Set(['/api/account/rotate-key', '/api/user/:id/rotate-key', '/api/user/add', '/api/user/create', '/api/keys']);

/**
 * Whether an answer's JSON names a secret shown once (`apikey`, `secret`), whichever route gave it:
 * the last guard, should a route that answers one be missing from ANSWERS_WITH_SECRETS.
 */
export const holdsSecret = (body: string): boolean => /"(?:apikey|secret)"\s*:\s*"/.test(body);
