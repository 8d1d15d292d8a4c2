import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { SCOPED_KEY_TRUST_MS } from '../auth/key-index.ts';
import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { Services, UserRecord } from './define.ts';
import { SESSIONS } from './sessions.ts';
import { users } from './users.ts';

/** The admin's note on why a user is disabled: optional, at most this long. */
export const MAX_REASON = 500;

/** The body of a disable request: an optional reason (blank means none). */
export const DisableBody = v.object({
  reason: v.optional(v.nullable(v.pipe(v.string('Invalid reason: must be a string.'), v.trim(), v.maxLength(MAX_REASON, `Invalid reason: at most ${MAX_REASON} characters.`)))),
});

/** The answer to an admin who tries to disable their own account. */
export const NOT_SELF = 'You cannot disable your own account.';

/**
 * Disables (`reason` a string or null) or enables (`reason` undefined) a user, for the API and the
 * dashboard alike: the flag, when and why go on the user, and disabling also ends every dashboard
 * session of theirs in the same transaction. Keys, sign-ins and links are refused from the flag
 * (src/auth/disabled-users.ts). On a store shared by several processes the answer waits until no
 * process can still hold what it read of the user's keys before (key-index.ts), so from the answer
 * on every key of theirs is refused everywhere, as a revoked key is (and, enabled, accepted everywhere). Returns the stored user; throws 404 when it
 * is gone, 400 when the admin names themselves.
 */
export async function setUserDisabled(s: Services, target: UserRecord, adminId: number, reason: string | null | undefined): Promise<UserRecord> {
  const disabling = reason !== undefined;
  if (disabling && target.id === adminId) throw new ApiError(400, NOT_SELF);
  const fields = disabling
    ? { disabled: true, disabledAt: formatDateTime(s.clock.now()), disabledReason: reason === null || reason === '' ? null : reason }
    : { disabled: false, disabledAt: null, disabledReason: null };
  const stored = await s.store.transaction(async (tx) => {
    const updated = await tx.update<UserRecord>('users', target.id, fields);
    // A table of some rows only (tests) may have no sessions.
    if (updated && disabling && s.resources.some((row) => row.collection === SESSIONS)) await tx.removeWhere(SESSIONS, { owner: target.id });
    return updated;
  });
  if (!stored) throw new ApiError(404, users.messages.notFound);
  if (s.store.shared) await sleep(SCOPED_KEY_TRUST_MS);
  return stored;
}
