/**
 * RPC-style APIs take writes over GET (Slack's `GET /chat.postMessage?channel=…&text=…` posts a
 * message), so for them a GET is a read only when it calls a method the service declares a read.
 * A services:read token could otherwise post and delete messages with the owner's credential
 * through the pass-through, and a policy denying services.write never applied. Covered: the
 * catalogue's Slack, a connector the owner marks rpc, and a discovered API marked rpc, through the
 * pass-through, proxy and execute; a fake upstream shows that nothing is sent when refused.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approveAndRead, expectHeld, outsiders, policyToken } from '../../../test/approvals.helpers.js';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let fake: FakeUpstream;
let owner: Owner;
let readOnly: string;
let denied: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  // The fake listens on the loopback: private addresses allowed.
  t = await createTestApp({ config: { allowPrivateNetwork: true } });
  owner = await t.createOwner('RPC owner');
  readOnly = await t.tokenWithScopes(owner, ['services:read']);
  denied = (await policyToken(t, owner, ['services:read', 'services:write'], { 'services.write': 'deny' })).token;
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
});

const get = (url: string, token: string) => t.request('GET', url, { token });

function expectWriteScope(res: Awaited<ReturnType<typeof get>>, method: string): void {
  const body = expectError(res, 403, 'INSUFFICIENT_SCOPE');
  expect(body.message).toContain('services:write');
  expect(body.message).toContain(method);
  expect(body.details).toEqual({ requiredScopes: ['services:write'] });
}

describe("the catalogue's Slack (an RPC-style API)", () => {
  it('declares its style and its read methods', async () => {
    const res = await get('/api/v1/services/slack', owner.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.apiStyle).toBe('rpc');
    expect(res.body.data.readMethods).toEqual(expect.arrayContaining(['conversations.list', 'conversations.history', 'users.info', 'auth.test']));
    expect(res.body.data.readMethods).not.toContain('chat.postMessage');
    expect((await get('/api/v1/services/github', owner.token)).body.data).toMatchObject({ apiStyle: 'rest', readMethods: [] });
  });

  it('a services:read token cannot post or delete a message through the pass-through', async () => {
    expectWriteScope(await get('/api/v1/services/slack/chat.postMessage?channel=C123&text=hello', readOnly), 'chat.postMessage');
    expectWriteScope(await get('/api/v1/services/slack/chat.delete?channel=C123&ts=1700000000.000100', readOnly), 'chat.delete');
    expectWriteScope(await get('/api/v1/services/slack/conversations.archive?channel=C123', readOnly), 'conversations.archive');
  });

  it('spellings that are not exactly a declared read are writes', async () => {
    for (const path of ['/%63hat.postMessage', '//conversations.list', '/conversations.list/', '/Conversations.list', '/conversations.list%2F..%2Fchat.postMessage']) {
      const res = await get(`/api/v1/services/slack${path}?channel=C1&text=x`, readOnly);
      expect(res.status, `${path}: ${res.text}`).toBe(403);
      expect(res.body.error, path).toBe('INSUFFICIENT_SCOPE');
    }
  });

  it('a services:read token still reads (the call passes access; no Slack token is stored here)', async () => {
    for (const method of ['conversations.list', 'conversations.history?channel=C1', 'users.info?user=U1', 'auth.test']) {
      expectError(await get(`/api/v1/services/slack/${method}`, readOnly), 403, 'PROVIDER_NOT_CONNECTED');
    }
    // A REST API's GET stays a read.
    expectError(await get('/api/v1/services/github/user/repos', readOnly), 403, 'PROVIDER_NOT_CONNECTED');
  });

  it('a policy denying services.write applies to the GET writes, through the pass-through, proxy and execute', async () => {
    const deniedWrite = (res: Awaited<ReturnType<typeof get>>) => expect(expectError(res, 403, 'POLICY_DENIED').details).toEqual({ actionClass: 'services.write' });
    deniedWrite(await get('/api/v1/services/slack/chat.postMessage?channel=C123&text=hello', denied));
    deniedWrite(await t.request('POST', '/api/v1/services/slack/proxy', { token: denied, body: { method: 'GET', path: '/chat.postMessage', query: { channel: 'C123', text: 'hi' } } }));
    deniedWrite(await t.request('POST', '/api/v1/services/slack/execute', { token: denied, body: { method: 'request', params: { httpMethod: 'GET', path: '/chat.delete?channel=C1&ts=1' } } }));
    deniedWrite(await t.request('POST', '/api/v1/services/slack/execute', { token: denied, body: { method: 'listConversations' } }));
    // Reads are in no class: they pass the policy (and stop at the missing Slack token).
    expectError(await get('/api/v1/services/slack/conversations.list', denied), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('POST', '/api/v1/services/slack/proxy', { token: denied, body: { method: 'GET', path: '/conversations.list' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(
      await t.request('POST', '/api/v1/services/slack/execute', { token: denied, body: { method: 'request', params: { httpMethod: 'GET', path: '/users.info?user=U1' } } }),
      403,
      'PROVIDER_NOT_CONNECTED',
    );
  });
});

describe('a connector the owner marks rpc', () => {
  beforeAll(async () => {
    const created = await t.request('POST', '/api/v1/connectors', {
      token: owner.token,
      body: { name: 'workchat', baseUrl: `${fake.url}/api`, authType: 'none', apiStyle: 'rpc', readMethods: ['conversations.list', 'users.info'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ apiStyle: 'rpc', readMethods: ['conversations.list', 'users.info'] });
  });

  it('a services:read token reads its declared methods and cannot write over GET: nothing reaches the API', async () => {
    expectWriteScope(await get('/api/v1/services/workchat/chat.postMessage?channel=C1&text=hello', readOnly), 'chat.postMessage');
    expect(fake.requests).toEqual([]);

    const read = await get('/api/v1/services/workchat/conversations.list?limit=2', readOnly);
    expect(read.status, read.text).toBe(200);
    expect(fake.requests.map((r) => [r.method, r.url])).toEqual([['GET', '/api/conversations.list?limit=2']]);
  });

  it('under ask, a GET write waits for the owner and reaches the API once, after approval', async () => {
    const asker = await policyToken(t, owner, ['services:read', 'services:write'], { 'services.write': 'ask' });
    const others = await outsiders(t, owner, ['services:read', 'services:write']);
    const approvalId = expectHeld(await get('/api/v1/services/workchat/chat.postMessage?channel=C1&text=hello', asker.token));
    expect(fake.requests).toEqual([]);
    const approval = (await get(`/api/v1/approvals/${approvalId}`, owner.token)).body.data;
    expect(approval).toMatchObject({ actionClass: 'services.write', method: 'GET', path: '/api/v1/services/workchat/chat.postMessage?channel=C1&text=hello' });
    // What it calls is its address, the query string included: the description names all of it.
    expect(approval.description).toContain('send GET `/chat.postMessage?channel=C1&text=hello` to the API of the service `workchat`');

    await approveAndRead(t, approvalId, { owner, requester: asker.token, others });
    expect(fake.requests.map((r) => [r.method, r.url])).toEqual([['GET', '/api/chat.postMessage?channel=C1&text=hello']]);

    // A declared read is not held.
    fake.requests.length = 0;
    expect((await get('/api/v1/services/workchat/users.info?user=U1', asker.token)).status).toBe(200);
    expect(fake.requests).toHaveLength(1);
  });

  it('under deny, a GET write is refused and nothing reaches the API', async () => {
    expectError(await get('/api/v1/services/workchat/chat.delete?channel=C1&ts=1', denied), 403, 'POLICY_DENIED');
    expectError(await t.request('POST', '/api/v1/services/workchat/proxy', { token: denied, body: { method: 'GET', path: '/chat.delete', query: { ts: '1' } } }), 403, 'POLICY_DENIED');
    expect(fake.requests).toEqual([]);
  });

  it('the owner changes the reads, or turns the connector back to rest (which drops them)', async () => {
    const id = (await get('/api/v1/connectors', owner.token)).body.data.find((c: { name: string }) => c.name === 'workchat').id;
    const more = await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { readMethods: ['conversations.list', 'conversations.history'] } });
    expect(more.status, more.text).toBe(200);
    expect(more.body.data).toMatchObject({ apiStyle: 'rpc', readMethods: ['conversations.list', 'conversations.history'] });
    expectWriteScope(await get('/api/v1/services/workchat/users.info?user=U1', readOnly), 'users.info');

    const rest = await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { apiStyle: 'rest' } });
    expect(rest.body.data).toMatchObject({ apiStyle: 'rest', readMethods: [] });
    expect((await get('/api/v1/services/workchat/users.info?user=U1', readOnly)).status).toBe(200);
    const back = await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { apiStyle: 'rpc', readMethods: ['conversations.list', 'users.info'] } });
    expect(back.status, back.text).toBe(200);
  });

  it('refuses read methods on a REST connector and malformed method names', async () => {
    const rest = await t.request('POST', '/api/v1/connectors', { token: owner.token, body: { name: 'plain', baseUrl: fake.url, authType: 'none', readMethods: ['a.list'] } });
    const body = expectError(rest, 400, 'VALIDATION_ERROR');
    expect(body.details).toEqual([expect.objectContaining({ field: 'body.readMethods' })]);
    const dotted = await t.request('POST', '/api/v1/connectors', {
      token: owner.token,
      body: { name: 'dotted', baseUrl: fake.url, authType: 'none', apiStyle: 'rpc', readMethods: ['../chat.postMessage'] },
    });
    expectError(dotted, 400, 'VALIDATION_ERROR');
    // Existing connectors, and those created without the fields, are REST.
    const plain = await t.request('POST', '/api/v1/connectors', { token: owner.token, body: { name: 'plain', baseUrl: fake.url, authType: 'none' } });
    expect(plain.body.data).toMatchObject({ apiStyle: 'rest', readMethods: [] });
  });
});

describe('a discovered API the owner marks rpc', () => {
  it('reads only through its declared methods', async () => {
    const other = await t.createOwner('RPC discoverer');
    const stored = await t.request('POST', '/api/v1/vault/tokens', {
      token: other.token,
      body: { name: 'widgets key', service: 'widgets', token: fake.apiKey, websiteUrl: fake.url, discoverApi: true, apiStyle: 'rpc', readMethods: ['widgets.list'] },
    });
    expect(stored.status, stored.text).toBe(201);
    expect(stored.body.data.api).toMatchObject({ status: 'found', apiStyle: 'rpc', readMethods: ['widgets.list'] });
    const reader = await t.tokenWithScopes(other, ['services:read']);

    expectWriteScope(await get('/api/v1/services/widgets/widgets.create?name=x', reader), 'widgets.create');
    expect(fake.requests.filter((r) => r.path.includes('widgets.create'))).toEqual([]);
    const read = await get('/api/v1/services/widgets/widgets.list', reader);
    expect(read.status, read.text).toBe(200);
    expect((await get('/api/v1/services/widgets', other.token)).body.data).toMatchObject({ apiStyle: 'rpc', readMethods: ['widgets.list'] });
  });

  it('the marking needs discoverApi, and read methods need rpc', async () => {
    const base = { name: 'k', service: 'other', token: 'secret-value-1234', websiteUrl: fake.url };
    expectError(await t.request('POST', '/api/v1/vault/tokens', { token: owner.token, body: { ...base, apiStyle: 'rpc' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/vault/tokens', { token: owner.token, body: { ...base, discoverApi: true, readMethods: ['a.list'] } }), 400, 'VALIDATION_ERROR');
  });
});
