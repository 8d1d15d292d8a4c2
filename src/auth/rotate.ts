import type { Store } from '../store/store.ts';
import type { UserRecord } from '../resources/define.ts';
import { generateApiKey, hashApiKey } from './keys.ts';

/** Gives a user a new key (optionally expiring) and returns it, the only time it is shown; null when there is no such user. */
export async function rotateKeyOf(store: Store, userId: number, expires: string | null): Promise<string | null> {
  const apikey = generateApiKey();
  const done = await store.transaction((tx) => tx.update<UserRecord>('users', userId, { keyHash: hashApiKey(apikey), keyExpires: expires }));
  return done ? apikey : null;
}
