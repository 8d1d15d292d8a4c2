import { Hono } from 'hono';
import * as v from 'valibot';
import { rotateKeyOf } from '../../auth/rotate.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { ApiError } from '../../errors.ts';
import { updateSchema, withoutEmptyOptionals } from '../../resources/define.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { avatarFor, checkUserUnique, publicUser, userFields, users } from '../../resources/users.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { requireAdmin } from '../../http/auth.ts';
import { findVisible, transact } from '../crud.ts';
import { parseWith, readJson } from '../../http/validate.ts';

const rotateBody = v.object({ expires: v.optional(userFields.keyexpires) });

/** Rotates a user's key, 404 when the user is gone. */
async function rotateKey(s: Services, userId: number, expires: string | null): Promise<string> {
  const apikey = await rotateKeyOf(s.store, userId, expires);
  if (!apikey) throw new ApiError(404, users.messages.notFound);
  return apikey;
}

const updating = updateSchema(users);

/**
 * Changes a user's email and password from an update body (validated as PUT /api/account/update
 * validates it; the password hashed as on create): the API's update and the dashboard's account
 * forms. Whether anything changed.
 */
export async function updateAccount(s: Services, user: UserRecord, body: Record<string, unknown>): Promise<boolean> {
  const input = parseWith(updating, withoutEmptyOptionals(users, 'update', body)) as { email?: string; password?: string };
  const patch: Partial<UserRecord> = {};
  if (input.email !== undefined && input.email.toLowerCase() !== user.email.toLowerCase()) {
    patch.email = input.email;
    patch.avatar = avatarFor(input.email);
  }
  if (input.password !== undefined) patch.password = await hashPassword(input.password);
  if (Object.keys(patch).length === 0) return false;
  await transact(s, users, async (tx) => {
    await checkUserUnique(tx, { email: patch.email }, user.id);
    await tx.update('users', user.id, patch);
  });
  return true;
}

/** The account of the key's owner, and key rotation (the user's own, or any user's for an admin). */
export function accountRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/api/account', (c) => {
    // As the real product's account: no admin flag, and no disabled state (a disabled user is refused before this).
    const { admin: _admin, disabled: _disabled, ...account } = publicUser(c.get('user'));
    return c.json({ error: 0, data: account });
  });

  routes.put('/api/account/update', async (c) => {
    const changed = await updateAccount(s, c.get('user'), await readJson(c));
    return c.json({ error: 0, message: changed ? users.messages.updated : 'No changes were done to the account.' });
  });

  routes.post('/api/account/rotate-key', async (c) => {
    const input = parseWith(rotateBody, await readJson(c));
    const apikey = await rotateKey(s, c.get('user').id, input.expires ?? null);
    return c.json({ error: 0, message: 'API key has been rotated.', apikey });
  });

  routes.post('/api/user/:id/rotate-key', requireAdmin, async (c) => {
    const target = await findVisible<UserRecord>(s, users, c.req.param('id'), c.get('user').id);
    const input = parseWith(rotateBody, await readJson(c));
    const apikey = await rotateKey(s, target.id, input.expires ?? null);
    return c.json({ error: 0, message: 'API key has been rotated.', apikey });
  });
  return routes;
}
