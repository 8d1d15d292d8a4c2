import * as v from 'valibot';
import type { UserRecord } from '../resources/define.ts';
import { int, laravelTime as laravelTimeShape, str } from '../resources/shapes.ts';
import { laravelTime } from './websites.ts';

/**
 * What every plan offers here: the server enforces no plan limits, so each is unlimited (-1, the
 * real product's "unlimited") and every feature is on.
 */
export const PLAN_FEATURES = { pageviews: -1, websites: -1, api: true, data_export: true } as const;

/** The plan of the analytics API's account: the user's plan id, or the default plan (1). */
export function accountPlan(user: Pick<UserRecord, 'planid' | 'status'>): { id: number; name: string; features: typeof PLAN_FEATURES } {
  return { id: user.planid ?? 1, name: user.status === 'pro' ? 'Pro' : 'Default', features: PLAN_FEATURES };
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
