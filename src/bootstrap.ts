import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import { ConflictError } from './store/store.ts';
import type { Store } from './store/store.ts';
import { newUserFields } from './resources/users.ts';

/**
 * On a start with no users, creates the admin. Returns the admin's key when it was generated
 * here (to be printed once), null when ADMIN_API_KEY chose it, users already exist, or another
 * server sharing the database made the admin first.
 */
export async function ensureAdmin(store: Store, clock: Clock, adminApiKey: string | undefined): Promise<string | null> {
  if ((await store.count('users')) > 0) return null;
  const made = await newUserFields(
    { email: 'admin@localhost', username: 'admin', password: randomBytes(24).toString('base64url'), admin: true, planid: 2, apikey: adminApiKey },
    clock.now(),
  );
  try {
    await store.transaction((tx) => tx.insert('users', made.fields));
  } catch (err) {
    // Several servers starting together on one empty database all saw no users; the first to commit
    // made the admin, the others' unique username refuses theirs. Theirs was never stored: no key to print.
    if (err instanceof ConflictError && err.collection === 'users') return null;
    throw err;
  }
  return adminApiKey ? null : made.apikey;
}
