import type { Store } from '../store/store.ts';
import type { UserRecord } from '../resources/define.ts';
import { hashApiKey, sameKeyHash } from './keys.ts';

/** Finds the user of an API key through a hash → user map, rebuilt whenever the users change. */
export class KeyIndex {
  private byHash = new Map<string, number>();
  private builtAt = -1;

  constructor(private readonly store: Store) {}

  /** The user owning `key`, or null. */
  lookup(key: string): UserRecord | null {
    const version = this.store.version('users');
    if (version !== this.builtAt) {
      this.byHash = new Map(this.store.all<UserRecord>('users').map((u) => [u.keyHash, u.id]));
      this.builtAt = version;
    }
    const hash = hashApiKey(key);
    const id = this.byHash.get(hash);
    const user = id === undefined ? undefined : this.store.get<UserRecord>('users', id);
    return user && sameKeyHash(user.keyHash, hash) ? user : null;
  }
}
