// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config.js';
import { createPlansService, DEFAULT_PLANS, loadPlans, parsePlans } from './plans.service.js';

const limits = { memoryEntries: 1, knowledgeBytes: 2, vaultTokens: 3, devices: 4, apiRequestsPerDay: 5 };
const plan = (overrides: Record<string, unknown> = {}) => ({ id: 'basic', name: 'Basic', price: 0, currency: 'usd', interval: 'month', limits, ...overrides });

function file(text: string): string {
  const name = path.join(tmpdir(), `hearth-plans-${randomBytes(6).toString('hex')}.json`);
  writeFileSync(name, text);
  return name;
}

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('built-in plans', () => {
  it('a free plan for new accounts and a paid plan, every limit set', () => {
    const catalog = loadPlans(undefined);
    expect(catalog.defaultPlanId).toBe('free');
    expect(DEFAULT_PLANS.map((p) => [p.id, p.price])).toEqual([
      ['free', 0],
      ['pro', 900],
    ]);
    for (const p of DEFAULT_PLANS) expect(Object.values(p.limits).every((v) => typeof v === 'number' && v > 0)).toBe(true);
  });

  it('an account on a plan no longer configured gets the default plan\'s limits', () => {
    const plans = createPlansService(loadPlans(undefined));
    expect(plans.effective('retired').id).toBe('free');
    expect(plans.effective('pro').id).toBe('pro');
  });
});

describe('PLANS_FILE', () => {
  it('takes { plans } or a bare array; the default is defaultPlan, else "free", else the first plan priced 0', () => {
    expect(parsePlans({ plans: [plan({ id: 'paid', price: 100 }), plan()] }).defaultPlanId).toBe('basic');
    expect(parsePlans([plan({ id: 'free' }), plan({ id: 'zero' })]).defaultPlanId).toBe('free');
    expect(parsePlans({ defaultPlan: 'zero', plans: [plan({ id: 'free' }), plan({ id: 'zero' })] }).defaultPlanId).toBe('zero');
    const parsed = parsePlans([plan({ limits: { ...limits, devices: null } }), plan({ id: 'paid', price: 5, stripePriceId: 'price_123' })]);
    expect(parsed.plans[0]!.limits.devices).toBeNull();
    expect(parsed.plans[0]!.stripePriceId).toBeNull();
    expect(parsed.plans[1]!.stripePriceId).toBe('price_123');
  });

  it('refuses what it cannot use, saying where', () => {
    expect(configError(() => parsePlans({ plans: [] }))).toContain('not a valid plans document');
    expect(configError(() => parsePlans([plan({ price: 9.5 })]))).toContain('/0/price');
    expect(configError(() => parsePlans({ plans: [plan({ currency: 'USD' })] }))).toContain('/plans/0/currency');
    expect(configError(() => parsePlans([plan({ limits: { ...limits, devices: undefined } })]))).toContain('/0/limits');
    expect(configError(() => parsePlans([plan({ limits: { ...limits, memoryEntrys: 3 } })]))).toContain('/0/limits');
    expect(configError(() => parsePlans([plan({ interval: 'week' })]))).toContain('/0/interval');
    expect(configError(() => parsePlans([plan({ stripePriceId: 'prod_1' })]))).toContain('stripePriceId');
    expect(configError(() => parsePlans([plan(), plan()]))).toContain('"basic" twice');
    expect(configError(() => parsePlans([plan({ price: 100 })]))).toContain('needs a free plan');
    expect(configError(() => parsePlans({ defaultPlan: 'gold', plans: [plan()] }))).toContain('defaultPlan "gold"');
    expect(configError(() => parsePlans({ defaultPlan: 'paid', plans: [plan(), plan({ id: 'paid', price: 1 })] }))).toContain('must have price 0');
  });

  it('a missing or broken file is a configuration error (the server stops at start, saying why)', () => {
    expect(configError(() => loadPlans('/nonexistent/plans.json'))).toContain('cannot be read');
    expect(configError(() => loadPlans(file('{ not json')))).toContain('not valid JSON');
    expect(configError(() => loadPlans(file('[]')))).toContain('not a valid plans document');
    expect(loadPlans(file(JSON.stringify([plan()]))).plans.map((p) => p.id)).toEqual(['basic']);
  });
});
