import { Hono } from 'hono';
import * as v from 'valibot';
import type { Services } from '../../resources/define.ts';
import { checkUserUnique, newUserFields, userFields, users } from '../../resources/users.ts';
import { transact } from '../crud.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import { clientBucket, refuseOver } from '../../http/rate-limit.ts';
import type { Limiter } from '../../http/rate-limit.ts';
import { parseWith, readJson } from '../../http/validate.ts';
import type { UserRecord } from '../../resources/define.ts';

/** What a sign-up gives: an email, a username and a password. */
export const registerBody = v.object({ email: userFields.email, username: userFields.username, password: userFields.password });

/**
 * A self-service sign-up (POST /api/register and the dashboard's /app/register): the body validated
 * (400 ApiError naming the field), the email and username checked free, the user stored; its new
 * API key answered once beside it.
 */
export async function registerUser(s: Services, body: unknown): Promise<{ user: UserRecord; apikey: string }> {
  const input = parseWith(registerBody, body);
  await checkUserUnique(s.store, input);
  const made = await newUserFields(input, s.clock.now());
  const user = await transact(s, users, async (tx) => {
    await checkUserUnique(tx, input);
    return tx.insert('users', made.fields);
  });
  return { user: user as UserRecord, apikey: made.apikey };
}

/** `POST /api/register`: self-service sign-up, only when OPEN_REGISTRATION is on (404 otherwise). */
export function registerRoutes(s: Services, perIp: Limiter | null): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  if (!s.config.openRegistration) return routes;
  routes.post('/api/register', async (c) => {
    const ip = clientIp(c, s.config.trustProxy);
    // Sign-ups share the failed-authentication budget of the IP, so accounts cannot be mass-created.
    refuseOver(c, await perIp?.hit(clientBucket(ip)), s.clock.now());
    const { user, apikey } = await registerUser(s, await readJson(c));
    return c.json({ error: 0, id: user.id, apikey });
  });
  return routes;
}
