import type { UserRecord } from './define.ts';

/**
 * What every plan offers here: the server enforces no plan limits, so each is unlimited (-1, the
 * real product's "unlimited") and every feature is on.
 */
export const PLAN_FEATURES = { pageviews: -1, websites: -1, api: true, data_export: true } as const;

/** A plan users can be on. */
export interface Plan {
  id: number;
  name: string;
  /** Users on a free plan have `status` "free", the others "pro". */
  free: boolean;
  features: typeof PLAN_FEATURES;
}

/**
 * The plans this server knows, the one source of `planid`s (GET /api/plans, user create, plan
 * assignment, both APIs' accounts): the default, free plan and Pro. No limits are enforced, so
 * they differ only in name and in the `status` they give.
 */
export const PLANS: readonly Plan[] = [
  { id: 1, name: 'Default', free: true, features: PLAN_FEATURES },
  { id: 2, name: 'Pro', free: false, features: PLAN_FEATURES },
];

const [DEFAULT_PLAN, PRO_PLAN] = PLANS as [Plan, Plan];

/** The plan of this id, or undefined when the server has none. */
export function planById(id: number | null | undefined): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}

/** The plan of a user: the one its `planid` names; without one (or one stored before plans were listed), Pro when its status is pro, else Default. */
export function planOf(user: Pick<UserRecord, 'planid' | 'status'>): Plan {
  return planById(user.planid) ?? (user.status === 'pro' ? PRO_PLAN : DEFAULT_PLAN);
}

/** The `status` a user on this plan has (no plan: free). */
export function statusOfPlan(planid: number | null | undefined): 'free' | 'pro' {
  const plan = planById(planid);
  return plan && !plan.free ? 'pro' : 'free';
}
