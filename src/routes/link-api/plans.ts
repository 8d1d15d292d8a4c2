import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { requireAdmin } from '../../http/auth.ts';
import { pathId } from '../../http/validate.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { PLANS, planById, statusOfPlan } from '../../resources/plans.ts';
import { PLAN_MISSING, users } from '../../resources/users.ts';
import { findVisible, transact } from '../crud.ts';

/** `GET /api/plans`: the plans the server knows; `PUT /api/plan/:planid/user/:userid` (admin): puts a user on one. */
export function planRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/api/plans', (c) => c.json({ error: 0, data: PLANS }));

  routes.put('/api/plan/:planid/user/:userid', requireAdmin, async (c) => {
    const plan = planById(pathId(c.req.param('planid')));
    if (!plan) throw new ApiError(404, PLAN_MISSING);
    const user = await findVisible<UserRecord>(s, users, c.req.param('userid'), c.get('user').id);
    await transact(s, users, async (tx) => {
      if (!(await tx.update<UserRecord>('users', user.id, { planid: plan.id, status: statusOfPlan(plan.id) }))) throw new ApiError(404, users.messages.notFound);
    });
    return c.json({ error: 0, message: 'User has been subscribed to this plan.' });
  });
  return routes;
}
