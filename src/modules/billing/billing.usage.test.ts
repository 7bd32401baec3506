import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

/** GET /api/v1/billing/usage: the owner's plan and what they use of each of its limits. */

const PLANS = {
  plans: [
    {
      id: 'tiny',
      name: 'Tiny',
      price: 0,
      currency: 'usd',
      interval: 'month',
      limits: { memoryEntries: 5, knowledgeBytes: 1000, vaultTokens: 2, devices: 1, apiRequestsPerDay: 100 },
    },
    {
      id: 'roomy',
      name: 'Roomy',
      price: 900,
      currency: 'usd',
      interval: 'month',
      limits: { memoryEntries: null, knowledgeBytes: null, vaultTokens: null, devices: null, apiRequestsPerDay: null },
    },
  ],
};
const plansFile = path.join(tmpdir(), `hearth-usage-plans-${randomBytes(6).toString('hex')}.json`);
writeFileSync(plansFile, JSON.stringify(PLANS));

const usage = (t: TestApp, token: string) => t.request('GET', '/api/v1/billing/usage', { token });

/** Stores one of each counted record: two memory entries, an 11-byte document, a vault token. */
async function fill(t: TestApp, owner: Owner): Promise<void> {
  for (const content of ['one', 'two']) expect((await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } })).status).toBe(201);
  expect((await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Note', content: 'hello world' } })).status).toBe(200);
  const vault = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: { name: 'gh', service: 'github', token: `ghp_${randomBytes(16).toString('hex')}`, websiteUrl: 'https://github.com' },
  });
  expect(vault.status).toBe(201);
}

const nextUtcMidnight = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
};

describe('with plan limits on', () => {
  let t: TestApp;
  let admin: Owner;
  beforeAll(async () => {
    t = await createTestApp({ config: { planLimits: true, plansFile } });
    admin = await t.createOwner('Admin');
  });
  afterAll(async () => {
    await t.close();
    rmSync(plansFile, { force: true });
  });

  it("answers the plan's limits beside what the owner stores and the requests counted today", async () => {
    const user = await t.createOwner('User');
    await fill(t, user);
    // Counted requests: the four writes of fill() and this list (billing routes are not counted).
    expect((await t.request('GET', '/api/v1/memory', { token: user.token })).status).toBe(200);
    const res = await usage(t, user.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        plan: { id: 'tiny', name: 'Tiny' },
        limitsApply: true,
        usage: {
          memoryEntries: { used: 2, limit: 5 },
          knowledgeBytes: { used: 11, limit: 1000 },
          vaultTokens: { used: 1, limit: 2 },
          devices: { used: 0, limit: 1 },
          apiRequestsPerDay: { used: 5, limit: 100, resetsAt: nextUtcMidnight() },
        },
      },
    });
    // Asking does not count against the day.
    expect((await usage(t, user.token)).body.data.usage.apiRequestsPerDay.used).toBe(5);
  });

  it('answers null limits on an unlimited plan', async () => {
    const user = await t.createOwner('Roomy User');
    expect((await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: { planId: 'roomy' } })).status).toBe(200);
    const body = (await usage(t, user.token)).body.data;
    expect(body.plan).toEqual({ id: 'roomy', name: 'Roomy' });
    expect(body.limitsApply).toBe(true);
    for (const meter of Object.values(body.usage) as Array<{ limit: unknown }>) expect(meter.limit).toBeNull();
  });

  it('answers no limits for the administrator, whom no plan limits', async () => {
    await fill(t, admin);
    const body = (await usage(t, admin.token)).body.data;
    expect(body.limitsApply).toBe(false);
    expect(body.usage.memoryEntries).toEqual({ used: 2, limit: null });
    expect(body.usage.apiRequestsPerDay).toEqual({ used: null, limit: null, resetsAt: nextUtcMidnight() });
  });

  it("counts the caller's records only, for a login session too", async () => {
    const user = await t.createOwner('Empty');
    const session = await t.login(user);
    const body = (await usage(t, session)).body.data;
    expect(body.usage.memoryEntries).toEqual({ used: 0, limit: 5 });
    expect(body.usage.knowledgeBytes).toEqual({ used: 0, limit: 1000 });
    expect(body.usage.vaultTokens).toEqual({ used: 0, limit: 2 });
  });

  it('is the owner\'s: a scoped token is refused, no token is 401', async () => {
    const user = await t.createOwner('Scoped');
    const scoped = await t.tokenWithScopes(user, ['memory', 'read']);
    expectError(await usage(t, scoped), 403, 'FORBIDDEN');
    expectError(await t.request('GET', '/api/v1/billing/usage'), 401, 'UNAUTHORIZED');
  });
});

describe('with plan limits off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { planLimits: false } });
  });
  afterAll(async () => t.close());

  it('still counts what is stored, with no limit and no request count', async () => {
    await t.createOwner('Admin');
    const user = await t.createOwner('User');
    await fill(t, user);
    const body = (await usage(t, user.token)).body.data;
    expect(body).toMatchObject({
      plan: { id: 'free' },
      limitsApply: false,
      usage: {
        memoryEntries: { used: 2, limit: null },
        knowledgeBytes: { used: 11, limit: null },
        vaultTokens: { used: 1, limit: null },
        devices: { used: 0, limit: null },
        apiRequestsPerDay: { used: null, limit: null },
      },
    });
  });
});
