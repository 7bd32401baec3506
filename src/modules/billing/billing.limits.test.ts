import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, listen, type TestDaemon } from '../../../test/afp.helpers.js';
import { createTestApp, ENGINE, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';
import type { Principal } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { createLimitsService } from './billing.limits.js';
import { createPlansService, parsePlans, type PlanLimits } from '../plans/plans.service.js';

const unlimited: PlanLimits = { memoryEntries: null, knowledgeBytes: null, vaultTokens: null, devices: null, apiRequestsPerDay: null };

/** Plans small enough to reach each limit with a few records. The default is `tiny`, the first priced 0. */
const TEST_PLANS = {
  plans: [
    {
      id: 'tiny',
      name: 'Tiny',
      price: 0,
      currency: 'usd',
      interval: 'month',
      limits: { memoryEntries: 2, knowledgeBytes: 100, vaultTokens: 1, devices: 1, apiRequestsPerDay: 1000 },
    },
    { id: 'metered', name: 'Metered', price: 500, currency: 'usd', interval: 'month', limits: { ...unlimited, apiRequestsPerDay: 5 } },
    { id: 'roomy', name: 'Roomy', price: 900, currency: 'usd', interval: 'month', limits: unlimited },
  ],
};

function writePlansFile(document: unknown): string {
  const file = path.join(tmpdir(), `hearth-plans-${randomBytes(6).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

let t: TestApp;
let admin: Owner;

beforeAll(async () => {
  // PLAN_LIMITS=on without Stripe: limits apply whether or not payments are configured.
  t = await createTestApp({ config: { planLimits: true, plansFile: writePlansFile(TEST_PLANS) } });
  admin = await t.createOwner('Admin');
});
afterAll(async () => t.close());

function expectLimit(res: ApiResponse, limit: string, used: number, max: number, planId = 'tiny') {
  const body = expectError(res, 402, 'PLAN_LIMIT_REACHED');
  expect(body.message).toContain(limit);
  expect(body.details).toMatchObject({ limit, used, max, planId });
  return body;
}

async function setPlan(owner: Owner, planId: string): Promise<void> {
  const res = await t.request('PUT', `/api/v1/users/${owner.id}/plan`, { token: admin.token, body: { planId } });
  expect(res.status).toBe(200);
}

describe('memoryEntries', () => {
  const remember = (owner: Owner, content: string) => t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });

  it('refuses the entry past the limit with 402 naming it; deleting one makes room', async () => {
    const user = await t.createOwner();
    expect((await remember(user, 'one')).status).toBe(201);
    const second = await remember(user, 'two');
    expect(second.status).toBe(201);
    expectLimit(await remember(user, 'three'), 'memoryEntries', 2, 2);
    expect((await t.request('GET', '/api/v1/memory', { token: user.token })).body.data).toHaveLength(2);

    await t.request('DELETE', `/api/v1/memory/${second.body.data.id}`, { token: user.token });
    expect((await remember(user, 'three')).status).toBe(201);
    // Changing an entry adds nothing.
    const list = await t.request('GET', '/api/v1/memory', { token: user.token });
    expect((await t.request('PATCH', `/api/v1/memory/${list.body.data[0].id}`, { token: user.token, body: { content: 'changed' } })).status).toBe(200);
  });

  it('tells a token limited to memory tags the limit, not how many entries the owner stores, on creation and import', async () => {
    const user = await t.createOwner();
    expect((await remember(user, 'a private note')).status).toBe(201);
    expect((await remember(user, 'another private note')).status).toBe(201);
    const made = await t.request('POST', '/api/v1/tokens', { token: user.token, body: { name: 'Work agent', scopes: ['memory'], memoryTags: ['work'] } });
    expect(made.status).toBe(201);
    const work = made.body.data.token as string;
    const refusals = [
      await t.request('POST', '/api/v1/memory', { token: work, body: { content: 'a work note' } }),
      await t.request('POST', '/api/v1/memory/import', { token: work, body: { format: 'text', content: '- One\n- Two' } }),
      await t.request('POST', '/api/v1/memory/import', { token: work, body: { format: 'text', content: '- One\n- Two', dryRun: true } }),
    ];
    for (const res of refusals) {
      const body = expectError(res, 402, 'PLAN_LIMIT_REACHED');
      expect(body.details).toMatchObject({ limit: 'memoryEntries', max: 2, planId: 'tiny' });
      expect(body.details).not.toHaveProperty('used');
      expect(body.message).toContain('allows 2 memory entries');
      expect(body.message).not.toContain('in use');
      expect(body.message).not.toMatch(/stored/);
    }
    // The owner is still told the count.
    expectLimit(await remember(user, 'a third'), 'memoryEntries', 2, 2);
  });

  // The count and the insert are one unit of a group commit, and on SQLite batches run one at a
  // time, their units one after another: concurrent creations cannot pass the limit together.
  it.runIf(ENGINE === 'sqlite')('a burst of concurrent creations stops exactly at the limit', async () => {
    const user = await t.createOwner();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => remember(user, `burst ${i}`)));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(2);
    for (const res of answers.filter((r) => r.status !== 201)) expectLimit(res, 'memoryEntries', 2, 2);
    expect((await t.request('GET', '/api/v1/memory', { token: user.token })).body.data).toHaveLength(2);
  });

  it('counts per owner, and a larger plan lifts the limit', async () => {
    const user = await t.createOwner();
    const other = await t.createOwner();
    await remember(user, 'a');
    await remember(user, 'b');
    expect((await remember(other, 'mine')).status).toBe(201);
    expectLimit(await remember(user, 'c'), 'memoryEntries', 2, 2);
    await setPlan(user, 'roomy');
    expect((await remember(user, 'c')).status).toBe(201);
  });

  it('the administrator is never limited', async () => {
    for (let i = 0; i < 4; i++) expect((await remember(admin, `admin note ${i}`)).status).toBe(201);
  });
});

describe('knowledgeBytes', () => {
  const KB = '/api/v1/brain/knowledge-base';
  const text = (bytes: number) => 'x'.repeat(bytes);

  it('checks the total stored text after each create, upsert, update and upload', async () => {
    const user = await t.createOwner();
    const a = await t.request('POST', KB, { token: user.token, body: { title: 'A', content: text(60) } });
    expect(a.status).toBe(200);
    // 60 + 50 > 100.
    const refused = expectLimit(await t.request('POST', KB, { token: user.token, body: { title: 'B', content: text(50) } }), 'knowledgeBytes', 60, 100);
    expect(refused.details).toMatchObject({ adding: 50 });
    // Multi-byte text counts in bytes of UTF-8: 20 × "é" is 40 bytes, 60 + 40 = 100 fits exactly.
    expect((await t.request('POST', KB, { token: user.token, body: { title: 'B', content: 'é'.repeat(20) } })).status).toBe(200);

    // Growing a document in place counts only the growth: A from 60 to 61 makes 101.
    expectLimit(await t.request('PUT', `${KB}/${a.body.data.id}`, { token: user.token, body: { content: text(61) } }), 'knowledgeBytes', 100, 100);
    expectLimit(await t.request('POST', `${KB}/upsert`, { token: user.token, body: { title: 'A', content: text(61) } }), 'knowledgeBytes', 100, 100);
    expectLimit(await t.request('POST', `${KB}/upsert`, { token: user.token, body: { title: 'C', content: text(1) } }), 'knowledgeBytes', 100, 100);

    // Shrinking is always allowed, and frees room.
    expect((await t.request('PUT', `${KB}/${a.body.data.id}`, { token: user.token, body: { content: text(30) } })).status).toBe(200);
    expect((await t.request('POST', `${KB}/upsert`, { token: user.token, body: { title: 'A', content: text(40) } })).body.action).toBe('updated');
    expect((await t.request('POST', `${KB}/upsert`, { token: user.token, body: { title: 'C', content: text(20) } })).body.action).toBe('created');

    // Uploads are checked on the text extracted from the file.
    const boundary = `----limits-${randomBytes(6).toString('hex')}`;
    const form = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n${text(10)}\r\n--${boundary}--\r\n`,
    );
    const upload = await t.request('POST', `${KB}/upload`, { token: user.token, body: form, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expectLimit(upload, 'knowledgeBytes', 100, 100);
  });

  it('an update of an unknown document is 404, not the limit', async () => {
    const user = await t.createOwner();
    await t.request('POST', KB, { token: user.token, body: { title: 'Full', content: text(100) } });
    expectError(await t.request('PUT', `${KB}/doc_unknown`, { token: user.token, body: { content: text(50) } }), 404, 'NOT_FOUND');
  });
});

describe('vaultTokens', () => {
  const store = (owner: Owner, name: string) =>
    t.request('POST', '/api/v1/vault/tokens', {
      token: owner.token,
      body: { name, service: 'github', token: `ghp_${randomBytes(16).toString('hex')}`, websiteUrl: 'https://github.com' },
    });

  it('refuses the token past the limit with 402; deleting one makes room', async () => {
    const user = await t.createOwner();
    const first = await store(user, 'first');
    expect(first.status).toBe(201);
    expectLimit(await store(user, 'second'), 'vaultTokens', 1, 1);
    expect((await t.request('DELETE', `/api/v1/vault/tokens/${first.body.data.id}`, { token: user.token })).status).toBe(200);
    expect((await store(user, 'second')).status).toBe(201);
  });
});

describe('apiRequestsPerDay', () => {
  it('counts authenticated requests per owner per UTC day; past the quota 402 with Retry-After until midnight UTC', async () => {
    const user = await t.createOwner();
    // Set before the user's first authenticated request.
    await setPlan(user, 'metered');
    for (let i = 0; i < 5; i++) expect((await t.request('GET', '/api/v1/memory', { token: user.token })).status).toBe(200);
    const res = await t.request('GET', '/api/v1/memory', { token: user.token });
    const body = expectLimit(res, 'apiRequestsPerDay', 5, 5, 'metered');
    const resetsAt = Date.parse((body.details as { resetsAt: string }).resetsAt);
    expect(new Date(resetsAt).toISOString()).toMatch(/T00:00:00\.000Z$/);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(Date.now() + retryAfter * 1000 - resetsAt)).toBeLessThan(5000);
    // Refused requests are not counted as used.
    expect(expectError(await t.request('GET', '/api/v1/memory', { token: user.token }), 402, 'PLAN_LIMIT_REACHED').details).toMatchObject({ used: 5 });
  });

  it('every token of the owner counts together; public requests and billing do not count', async () => {
    const user = await t.createOwner();
    await setPlan(user, 'metered');
    const memoryToken = await t.tokenWithScopes(user, ['memory']);
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/api/v1/', {})).status).toBe(200);
    expect((await t.request('GET', '/api/v1/memory', { token: memoryToken })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/memory', { token: user.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/memory', { token: memoryToken })).status).toBe(200);
    // The token creation above was the owner's first authenticated request: 4 used so far.
    expect((await t.request('GET', '/api/v1/memory', { token: user.token })).status).toBe(200);
    expectLimit(await t.request('GET', '/api/v1/memory', { token: memoryToken }), 'apiRequestsPerDay', 5, 5, 'metered');
    // A capped owner can still see the plans and reach checkout to upgrade (here: payments are not configured).
    expect((await t.request('GET', '/api/v1/billing/plans', { token: user.token })).status).toBe(200);
    expectError(await t.request('POST', '/api/v1/billing/checkout', { token: user.token, body: { planId: 'roomy' } }), 503, 'PROVIDER_NOT_CONFIGURED');
  });

  it('a plan change reaches the counter at once', async () => {
    const user = await t.createOwner();
    await setPlan(user, 'metered');
    for (let i = 0; i < 5; i++) await t.request('GET', '/api/v1/memory', { token: user.token });
    expectError(await t.request('GET', '/api/v1/memory', { token: user.token }), 402, 'PLAN_LIMIT_REACHED');
    await setPlan(user, 'roomy');
    expect((await t.request('GET', '/api/v1/memory', { token: user.token })).status).toBe(200);
  });

  it('the administrator is never limited, whatever the plan', async () => {
    await setPlan(admin, 'metered');
    try {
      for (let i = 0; i < 8; i++) expect((await t.request('GET', '/api/v1/memory', { token: admin.token })).status).toBe(200);
    } finally {
      await setPlan(admin, 'tiny');
    }
  });

  it('the count starts again at midnight UTC (service, with its clock)', async () => {
    let now = Date.parse('2030-01-01T23:59:58.000Z');
    const plans = createPlansService(parsePlans(TEST_PLANS));
    const limits = createLimitsService({
      enabled: true,
      plans,
      accounts: {
        getUser: async (id: string) => ({ id, email: 'x@example.test', name: null, role: 'user', planId: 'metered', createdAt: '', updatedAt: '', disabled: false, disabledAt: null }),
        onPlanChange: () => {},
      },
      now: () => now,
    });
    const principal: Principal = { tokenId: 'tok_1', ownerId: 'usr_1', kind: 'api', allScopes: false, scopes: new Set(), role: 'user', name: 'test', agent: null };
    for (let i = 0; i < 5; i++) await limits.countRequest(principal);
    let refusal: unknown;
    try {
      await limits.countRequest(principal);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).headers['Retry-After']).toBe('2');
    now += 2000; // 2030-01-02T00:00:00Z
    await expect(Promise.resolve(limits.countRequest(principal))).resolves.toBeUndefined();
  });
});

describe('devices', () => {
  it('a daemon registering a device past the limit is refused and told why; a known device reconnects', async () => {
    const base = await listen(t);
    const root = mkdtempSync(path.join(tmpdir(), 'hearth-limits-afp-'));
    const user = await t.createOwner();
    const token = await t.tokenWithScopes(user, ['devices']);
    const links: TestDaemon[] = [];
    try {
      const first = await connectDaemon(base, { token, name: 'desktop', root, privilege: 'read' });
      links.push(first);
      await expect(connectDaemon(base, { token, name: 'laptop', root, privilege: 'read' })).rejects.toThrow(/Plan limit reached: devices/);
      const devices = await t.request('GET', '/api/v1/afp/devices', { token });
      expect(devices.body.data.map((d: { name: string }) => d.name)).toEqual(['desktop']);

      // The device already registered is not a new one: it may always reconnect.
      await first.link.stop();
      const again = await connectDaemon(base, { token, name: 'desktop', root, privilege: 'read', deviceKey: first.deviceKey });
      links.push(again);
      expect(again.deviceId).toBe(first.deviceId);

      // Removing it makes room for another.
      await again.link.stop();
      expect((await t.request('DELETE', `/api/v1/afp/devices/${first.deviceId}`, { token: user.token })).status).toBe(200);
      links.push(await connectDaemon(base, { token, name: 'laptop', root, privilege: 'read' }));
    } finally {
      await Promise.all(links.map((d) => d.link.stop()));
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('limits off', () => {
  it('without PLAN_LIMITS or a Stripe key nothing is limited, and nothing is counted', async () => {
    const off = await createTestApp({ config: { planLimits: false, plansFile: writePlansFile(TEST_PLANS) } });
    try {
      await off.createOwner('Admin');
      const user = await off.createOwner();
      expect(off.container.limits.enabled).toBe(false);
      for (let i = 0; i < 4; i++) {
        expect((await off.request('POST', '/api/v1/memory', { token: user.token, body: { content: `n${i}` } })).status).toBe(201);
      }
      expect((await off.request('POST', '/api/v1/brain/knowledge-base', { token: user.token, body: { title: 'Big', content: 'x'.repeat(500) } })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const res = await off.request('POST', '/api/v1/vault/tokens', {
          token: user.token,
          body: { name: `t${i}`, service: 'github', token: `ghp_${randomBytes(16).toString('hex')}`, websiteUrl: 'https://github.com' },
        });
        expect(res.status).toBe(201);
      }
    } finally {
      await off.close();
    }
  });
});
