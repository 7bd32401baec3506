/**
 * The plans a user can be on. The billing issue gives each plan its price and limits and lets
 * configuration replace this list; accounts only need to know which ids exist.
 */
export const DEFAULT_PLAN_ID = 'free';

export const PLAN_IDS = ['free', 'pro'] as const;

export function isKnownPlan(planId: string): boolean {
  return (PLAN_IDS as readonly string[]).includes(planId);
}
