import type { Store } from '../store/store.ts';
import type { UserRecord } from '../resources/define.ts';
import { hashApiKey, sameKeyHash } from './keys.ts';

/** Keys that authenticated since the users last changed, held to skip hashing them again. */
export const MAX_RECENT_KEYS = 10_000;

/**
 * Finds the user of an API key through a hash → user map, rebuilt whenever the users change.
 * Keys that matched are also remembered as they came (the process holds each key while serving
 * its request anyway; they are never written or logged), so a client's next requests skip the
 * SHA-256, which is a noticeable part of a cached list request. A key that matched nothing is
 * never remembered, so wrong keys cannot fill the map, and any change to the users (a rotation,
 * an expiry, a deletion) forgets them all.
 */
export class KeyIndex {
  private byHash = new Map<string, number>();
  private recent = new Map<string, number>();
  private builtAt = -1;

  constructor(private readonly store: Store) {}

  /** The user owning `key`, or null. */
  lookup(key: string): UserRecord | null {
    const version = this.store.version('users');
    if (version !== this.builtAt) {
      this.byHash = new Map(this.store.all<UserRecord>('users').map((u) => [u.keyHash, u.id]));
      this.recent = new Map();
      this.builtAt = version;
    }
    const known = this.recent.get(key);
    if (known !== undefined) return this.store.get<UserRecord>('users', known) ?? null;
    const hash = hashApiKey(key);
    const id = this.byHash.get(hash);
    const user = id === undefined ? undefined : this.store.get<UserRecord>('users', id);
    if (!user || !sameKeyHash(user.keyHash, hash)) return null;
    if (this.recent.size >= MAX_RECENT_KEYS) this.recent = new Map();
    this.recent.set(key, user.id);
    return user;
  }
}
