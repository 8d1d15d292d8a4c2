import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../store/store.ts';

/**
 * The secret that signs the pages' cookies (link passwords given, stats pages signed in to). On a
 * store several processes share, it is agreed through the store, so a cookie one instance set is
 * good on every other; on a one-process store it is this process's own (a restart signs everyone out).
 */
export async function cookieSecret(store: Store): Promise<Uint8Array> {
  const proposed = randomBytes(32).toString('hex');
  return Buffer.from(store.shared ? await store.shared.agree('cookie secret', proposed) : proposed, 'hex');
}

/** The key of one kind of cookie, derived from the secret: one kind's signature is never another's. */
export function cookieKey(secret: Uint8Array, purpose: string): Buffer {
  return createHmac('sha256', secret).update(purpose).digest();
}
