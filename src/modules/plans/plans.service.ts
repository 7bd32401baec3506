import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
// Check and Errors alone, not the Value namespace: that one pulls every value operation
// (cast, convert, create, diff, ...) into the server's bundle.
import { Errors } from '@sinclair/typebox/errors';
import { Check } from '@sinclair/typebox/value';
import { ConfigError } from '../../config.js';

/**
 * The plans a user can be on, each with its price and its limits. Built in: `free` and `pro`;
 * PLANS_FILE replaces the whole list. Prices are whole minor units of the currency (cents), as
 * Stripe counts them: 900 with currency `usd` is $9.00.
 */

/** What a plan limits. `null` means unlimited. */
export const LIMIT_NAMES = ['memoryEntries', 'knowledgeBytes', 'vaultTokens', 'devices', 'apiRequestsPerDay'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type PlanLimits = Record<LimitName, number | null>;

/** How each limit reads in a message: "200 memory entries". */
export const LIMIT_LABELS: Record<LimitName, string> = {
  memoryEntries: 'memory entries',
  knowledgeBytes: 'bytes of knowledge-base content',
  vaultTokens: 'vault tokens',
  devices: 'registered devices',
  apiRequestsPerDay: 'API requests per day (UTC)',
};

export interface Plan {
  id: string;
  name: string;
  /** Per interval, in minor units of `currency` (cents). 0 for a free plan. */
  price: number;
  /** ISO 4217, lowercase, as Stripe writes it. */
  currency: string;
  interval: 'month' | 'year';
  limits: PlanLimits;
  /**
   * The recurring Stripe Price to charge. Without one, checkout describes the price inline
   * (`price_data`) from `price`, `currency` and `interval`, so no Stripe setup is needed.
   */
  stripePriceId: string | null;
}

const MiB = 1024 * 1024;

export const DEFAULT_PLANS: readonly Plan[] = [
  {
    id: 'free',
    name: 'Free',
    price: 0,
    currency: 'usd',
    interval: 'month',
    limits: { memoryEntries: 200, knowledgeBytes: 10 * MiB, vaultTokens: 5, devices: 1, apiRequestsPerDay: 5_000 },
    stripePriceId: null,
  },
  {
    id: 'pro',
    name: 'Pro',
    price: 900,
    currency: 'usd',
    interval: 'month',
    limits: { memoryEntries: 10_000, knowledgeBytes: 1024 * MiB, vaultTokens: 100, devices: 10, apiRequestsPerDay: 200_000 },
    stripePriceId: null,
  },
];

export const DEFAULT_PLAN_ID = 'free';

const LimitValue = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

const PlanFileEntry = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    price: Type.Integer({ minimum: 0 }),
    currency: Type.String({ pattern: '^[a-z]{3}$' }),
    interval: Type.Union([Type.Literal('month'), Type.Literal('year')]),
    limits: Type.Object(
      {
        memoryEntries: LimitValue,
        knowledgeBytes: LimitValue,
        vaultTokens: LimitValue,
        devices: LimitValue,
        apiRequestsPerDay: LimitValue,
      },
      { additionalProperties: false },
    ),
    stripePriceId: Type.Optional(Type.Union([Type.String({ pattern: '^price_[A-Za-z0-9_]+$' }), Type.Null()])),
  },
  { additionalProperties: false },
);

const PlansFile = Type.Union([
  Type.Object(
    { defaultPlan: Type.Optional(Type.String()), plans: Type.Array(PlanFileEntry, { minItems: 1 }) },
    { additionalProperties: false },
  ),
  Type.Array(PlanFileEntry, { minItems: 1 }),
]);

export interface PlanCatalog {
  plans: readonly Plan[];
  defaultPlanId: string;
}

/**
 * Checks a plans document (the parsed PLANS_FILE): `{ "defaultPlan"?, "plans": [...] }` or just
 * the array. The default plan is `defaultPlan`, else `free`, else the first plan priced 0; new
 * accounts get it without paying, so its price must be 0.
 */
export function parsePlans(document: unknown, source = 'PLANS_FILE'): PlanCatalog {
  if (!Check(PlansFile, document)) {
    const entries = Array.isArray(document) ? document : (document as { plans?: unknown })?.plans;
    const shape = Array.isArray(entries) ? Type.Array(PlanFileEntry) : PlansFile;
    const first = [...Errors(shape, Array.isArray(document) ? document : entries ?? document)][0];
    const where = first?.path ? ` at ${Array.isArray(document) ? '' : '/plans'}${first.path}` : '';
    throw new ConfigError(
      `${source} is not a valid plans document${where}: ${first?.message ?? 'expected { "plans": [ { "id", "name", "price", "currency", "interval", "limits" } ] }'}`,
    );
  }
  const parsed = document as Static<typeof PlansFile>;
  const entries = Array.isArray(parsed) ? parsed : parsed.plans;
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.id)) throw new ConfigError(`${source} names the plan "${entry.id}" twice`);
    seen.add(entry.id);
  }
  const plans: Plan[] = entries.map((entry) => ({ ...entry, limits: { ...entry.limits }, stripePriceId: entry.stripePriceId ?? null }));
  const wanted = Array.isArray(parsed) ? undefined : parsed.defaultPlan;
  const defaultPlan = wanted !== undefined ? plans.find((p) => p.id === wanted) : (plans.find((p) => p.id === DEFAULT_PLAN_ID) ?? plans.find((p) => p.price === 0));
  if (!defaultPlan) {
    throw new ConfigError(
      wanted !== undefined
        ? `${source}: defaultPlan "${wanted}" is not one of its plans (${plans.map((p) => p.id).join(', ')})`
        : `${source} needs a free plan (price 0) for new accounts, or "defaultPlan" naming one`,
    );
  }
  if (defaultPlan.price !== 0) {
    throw new ConfigError(`${source}: the default plan "${defaultPlan.id}" must have price 0, since new accounts get it without paying`);
  }
  return { plans, defaultPlanId: defaultPlan.id };
}

/** The built-in plans, or those of `file` (read and checked once, at start). */
export function loadPlans(file: string | undefined): PlanCatalog {
  if (!file) return { plans: DEFAULT_PLANS, defaultPlanId: DEFAULT_PLAN_ID };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`PLANS_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`PLANS_FILE ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parsePlans(document, `PLANS_FILE ${file}`);
}

export function createPlansService(catalog: PlanCatalog) {
  const byId = new Map(catalog.plans.map((plan) => [plan.id, plan]));
  const defaultPlan = byId.get(catalog.defaultPlanId)!;
  const ids = catalog.plans.map((plan) => plan.id);

  return {
    defaultPlanId: catalog.defaultPlanId,

    list(): readonly Plan[] {
      return catalog.plans;
    },

    ids(): readonly string[] {
      return ids;
    },

    get(id: string): Plan | undefined {
      return byId.get(id);
    },

    isKnown(id: string): boolean {
      return byId.has(id);
    },

    /**
     * The plan whose limits apply to an account on `planId`. An id no longer configured (the
     * operator removed the plan) falls back to the default plan rather than to no limits.
     */
    effective(planId: string): Plan {
      return byId.get(planId) ?? defaultPlan;
    },
  };
}

export type PlansService = ReturnType<typeof createPlansService>;
