import type { Store } from '../store/store.ts';
import type { UserRecord } from '../resources/define.ts';
import { hashApiKey, sameKeyHash } from './keys.ts';

/** Keys that authenticated since the users last changed, held to skip hashing them again. */
export const MAX_RECENT_KEYS = 10_000;

/**
 * How long a key that matched is trusted without asking the store again: a safety net only, since
 * a change to the users anywhere (another process on PostgreSQL included) forgets every key at once.
 */
export const KEY_KEPT_MS = 5_000;

/**
 * Finds the user of an API key through the store's unique index of key hashes. Keys that matched
 * are also remembered as they came (the process holds each key while serving its request anyway;
 * they are never written or logged), so a client's next requests skip the SHA-256, which is a
 * noticeable part of a cached list request. A key that matched nothing is never remembered, so
 * wrong keys cannot fill the map; any change to the users (a rotation, an expiry, a deletion),
 * made here or by another process sharing the store, forgets them all, and none is trusted longer
 * than KEY_KEPT_MS.
 */
export class KeyIndex {
  private recent = new Map<string, { user: UserRecord; until: number }>();
  private builtAt = -1;

  constructor(private readonly store: Store) {}

  /** The user of a key that matched since the users last changed, without waiting for the store; else undefined. */
  known(key: string): UserRecord | undefined {
    const version = this.store.version('users');
    if (version !== this.builtAt) {
      this.recent = new Map();
      this.builtAt = version;
    }
    const kept = this.recent.get(key);
    // Kept a few seconds at most, should a change ever go unheard.
    if (kept && kept.until > Date.now()) return kept.user;
    if (kept) this.recent.delete(key);
    return undefined;
  }

  /** The user owning `key`, or null. */
  async lookup(key: string): Promise<UserRecord | null> {
    const known = this.known(key);
    if (known) return known;
    const version = this.builtAt;
    const hash = hashApiKey(key);
    const user = await this.store.lookup<UserRecord>('users', 'keyHash', hash);
    if (!user || !sameKeyHash(user.keyHash, hash)) return null;
    // Kept only if the users did not change while the store answered.
    if (this.store.version('users') === version) {
      if (this.recent.size >= MAX_RECENT_KEYS) this.recent = new Map();
      this.recent.set(key, { user, until: Date.now() + KEY_KEPT_MS });
    }
    return user;
  }
}
