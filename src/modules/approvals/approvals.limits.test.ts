/**
 * Held requests are bounded: pending approvals per token, per owner, and the bytes of an owner's
 * held bodies. Past a limit the request is refused (429 with Retry-After, nothing stored) until
 * the owner decides or a pending one expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeld, policyToken } from '../../../test/approvals.helpers.js';
import { createTestApp, expectError, type ApiResponse, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ config: { approvalLimits: { pendingPerToken: 3, pendingPerOwner: 5, pendingBytesPerOwner: 64 * 1024 } } });
});
afterAll(async () => t?.close());

const trash = (token: string, n: number) => t.request('DELETE', `/api/v1/services/google/mail/messages/msg${n}`, { token });
const send = (token: string, text: string) => t.request('POST', '/api/v1/services/google/mail/send', { token, body: { to: 'ann@example.org', subject: 'big', body: text } });
const storedBytes = async (ownerId: string) =>
  (await t.storage.db.selectFrom('approvals').select('body_sealed').where('owner_id', '=', ownerId).execute()).reduce((sum, row) => sum + (row.body_sealed?.length ?? 0), 0);

function expectTooMany(res: ApiResponse, words: string) {
  const error = expectError(res, 429, 'RATE_LIMITED');
  expect(error.message).toContain(words);
  expect(error.message).toContain('approve or deny');
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  return error;
}

describe('pending approvals are bounded', () => {
  it('the default limits', () => {
    expect(loadConfig({}).approvalLimits).toEqual({ pendingPerToken: 20, pendingPerOwner: 100, pendingBytesPerOwner: 64 * 1024 * 1024 });
    expect(loadConfig({ APPROVAL_MAX_PENDING_PER_TOKEN: '5', APPROVAL_MAX_PENDING_PER_OWNER: '7', APPROVAL_MAX_PENDING_BYTES: '1048576' }).approvalLimits).toEqual({
      pendingPerToken: 5,
      pendingPerOwner: 7,
      pendingBytesPerOwner: 1048576,
    });
  });

  it('per token: past the limit 429, even when the requests arrive at once; a decision makes room', async () => {
    const owner = await t.createOwner('Limits per token');
    const agent = await policyToken(t, owner, ['services:write'], { 'mail.trash': 'ask' });
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => trash(agent.token, n)));
    const held = answers.filter((res) => res.status === 202).map(expectHeld);
    expect(held).toHaveLength(3);
    const refused = answers.filter((res) => res.status !== 202);
    expect(refused).toHaveLength(3);
    for (const res of refused) expect(expectTooMany(res, 'This token already has 3 requests waiting').details).toMatchObject({ limit: 3, pending: 3 });
    expect(await t.storage.db.selectFrom('approvals').select('id').where('owner_id', '=', owner.id).execute()).toHaveLength(3);

    // Another token of the same owner still has room; the owner's decision frees this one's.
    expectHeld(await trash((await policyToken(t, owner, ['services:write'], { 'mail.trash': 'ask' })).token, 7));
    expect((await t.request('POST', `/api/v1/approvals/${held[0]}/deny`, { token: owner.token })).status).toBe(200);
    expectHeld(await trash(agent.token, 8));
    expectTooMany(await trash(agent.token, 9), 'This token already has 3');
  });

  it('per owner: past the limit 429 for every token of the owner, and not for another owner', async () => {
    const owner = await t.createOwner('Limits per owner');
    const agents = await Promise.all([1, 2].map(() => policyToken(t, owner, ['services:write'], { 'mail.trash': 'ask' })));
    for (let n = 0; n < 5; n++) expectHeld(await trash(agents[n % 2]!.token, n));
    const error = expectTooMany(await trash(agents[1]!.token, 5), 'The owner already has 5 requests waiting');
    expect(error.details).toMatchObject({ limit: 5, pending: 5 });
    const other = await t.createOwner('Limits other owner');
    expectHeld(await trash((await policyToken(t, other, ['services:write'], { 'mail.trash': 'ask' })).token, 1));
  });

  it('bytes per owner: held bodies stop at the limit, and a body larger than the whole limit is 413', async () => {
    const owner = await t.createOwner('Limits bytes');
    const agent = await policyToken(t, owner, ['services:write'], { 'mail.send': 'ask' });
    expectHeld(await send(agent.token, 'a'.repeat(30_000)));
    const error = expectTooMany(await send(agent.token, 'b'.repeat(30_000)), 'would pass the 64 KiB an account may hold');
    expect(error.details).toMatchObject({ limitBytes: 64 * 1024 });
    expect(await storedBytes(owner.id)).toBeLessThanOrEqual(64 * 1024);
    expectError(await send(agent.token, 'c'.repeat(60_000)), 413, 'PAYLOAD_TOO_LARGE');
    // Small ones still fit beside the big one.
    expectHeld(await send(agent.token, 'small'));
    expect(await storedBytes(owner.id)).toBeLessThanOrEqual(64 * 1024);
  });

  it('with the default limits, the review’s ten held 10 MiB writes keep three', async () => {
    const defaults = await createTestApp();
    try {
      const owner = await defaults.createOwner('Limits defaults');
      const agent = await policyToken(defaults, owner, ['devices'], { 'devices.write': 'ask' });
      const content = Buffer.alloc(10 * 1024 * 1024, 7).toString('base64');
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await defaults.request('POST', '/api/v1/afp/dev_0000000000000000000000000/write', { token: agent.token, body: { path: `/big/${i}.bin`, content, encoding: 'base64' } });
        statuses.push(res.status);
        if (res.status !== 202) expect(expectError(res, 429, 'RATE_LIMITED').message).toContain('64 MiB an account may hold');
      }
      expect(statuses).toEqual([202, 202, 202, 429, 429, 429, 429, 429, 429, 429]);
      const rows = await defaults.storage.db.selectFrom('approvals').select('body_sealed').where('owner_id', '=', owner.id).execute();
      expect(rows.reduce((sum, row) => sum + (row.body_sealed?.length ?? 0), 0)).toBeLessThanOrEqual(64 * 1024 * 1024);
    } finally {
      await defaults.close();
    }
  }, 60_000);
});
