import { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { requireAdmin } from '../../http/auth.ts';
import { parseWith, readJson } from '../../http/validate.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { DisableBody, setUserDisabled } from '../../resources/user-disable.ts';
import { publicUser, users } from '../../resources/users.ts';
import { findVisible } from '../crud.ts';

/**
 * `POST /api/user/:id/disable` `{reason?}` and `POST /api/user/:id/enable` (admin): this server's
 * extension to the real product's user endpoints (docs/compatibility.md). A disabled user's keys,
 * sign-ins, sessions and links stop until enabled again; nothing of theirs is deleted.
 */
export function userDisableRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/api/user/:id/disable', requireAdmin, async (c) => {
    const { reason } = parseWith(DisableBody, await readJson(c));
    const target = await findVisible<UserRecord>(s, users, c.req.param('id'), c.get('user').id);
    const stored = await setUserDisabled(s, target, c.get('user').id, reason ?? null);
    return c.json({ error: 0, message: 'User has been disabled.', data: publicUser(stored) });
  });
  routes.post('/api/user/:id/enable', requireAdmin, async (c) => {
    const target = await findVisible<UserRecord>(s, users, c.req.param('id'), c.get('user').id);
    const stored = await setUserDisabled(s, target, c.get('user').id, undefined);
    return c.json({ error: 0, message: 'User has been enabled.', data: publicUser(stored) });
  });
  return routes;
}
