/**
 * Approvals of services.write run to the end against a fake upstream API: a proxy call and an
 * execute call that may change something, and a connector's creation, each under `ask`; nothing
 * reaches the API (or is created) before approval, exactly one call after it, and the answer is
 * readable by the requesting token alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approveAndRead, expectHeld, outsiders, policyToken } from '../../../test/approvals.helpers.js';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let fake: FakeUpstream;
let owner: Owner;
let requester: { token: string; id: string };
let others: string[];

beforeAll(async () => {
  fake = await startFakeUpstream();
  // The fake listens on the loopback: private addresses allowed.
  t = await createTestApp({ config: { allowPrivateNetwork: true } });
  owner = await t.createOwner('Services approvals owner');
  const connector = await t.request('POST', '/api/v1/connectors', { token: owner.token, body: { name: 'widgets', baseUrl: fake.url, authType: 'none' } });
  expect(connector.status, connector.text).toBe(201);
  const scopes = ['services:read', 'services:write'];
  requester = await policyToken(t, owner, scopes, { 'services.write': 'ask' });
  others = await outsiders(t, owner, scopes);
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
});

const ask = (url: string, body: unknown) => t.request('POST', url, { token: requester.token, body });
const classOf = async (approvalId: string) => (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data.actionClass;

describe('services.write under ask', () => {
  it('a proxy call with POST reaches the API once, after approval', async () => {
    const approvalId = expectHeld(await ask('/api/v1/services/widgets/proxy', { method: 'POST', path: '/widgets', body: { name: 'approved widget' } }));
    expect(await classOf(approvalId)).toBe('services.write');
    expect(fake.requests).toEqual([]);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer.data).toMatchObject({ status: 200, encoding: 'json', body: { method: 'POST', path: '/widgets', json: { name: 'approved widget' } } });
    expect(fake.requests.map((r) => [r.method, r.path, r.body])).toEqual([['POST', '/widgets', '{"name":"approved widget"}']]);
  });

  it('an execute call with DELETE reaches the API once, after approval', async () => {
    const approvalId = expectHeld(await ask('/api/v1/services/widgets/execute', { method: 'request', params: { httpMethod: 'DELETE', path: '/widgets/7' } }));
    expect(await classOf(approvalId)).toBe('services.write');
    expect(fake.requests).toEqual([]);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer.data).toMatchObject({ status: 200, encoding: 'json', body: { method: 'DELETE', path: '/widgets/7' } });
    expect(fake.requests.map((r) => [r.method, r.path])).toEqual([['DELETE', '/widgets/7']]);
  });

  it("a connector's creation happens once, after approval", async () => {
    const named = async () => (await t.request('GET', '/api/v1/connectors', { token: owner.token })).body.data.filter((c: any) => c.name === 'approved-api');
    const approvalId = expectHeld(await ask('/api/v1/connectors', { name: 'approved-api', baseUrl: fake.url, authType: 'none' }));
    expect(await classOf(approvalId)).toBe('services.write');
    expect(await named()).toEqual([]);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others }, 201);
    expect(answer.data).toMatchObject({ name: 'approved-api', baseUrl: fake.url });
    expect((await named()).map((c: any) => c.id)).toEqual([answer.data.id]);
  });
});
