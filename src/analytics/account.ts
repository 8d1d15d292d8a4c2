import * as v from 'valibot';
import type { UserRecord } from '../resources/define.ts';
import { planOf } from '../resources/plans.ts';
import type { PLAN_FEATURES } from '../resources/plans.ts';
import { int, laravelTime as laravelTimeShape, str } from '../resources/shapes.ts';
import { laravelTime } from './websites.ts';

/** The plan of the analytics API's account: the user's plan (src/resources/plans.ts). */
export function accountPlan(user: Pick<UserRecord, 'planid' | 'status'>): { id: number; name: string; features: typeof PLAN_FEATURES } {
  const { id, name, features } = planOf(user);
  return { id, name, features };
}

/** The analytics API's account (`GET /api/v1/account`), in the real product's shape. */
export function analyticsAccount(user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    name: user.username,
    email: user.email,
    avatar_url: user.avatar,
    // No per-user locale or time zone is kept: the statistics are counted in UTC days.
    locale: 'en',
    timezone: 'UTC',
    plan: accountPlan(user),
    created_at: laravelTime(Date.parse(`${user.registered.replace(' ', 'T')}Z`)),
  };
}

/** The shape of `analyticsAccount`, for the OpenAPI document. */
export const analyticsAccountShape = v.strictObject({
  id: int,
  name: str,
  email: str,
  avatar_url: str,
  locale: str,
  timezone: str,
  plan: v.strictObject({
    id: int,
    name: str,
    features: v.strictObject({ pageviews: int, websites: int, api: v.boolean(), data_export: v.boolean() }),
  }),
  created_at: laravelTimeShape,
});
