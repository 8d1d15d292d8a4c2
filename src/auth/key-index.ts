import type { Store } from '../store/store.ts';
import type { UserRecord } from '../resources/define.ts';
import { API_KEYS } from './api-key-record.ts';
import type { ApiKeyRecord } from './api-key-record.ts';
import { hashApiKey, sameKeyHash } from './keys.ts';

/** Keys that authenticated since the users or keys last changed, held to skip hashing them again. */
export const MAX_RECENT_KEYS = 10_000;

/**
 * How long a key that matched is trusted without asking the store again: a safety net only, since
 * a change to the users or keys anywhere (another process on PostgreSQL included) forgets every key at once.
 */
export const KEY_KEPT_MS = 5_000;

/**
 * How long a process trusts a key (scoped or the account's own) without asking the store again, when
 * several processes share the store (PostgreSQL), counted from when it asked: a revocation
 * (api-keys.ts) and disabling a user (user-disable.ts) are answered only this long after they are
 * committed, so once the answer comes no process still trusts the key, whether or not it heard of
 * the change yet. Change notifications usually forget it sooner.
 */
export const SCOPED_KEY_TRUST_MS = 250;

/** Whether a table of rows has the scoped keys' collection (a table of some rows only, in tests, may not). */
export function scopedKeysIn(rows: readonly { collection: string }[]): boolean {
  return rows.some((row) => row.collection === API_KEYS);
}

/** Whom a key authenticates: the user, and the scoped key it is (null: the account's own key, which holds every scope). */
export interface Credential {
  user: UserRecord;
  key: ApiKeyRecord | null;
}

/**
 * Finds the user of an API key through the store's unique indexes of key hashes: the account key
 * (`users.keyHash`) or a scoped key (`api_keys.keyHash`, when the table has that row). Keys that
 * matched are also remembered as they came (the process holds each key while serving its request
 * anyway; they are never written or logged), so a client's next requests skip the SHA-256, which is
 * a noticeable part of a cached list request. A key that matched nothing is never remembered, so
 * wrong keys cannot fill the map; any change to the users or the scoped keys (a rotation, an expiry,
 * a revocation, a deletion), made here or by another process sharing the store, forgets them all,
 * and none is trusted longer than KEY_KEPT_MS (on a shared store: SCOPED_KEY_TRUST_MS).
 */
export class KeyIndex {
  private recent = new Map<string, { found: Credential; until: number }>();
  private builtAt = -1;

  /** `scoped`: whether the store has the scoped keys' collection (a table of some rows only may not). */
  constructor(
    private readonly store: Store,
    private readonly scoped = true,
  ) {}

  // Versions only grow, so their sum changes whenever either does.
  private version(): number {
    return this.store.version('users') + (this.scoped ? this.store.version(API_KEYS) : 0);
  }

  /** Whom a key that matched since the users and keys last changed authenticates, without waiting for the store; else undefined. */
  known(key: string): Credential | undefined {
    const version = this.version();
    if (version !== this.builtAt) {
      this.recent = new Map();
      this.builtAt = version;
    }
    const kept = this.recent.get(key);
    // Kept a few seconds at most, should a change ever go unheard.
    if (kept && kept.until > Date.now()) return kept.found;
    if (kept) this.recent.delete(key);
    return undefined;
  }

  /** Whom `key` authenticates, or null. */
  async lookup(key: string): Promise<Credential | null> {
    const known = this.known(key);
    if (known) return known;
    const version = this.builtAt;
    const asked = Date.now();
    const found = await this.find(hashApiKey(key));
    // Kept only if the users and keys did not change while the store answered.
    if (found && this.version() === version) {
      if (this.recent.size >= MAX_RECENT_KEYS) this.recent = new Map();
      // From before the store read it: what the store answered may be older than its arrival. Any
      // key on a shared store, the account's own too: disabling its user (user-disable.ts) waits this long.
      const until = this.store.shared ? asked + SCOPED_KEY_TRUST_MS : Date.now() + KEY_KEPT_MS;
      this.recent.set(key, { found, until });
    }
    return found;
  }

  private async find(hash: string): Promise<Credential | null> {
    const [user, scoped] = await Promise.all([
      this.store.lookup<UserRecord>('users', 'keyHash', hash),
      this.scoped ? this.store.lookup<ApiKeyRecord>(API_KEYS, 'keyHash', hash) : undefined,
    ]);
    if (user && sameKeyHash(user.keyHash, hash)) return { user, key: null };
    if (!scoped || !sameKeyHash(scoped.keyHash, hash)) return null;
    const owner = await this.store.get<UserRecord>('users', scoped.userId);
    return owner ? { user: owner, key: scoped } : null;
  }
}
