import { Hono } from 'hono';
import { newLoginToken } from '../../auth/login-links.ts';
import { formatDateTime } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { requireAdmin } from '../../http/auth.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { users } from '../../resources/users.ts';
import { findVisible } from '../crud.ts';

/**
 * `GET /api/user/login/:id` (admin): a one-time sign-in link for a user. The server has no web
 * interface to sign in to, so the link gives the user a new API key, shown once to whoever opens
 * it (docs/compatibility.md). A new link replaces the user's previous one.
 */
export function loginLinkRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/user/login/:id', requireAdmin, async (c) => {
    const user = await findVisible<UserRecord>(s, users, c.req.param('id'), c.get('user').id);
    const { token, fields } = newLoginToken(user.id, s.clock.now());
    const stored = await s.store.transaction((tx) => tx.update<UserRecord>('users', user.id, fields));
    if (!stored) throw new ApiError(404, users.messages.notFound);
    // In the query, never the path: the access log leaves queries out.
    return c.json({ error: 0, url: `${s.config.baseUrl}/login?token=${token}`, expires: formatDateTime(fields.loginExpires!) });
  });
  return routes;
}
