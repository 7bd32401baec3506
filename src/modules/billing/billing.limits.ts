import type { FastifyContextConfig } from 'fastify';
import type { Principal } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { createLocalCounters, type SharedCounters } from '../../lib/shared-counters.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { LIMIT_LABELS, type LimitName, type Plan, type PlansService } from '../plans/plans.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is not counted against the daily request quota (billing: a capped owner can still upgrade). */
    dailyQuotaExempt?: boolean;
  }
}

/** How long a caller's plan is remembered by the per-request counter. */
const PLAN_CACHE_MS = 60_000;
const PLAN_CACHE_MAX = 100_000;

export interface LimitsServiceOptions {
  /** config.planLimits: off means every check returns at once, with no database work. */
  enabled: boolean;
  plans: Pick<PlansService, 'effective'>;
  accounts: Pick<AccountsService, 'getUser' | 'onPlanChange'>;
  /** The clock; the daily counter resets at UTC midnight. */
  now?: () => number;
  /**
   * Where the daily requests are counted: shared by the nodes with PostgreSQL (approximately:
   * a node hears the others' requests within one flush, see lib/shared-counters.ts); a counter
   * of its own in this process by default.
   */
  counters?: SharedCounters;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function nextUtcMidnight(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/**
 * The refusal of a limit. `withoutUsed`: the caller may not learn how much the owner uses (a token
 * limited to memory tags, told the owner's count of entries, would learn how many it cannot see):
 * the message and details leave the count out and say the rest.
 */
function limitReached(
  limit: LimitName,
  plan: Plan,
  used: number,
  max: number,
  adding: number,
  extra: Partial<{ headers: Record<string, string>; resetsAt: string; withoutUsed: boolean }> = {},
): AppError {
  const fix =
    limit === 'apiRequestsPerDay'
      ? `The count starts again at ${extra.resetsAt}`
      : limit === 'knowledgeBytes'
        ? 'Delete or shorten documents'
        : `Delete some`;
  const hideUsed = extra.withoutUsed === true;
  const message =
    limit === 'knowledgeBytes'
      ? `Plan limit reached: knowledgeBytes. The ${plan.name} plan allows ${max} bytes of knowledge-base content; ${hideUsed ? '' : `${used} are stored and `}this change adds ${adding}. ${fix}, or move to a larger plan (GET /api/v1/billing/plans, POST /api/v1/billing/checkout)`
      : `Plan limit reached: ${limit}. The ${plan.name} plan allows ${max} ${LIMIT_LABELS[limit]}${hideUsed ? '' : ` and ${used} ${limit === 'apiRequestsPerDay' ? 'were made today' : 'are in use'}`}. ${fix}, or move to a larger plan (GET /api/v1/billing/plans, POST /api/v1/billing/checkout)`;
  return new AppError('PLAN_LIMIT_REACHED', message, {
    details: { limit, ...(hideUsed ? {} : { used }), max, planId: plan.id, ...(adding !== 1 ? { adding } : {}), ...(extra.resetsAt ? { resetsAt: extra.resetsAt } : {}) },
    ...(extra.headers ? { headers: extra.headers } : {}),
  });
}

/**
 * Plan limits, checked where records are created. Applies only when config.planLimits is on;
 * the administrator is never limited.
 *
 * A check counts what is stored, then the caller writes: two creations at the same moment can
 * both pass, so a burst may exceed a limit by the number of concurrent requests. Nothing is
 * locked for it; the next creation is refused. Writes made in a group commit (memory, the
 * knowledge base) use `limitFor` instead, counting inside the writing transaction: on SQLite
 * they cannot pass a limit at all, on PostgreSQL only by the few batches in flight at once.
 */
export function createLimitsService(deps: LimitsServiceOptions) {
  const { plans, accounts } = deps;
  const now = deps.now ?? Date.now;

  /** The caller's plan, or null when they are not limited (the administrator). */
  async function planOf(ownerId: string): Promise<Plan | null> {
    const user = await accounts.getUser(ownerId);
    return user.role === 'admin' ? null : plans.effective(user.planId);
  }

  // Daily request counts: per owner and UTC day (the day is in the key, so a new day starts a
  // new count), the window ending at the next midnight.
  const counters = deps.counters ?? createLocalCounters({ now });
  const requestsKey = (ownerId: string, at: number) => `quota:requests:${ownerId}:${utcDay(at)}`;
  const cachedPlans = new Map<string, { plan: Plan; until: number }>();
  // A plan change takes effect on the next request, not when the cached plan runs out.
  accounts.onPlanChange((ownerId) => cachedPlans.delete(ownerId));

  function checkRequests(ownerId: string, plan: Plan, count: number, at: number): void {
    const max = plan.limits.apiRequestsPerDay;
    if (max === null || count <= max) return;
    // A refused request is not one of the day's requests.
    const reset = nextUtcMidnight(at);
    counters.hit(requestsKey(ownerId, at), -1, reset - at, at);
    const retryAfter = Math.max(1, Math.ceil((reset - at) / 1000));
    throw limitReached('apiRequestsPerDay', plan, max, max, 1, {
      headers: { 'Retry-After': String(retryAfter) },
      resetsAt: new Date(reset).toISOString(),
    });
  }

  return {
    enabled: deps.enabled,

    /**
     * Refuses with 402 PLAN_LIMIT_REACHED when `used()` plus `amount` would pass the owner's
     * limit. `used` is only called when limits apply, so callers pay nothing when they are off.
     */
    async assertCanAdd(ownerId: string, limit: LimitName, amount: number, used: () => Promise<number>): Promise<void> {
      if (!deps.enabled) return;
      const plan = await planOf(ownerId);
      const max = plan?.limits[limit];
      if (plan == null || max == null) return;
      const current = await used();
      if (amount > 0 && current + amount > max) throw limitReached(limit, plan, current, max, amount);
    },

    /**
     * The check split in two, for writes made in a group commit (storage/group-commit.ts): the
     * plan is read now, outside the batch; the answer is then called inside the writing unit with
     * what that unit counted through its transaction, so that the count and the write are in one
     * transaction and the units of a batch, run one after another, see each other's writes.
     * The check returns the refusal rather than throwing it (a throw makes the batch run again);
     * the caller throws it once `run` resolves. Undefined when no limit applies. `withoutUsed`:
     * the refusal does not say how much the owner uses (a caller that may not see all of it).
     */
    async limitFor(
      ownerId: string,
      limit: LimitName,
      options: { withoutUsed?: boolean } = {},
    ): Promise<((used: number, adding: number) => AppError | undefined) | undefined> {
      if (!deps.enabled) return undefined;
      const plan = await planOf(ownerId);
      const max = plan?.limits[limit];
      if (plan == null || max == null) return undefined;
      const withoutUsed = options.withoutUsed === true;
      return (used, adding) => (adding > 0 && used + adding > max ? limitReached(limit, plan, used, max, adding, { withoutUsed }) : undefined);
    },

    /**
     * Counts one authenticated request against the owner's daily quota (the access hook calls
     * it), with no round trip to the database: with PostgreSQL every node's requests count, each
     * node hearing the others' within one flush; with SQLite a restart starts the day's count
     * again. The plan is remembered for a minute; a plan change made
     * through this process reaches the counter at once (`forget`), one made elsewhere within
     * the minute.
     */
    countRequest(principal: Principal, route?: FastifyContextConfig): void | Promise<void> {
      if (!deps.enabled || principal.role === 'admin') return;
      if (route?.dailyQuotaExempt) return;
      const at = now();
      const ownerId = principal.ownerId;
      const { count } = counters.hit(requestsKey(ownerId, at), 1, nextUtcMidnight(at) - at, at);
      const cached = cachedPlans.get(ownerId);
      if (cached && cached.until > at) return checkRequests(ownerId, cached.plan, count, at);
      return planOf(ownerId).then((plan) => {
        if (!plan) return;
        if (cachedPlans.size >= PLAN_CACHE_MAX) cachedPlans.clear();
        cachedPlans.set(ownerId, { plan, until: at + PLAN_CACHE_MS });
        checkRequests(ownerId, plan, count, at);
      });
    },

    /**
     * The owner's plan and whether its limits apply to them, with today's request count across
     * every node (null when nothing is counted: limits off, or the administrator) and when that
     * count starts again.
     */
    async standing(ownerId: string): Promise<{ plan: Plan; applies: boolean; requestsToday: number | null; resetsAt: string }> {
      const user = await accounts.getUser(ownerId);
      const plan = plans.effective(user.planId);
      const at = now();
      const applies = deps.enabled && user.role !== 'admin';
      let requestsToday: number | null = null;
      if (applies) {
        // This node's latest requests first, then the total every node sent.
        await counters.flush();
        const key = requestsKey(ownerId, at);
        requestsToday = (await counters.read([key])).get(key)?.count ?? 0;
      }
      return { plan, applies, requestsToday, resetsAt: new Date(nextUtcMidnight(at)).toISOString() };
    },

    /** Drops what the request counter remembers of the owner's plan (after a plan change). */
    forget(ownerId: string): void {
      cachedPlans.delete(ownerId);
    },
  };
}

export type LimitsService = ReturnType<typeof createLimitsService>;
