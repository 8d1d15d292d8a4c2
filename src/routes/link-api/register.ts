import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, MESSAGES } from '../../errors.ts';
import type { Services } from '../../resources/define.ts';
import { checkUserUnique, newUserFields, userFields, users } from '../../resources/users.ts';
import { transact } from '../crud.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import { clientBucket, refuseOver } from '../../http/rate-limit.ts';
import type { Limiter } from '../../http/rate-limit.ts';
import { parseWith, readJson } from '../../http/validate.ts';

const registerBody = v.object({ email: userFields.email, username: userFields.username, password: userFields.password });

/** `POST /api/register`: self-service sign-up, only when OPEN_REGISTRATION is on (404 otherwise). */
export function registerRoutes(s: Services, perIp: Limiter | null): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  if (!s.config.openRegistration) return routes;
  routes.post('/api/register', async (c) => {
    const ip = clientIp(c, s.config.trustProxy);
    // Sign-ups share the failed-authentication budget of the IP, so accounts cannot be mass-created.
    refuseOver(c, await perIp?.hit(clientBucket(ip)), s.clock.now());
    const input = parseWith(registerBody, await readJson(c));
    await checkUserUnique(s.store, input);
    const made = await newUserFields(input, s.clock.now());
    const user = await transact(s, users, async (tx) => {
      await checkUserUnique(tx, input);
      return tx.insert('users', made.fields);
    });
    return c.json({ error: 0, id: user.id, apikey: made.apikey });
  });
  return routes;
}
