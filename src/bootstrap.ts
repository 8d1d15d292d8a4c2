import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { Store } from './store/store.ts';
import { newUserFields } from './resources/users.ts';

/**
 * On a start with no users, creates the admin. Returns the admin's key when it was generated
 * here (to be printed once), null when ADMIN_API_KEY chose it or users already exist.
 */
export async function ensureAdmin(store: Store, clock: Clock, adminApiKey: string | undefined): Promise<string | null> {
  if ((await store.count('users')) > 0) return null;
  const made = await newUserFields(
    { email: 'admin@localhost', username: 'admin', password: randomBytes(24).toString('base64url'), admin: true, planid: 1, apikey: adminApiKey },
    clock.now(),
  );
  await store.transaction((tx) => tx.insert('users', made.fields));
  return adminApiKey ? null : made.apikey;
}
