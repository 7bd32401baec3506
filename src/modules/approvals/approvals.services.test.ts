/**
 * Approvals of services.write run to the end against a fake upstream API: a proxy call and an
 * execute call that may change something, and a connector's creation, each under `ask`; nothing
 * reaches the API (or is created) before approval, exactly one call after it, and the answer is
 * readable by the requesting token alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listen } from '../../../test/afp.helpers.js';
import { approveAndRead, expectHeld, outsiders, policyToken } from '../../../test/approvals.helpers.js';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { rawJson } from '../../../test/raw-http.js';

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

describe('the address that runs is the address held', () => {
  it('a path that a URL parser reads as another route is refused, never held', async () => {
    for (const name of ['harmless', 'target']) {
      const made = await t.request('POST', '/api/v1/connectors', { token: owner.token, body: { name, baseUrl: `${fake.url}/${name}`, authType: 'none' } });
      expect(made.status, made.text).toBe(201);
    }
    const base = await listen(t);
    const pending = async () => (await t.request('GET', '/api/v1/approvals', { token: owner.token, query: { status: 'pending', limit: 200 } })).body.data.length;
    const before = await pending();
    const auth = { authorization: `Bearer ${requester.token}` };
    const body = { method: 'POST', path: '/hooks', body: { x: 1 } };
    // The review's attack: held as the service `harmless\..\target`, replayed (URL-normalized) as `target`.
    for (const raw of ['/api/v1/services/harmless\\..\\target/proxy', '/api/v1/services/harmless%5C..%5Ctarget/proxy', '/api/v1/services/harmless%5c%2e%2e%5ctarget/proxy']) {
      const res = await rawJson(base, 'POST', raw, body, auth);
      expect(res.status, `${raw}: ${res.body}`).toBe(400);
      const error = JSON.parse(res.body);
      expect(error).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'path' }] });
      expect(error.message).toContain('cannot be held');
    }
    // A dot segment, encoded so that the router keeps it as an id (a URL parser would resolve it).
    const memoryAgent = await policyToken(t, owner, ['memory'], { 'memory.delete': 'ask' });
    for (const raw of ['/api/v1/memory/%2e%2e', '/api/v1/memory/%2E']) {
      const res = await rawJson(base, 'DELETE', raw, undefined, { authorization: `Bearer ${memoryAgent.token}` });
      expect(res.status, `${raw}: ${res.body}`).toBe(400);
    }
    expect(await pending()).toBe(before);
    expect(fake.requests).toEqual([]);
  });

  it('the held path is the raw path (the query token removed), and the replay runs it', async () => {
    const approvalId = expectHeld(await t.request('POST', `/api/v1/services/widgets/proxy?token=${requester.token}`, { body: { method: 'PUT', path: '/widgets/9', body: { n: 9 } } }));
    const data = (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data;
    expect(data.path).toBe('/api/v1/services/widgets/proxy');
    expect(data.request).toMatchObject({ method: 'POST', path: '/api/v1/services/widgets/proxy' });
    expect(JSON.stringify(data)).not.toContain(requester.token);
    expect(data.description).toBe('test services:read services:write wants to send `PUT` `/widgets/9` to the API of the service `widgets`, a body of 7 characters (open the request to read it)');
    expect(data.request.fields.map((f: any) => [f.name, f.value])).toEqual([
      ['method', 'PUT'],
      ['path', '/widgets/9'],
      ['body.n', 9],
    ]);
    await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(fake.requests.map((r) => [r.method, r.path])).toEqual([['PUT', '/widgets/9']]);
  });

  it('a service call with an unknown query parameter is refused', async () => {
    const res = await t.request('POST', '/api/v1/services/widgets/proxy?path=/harmless', { token: requester.token, body: { method: 'DELETE', path: '/widgets/1' } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fake.requests).toEqual([]);
  });
});
