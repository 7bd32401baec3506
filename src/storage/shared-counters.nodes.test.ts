import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type Owner } from '../../test/harness.js';
import type { Config } from '../config.js';

/**
 * Two API nodes on one PostgreSQL schema, as behind a load balancer: the rate limits and the
 * plan's daily quota count every node's requests.
 */
async function twoNodes(config: Partial<Config>) {
  const a = await createTestApp({ config });
  const { app: b, container: bContainer } = await a.openNode();
  const onB = async (method: 'GET' | 'POST' | 'PUT', url: string, options: { token?: string; body?: unknown } = {}) => {
    const res = await b.inject({
      method,
      url,
      headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
      ...(options.body ? { payload: JSON.stringify(options.body) } : {}),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined };
  };
  return {
    a,
    b,
    bContainer,
    onB,
    async close() {
      await b.close();
      await a.close();
    },
  };
}

const register = (n: number) => ({ email: `node-${n}-${randomBytes(4).toString('hex')}@example.test`, password: 'a long enough password' });

describe.skipIf(ENGINE !== 'postgres')('rate limits across two nodes sharing PostgreSQL', () => {
  describe('the auth limiter (AUTH_RATE_LIMIT, exact)', () => {
    let nodes: Awaited<ReturnType<typeof twoNodes>>;
    beforeAll(async () => {
      nodes = await twoNodes({ authRateLimitPerMinute: 3 });
    });
    afterAll(async () => nodes?.close());

    it('refuses the fourth registration from one address, whichever node it reaches', async () => {
      const { a, onB } = nodes;
      expect((await a.request('POST', '/api/v1/auth/register', { body: register(1) })).status).toBe(201);
      expect((await onB('POST', '/api/v1/auth/register', { body: register(2) })).status).toBe(201);
      expect((await a.request('POST', '/api/v1/auth/register', { body: register(3) })).status).toBe(201);
      const refused = await onB('POST', '/api/v1/auth/register', { body: register(4) });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('RATE_LIMITED');
      expect(refused.body.message).toMatch(/^Too many registrations from this address; try again in \d+ s$/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await a.request('POST', '/api/v1/auth/register', { body: register(5) })).status).toBe(429);
    });

    it('password attempts per address are counted across nodes too', async () => {
      const { a, onB } = nodes;
      // The limit (3 a minute from this address) was used by the registrations' sibling key
      // only; the password checks have their own.
      const login = { email: 'nobody@example.test', password: 'wrong' };
      expect((await a.request('POST', '/api/v1/auth/login', { body: login })).status).toBe(401);
      expect((await onB('POST', '/api/v1/auth/login', { body: login })).status).toBe(401);
      expect((await a.request('POST', '/api/v1/auth/login', { body: login })).status).toBe(401);
      const refused = await onB('POST', '/api/v1/auth/login', { body: { ...login, email: 'other@example.test' } });
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/password attempts from this address/);
    });
  });

  describe('the per-token limit (TOKEN_RATE_LIMIT, approximate) and the daily quota', () => {
    let nodes: Awaited<ReturnType<typeof twoNodes>>;
    let admin: Owner;
    beforeAll(async () => {
      const plansFile = path.join(tmpdir(), `hearth-plans-${randomBytes(6).toString('hex')}.json`);
      const unlimited = { memoryEntries: null, knowledgeBytes: null, vaultTokens: null, devices: null, apiRequestsPerDay: null };
      writeFileSync(
        plansFile,
        JSON.stringify({
          plans: [
            { id: 'free', name: 'Free', price: 0, currency: 'usd', interval: 'month', limits: unlimited },
            { id: 'metered', name: 'Metered', price: 500, currency: 'usd', interval: 'month', limits: { ...unlimited, apiRequestsPerDay: 10 } },
          ],
        }),
      );
      nodes = await twoNodes({ tokenRateLimitPerMinute: 20, planLimits: true, plansFile });
      admin = await nodes.a.createOwner('Admin');
    });
    afterAll(async () => nodes?.close());

    const statuses = async (n: number, send: () => Promise<{ status: number }>) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await send()).status);
      return out;
    };
    const flushBoth = async () => {
      await nodes.a.container.counters.flush();
      await nodes.bContainer.counters.flush();
      await nodes.a.container.counters.flush();
    };

    it('a token is limited by its requests on every node, overshooting by at most what one node accepted between two flushes', async () => {
      const { a, onB } = nodes;
      const token = await a.tokenWithScopes(admin, ['memory']);
      await flushBoth();
      // 15 on each node, sent before either hears of the other (the flush is every 100 ms;
      // a node may hear sooner, which only refuses more).
      const onA = await statuses(15, () => a.request('GET', '/api/v1/memory', { token }));
      const viaB = await statuses(15, () => onB('GET', '/api/v1/memory', { token }));
      const accepted = [...onA, ...viaB].filter((s) => s === 200).length;
      // Alone, each node would accept all 15 (30); counted together, at most 20 plus one node's 15.
      expect(accepted).toBeGreaterThanOrEqual(20);
      expect(accepted).toBeLessThanOrEqual(35);
      // A node's view is refreshed by the flush that carries its next hit: one more request on
      // each may still be judged on what it knew before (within one flush interval).
      await a.request('GET', '/api/v1/memory', { token });
      await onB('GET', '/api/v1/memory', { token });
      await flushBoth();
      // Every node now knows of every request: both refuse.
      const refusedA = await a.request('GET', '/api/v1/memory', { token });
      expect(refusedA.status).toBe(429);
      expect(refusedA.body.message).toMatch(/^Too many requests with this token; try again in \d+ s$/);
      expect((await onB('GET', '/api/v1/memory', { token })).status).toBe(429);
    });

    it('the daily quota counts the owner\'s requests on every node, and the usage reports them all', async () => {
      const { a, onB } = nodes;
      const user = await a.createOwner();
      expect((await a.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: { planId: 'metered' } })).status).toBe(200);
      expect(await statuses(4, () => a.request('GET', '/api/v1/memory', { token: user.token }))).toEqual([200, 200, 200, 200]);
      expect(await statuses(4, () => onB('GET', '/api/v1/memory', { token: user.token }))).toEqual([200, 200, 200, 200]);
      await flushBoth();
      // Either node reports the 8 requests of both.
      const usageA = await a.request('GET', '/api/v1/billing/usage', { token: user.token });
      expect(usageA.body.data.usage.apiRequestsPerDay.used).toBe(8);
      expect((await onB('GET', '/api/v1/billing/usage', { token: user.token })).body.data.usage.apiRequestsPerDay.used).toBe(8);
      // One more on A and two on B reach the quota (11 counted, A's refused one taken back
      // if A's view was already fresh); A then hears of B's at its flush.
      await a.request('GET', '/api/v1/memory', { token: user.token });
      expect(await statuses(2, () => onB('GET', '/api/v1/memory', { token: user.token }))).toEqual([200, 200]);
      await flushBoth();
      const refused = await a.request('GET', '/api/v1/memory', { token: user.token });
      expect(refused.status).toBe(402);
      expect(refused.body.error).toBe('PLAN_LIMIT_REACHED');
      expect((await onB('GET', '/api/v1/memory', { token: user.token })).status).toBe(402);
    });
  });
});
