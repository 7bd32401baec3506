import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { rawGet } from '../../../test/raw-http.js';
import { loadCatalogue } from './integrations.catalogue.js';

let t: TestApp;
let fake: FakeUpstream;
const catalogue = loadCatalogue();

beforeAll(async () => {
  fake = await startFakeUpstream();
  t = await createTestApp({
    config: {
      allowPrivateNetwork: true,
      // Google's addresses keep their paths and take the fake's origin (GOOGLE_ENDPOINT_OVERRIDE).
      google: { clientId: undefined, clientSecret: undefined, endpointOverride: fake.url },
      microsoft: { clientId: undefined, clientSecret: undefined, endpointOverride: fake.url },
    },
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

async function storeToken(owner: Owner, fields: { service: string; token: string; websiteUrl?: string; discoverApi?: boolean }): Promise<string> {
  const res = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: { name: `${fields.service} key`, websiteUrl: fields.websiteUrl ?? 'http://127.0.0.1', ...fields },
  });
  if (res.status !== 201) throw new Error(`storing a vault token failed: ${res.status} ${res.text}`);
  return res.body.data.id;
}

async function createConnector(owner: Owner, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await t.request('POST', '/api/v1/connectors', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`creating a connector failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const execute = (owner: Owner | string, service: string, body: unknown) =>
  t.request('POST', `/api/v1/services/${service}/execute`, { token: typeof owner === 'string' ? owner : owner.token, body });
const proxy = (owner: Owner | string, service: string, body: unknown) =>
  t.request('POST', `/api/v1/services/${service}/proxy`, { token: typeof owner === 'string' ? owner : owner.token, body });

/** The one request the fake received. */
function onlyRequest() {
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]!;
}

describe('the catalogue through the routes', () => {
  let owner: Owner;

  beforeAll(async () => {
    owner = await t.createOwner('Catalogue Reader');
  });

  it('lists every built-in service, not connected until a credential exists', async () => {
    const res = await t.request('GET', '/api/v1/services', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(catalogue.services.length);
    const github = res.body.data.find((s: { id: string }) => s.id === 'github');
    expect(github).toEqual({
      id: 'github',
      name: 'GitHub',
      description: expect.any(String),
      category: 'developer',
      source: 'catalogue',
      authKind: 'bearer',
      connected: false,
      methodsCount: catalogue.get('github')!.methods.length + 1,
    });
    expect(res.body.data.find((s: { id: string }) => s.id === 'google')).toMatchObject({ authKind: 'oauth', connected: false });
    expect(res.body.data.find((s: { id: string }) => s.id === 'linear')).toMatchObject({ authKind: 'header' });
    expect(res.body.data.find((s: { id: string }) => s.id === 'openweathermap')).toMatchObject({ authKind: 'query' });
  });

  it('marks a service connected once a vault token is stored for it (service name in any case)', async () => {
    const fresh = await t.createOwner('Connects GitHub');
    await storeToken(fresh, { service: 'GitHub', token: 'ghp_example_token_value' });
    const res = await t.request('GET', '/api/v1/services', { token: fresh.token, query: { connected: true } });
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual(['github']);
  });

  it('filters by category and source', async () => {
    const ai = await t.request('GET', '/api/v1/services', { token: owner.token, query: { category: 'ai' } });
    expect(ai.body.data.map((s: { id: string }) => s.id).sort()).toEqual(['anthropic', 'openai']);
    const connectors = await t.request('GET', '/api/v1/services', { token: owner.token, query: { source: 'connector' } });
    expect(connectors.body.data).toEqual([]);
    expectError(await t.request('GET', '/api/v1/services', { token: owner.token, query: { source: 'elsewhere' } }), 400, 'VALIDATION_ERROR');
  });

  it('lists categories with counts; connectors add their own category', async () => {
    const res = await t.request('GET', '/api/v1/services/categories', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(
      expect.arrayContaining([
        { id: 'developer', name: 'Developer tools', description: expect.any(String), count: 2 },
        { id: 'ai', name: 'AI', description: expect.any(String), count: 2 },
        { id: 'productivity', name: 'Productivity', description: expect.any(String), count: 3 },
      ]),
    );
    expect(res.body.data.find((c: { id: string }) => c.id === 'custom')).toBeUndefined();
    const fresh = await t.createOwner('Has Connectors');
    await createConnector(fresh, { name: 'one', baseUrl: fake.url, authType: 'none' });
    await createConnector(fresh, { name: 'two', baseUrl: fake.url, authType: 'none' });
    const mine = await t.request('GET', '/api/v1/services/categories', { token: fresh.token });
    expect(mine.body.data).toContainEqual({ id: 'custom', name: 'Custom connectors', description: expect.any(String), count: 2 });
  });

  it('reads one service with how to connect it and its methods', async () => {
    const res = await t.request('GET', '/api/v1/services/github', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: 'github',
      source: 'catalogue',
      baseUrl: 'https://api.github.com',
      docsUrl: 'https://docs.github.com/rest',
      auth: { kind: 'bearer' },
      connected: false,
      connect: { how: expect.stringContaining('POST /api/v1/vault/tokens'), oauthAuthorize: null, vaultService: 'github' },
    });
    expect(res.body.data.methods).toContainEqual({ name: 'getAuthenticatedUser', description: expect.any(String), httpMethod: 'GET', path: '/user' });
    expect(res.body.data.methods).toContainEqual({ name: 'request', description: expect.any(String), httpMethod: null, path: null });
    const google = await t.request('GET', '/api/v1/services/Google', { token: owner.token });
    expect(google.body.data).toMatchObject({ id: 'google', auth: { kind: 'oauth', provider: 'google' }, connect: { oauthAuthorize: 'GET /api/v1/oauth/authorize/google' } });
    // GOOGLE_ENDPOINT_OVERRIDE moves the Google service too.
    expect(google.body.data.baseUrl).toBe(fake.url);
    // No OAuth flow for Microsoft on this server: a stored token is the way offered.
    const microsoft = await t.request('GET', '/api/v1/services/microsoft', { token: owner.token });
    expect(microsoft.body.data).toMatchObject({ auth: { kind: 'oauth', provider: 'microsoft' }, baseUrl: fake.url });
    expect(microsoft.body.data.connect).toEqual({ how: expect.stringContaining('POST /api/v1/vault/tokens (service "microsoft")'), oauthAuthorize: null, vaultService: 'microsoft' });
    const linear = await t.request('GET', '/api/v1/services/linear', { token: owner.token });
    expect(linear.body.data.auth).toEqual({ kind: 'header', headerName: 'Authorization' });
    const weather = await t.request('GET', '/api/v1/services/openweathermap', { token: owner.token });
    expect(weather.body.data.auth).toEqual({ kind: 'query', param: 'appid' });
  });

  it('lists methods with their params schemas, and the generic request', async () => {
    const res = await t.request('GET', '/api/v1/services/github/methods', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(catalogue.get('github')!.methods.length + 1);
    expect(res.body.data).toContainEqual({
      name: 'createIssue',
      description: expect.any(String),
      httpMethod: 'POST',
      path: '/repos/{owner}/{repo}/issues',
      params: expect.objectContaining({ type: 'object', required: ['owner', 'repo', 'title'] }),
    });
    const generic = res.body.data.at(-1);
    expect(generic).toMatchObject({ name: 'request', httpMethod: null, path: null, params: { type: 'object', required: ['httpMethod', 'path'] } });
  });

  it('404 for an unknown service', async () => {
    expectError(await t.request('GET', '/api/v1/services/nope', { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/services/nope/methods', { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await execute(owner, 'nope', { method: 'request', params: { httpMethod: 'GET', path: '/' } }), 404, 'NOT_FOUND');
    expectError(await proxy(owner, 'nope', { method: 'GET', path: '/' }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/services/nope/some/path', { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('execute', () => {
  let owner: Owner;
  const secret = 'bearer-secret-4b1d9e7f';

  beforeAll(async () => {
    owner = await t.createOwner('Executor');
    const bearer = await storeToken(owner, { service: 'fake-bearer', token: secret });
    const key = await storeToken(owner, { service: 'fake-key', token: fake.apiKey });
    await createConnector(owner, { name: 'bearer', baseUrl: fake.url, authType: 'bearer', vaultTokenId: bearer });
    await createConnector(owner, { name: 'keyed', baseUrl: `${fake.url}/api`, authType: 'header', headerName: 'X-Api-Key', vaultTokenId: key });
    await createConnector(owner, { name: 'queried', baseUrl: fake.url, authType: 'query', queryParam: 'api_key', vaultTokenId: key });
    await createConnector(owner, { name: 'open', baseUrl: fake.url, authType: 'none' });
  });

  it('runs request through a bearer connector: query, JSON body, credential attached, echo redacted', async () => {
    const res = await execute(owner, 'bearer', { method: 'request', params: { httpMethod: 'POST', path: '/items/a%2Fb?x=1', query: { tag: ['a', 'b'], n: 2 }, body: { hello: 'world' } } });
    expect(res.status).toBe(200);
    const seen = onlyRequest();
    expect(seen).toMatchObject({ method: 'POST', url: '/items/a%2Fb?x=1&tag=a&tag=b&n=2', body: '{"hello":"world"}' });
    expect(seen.headers).toMatchObject({ authorization: `Bearer ${secret}`, 'content-type': 'application/json' });
    expect(res.body.data).toMatchObject({ status: 200, encoding: 'json', headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-123' } });
    expect(res.body.data.body.json).toEqual({ hello: 'world' });
    // The fake echoed the Authorization header back: the caller sees it redacted.
    expect(res.body.data.body.headers.authorization).toBe('Bearer [REDACTED]');
    expect(res.text).not.toContain(secret);
  });

  it('sends a header credential, under the base path', async () => {
    const res = await execute(owner, 'keyed', { method: 'request', params: { httpMethod: 'GET', path: '/secure/widgets' } });
    expect(res.body.data.status).toBe(200);
    const seen = onlyRequest();
    expect(seen.path).toBe('/api/secure/widgets');
    expect(seen.headers['x-api-key']).toBe(fake.apiKey);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('sends a query credential', async () => {
    const res = await execute(owner, 'queried', { method: 'request', params: { httpMethod: 'GET', path: '/secure/w', query: { page: 1 } } });
    expect(res.body.data.status).toBe(200);
    expect(onlyRequest().query).toEqual({ page: ['1'], api_key: [fake.apiKey] });
    expect(res.text).not.toContain(fake.apiKey);
  });

  it('sends no credential for authType none; the upstream 401 is data, not an error', async () => {
    const res = await execute(owner, 'open', { method: 'request', params: { httpMethod: 'GET', path: '/secure/w' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer realm="fake"' }, body: { error: { code: 'invalid_api_key' } } });
    expect(onlyRequest().headers.authorization).toBeUndefined();
  });

  it('passes upstream 404 and 500 back in data.status', async () => {
    expect((await execute(owner, 'open', { method: 'request', params: { httpMethod: 'GET', path: '/fail' } })).body.data).toMatchObject({
      status: 500,
      body: { error: { code: 'internal' } },
    });
    expect((await execute(owner, 'open', { method: 'request', params: { httpMethod: 'DELETE', path: '/missing' } })).body.data.status).toBe(404);
  });

  it('answers text as text, binary as base64, 204 as empty', async () => {
    const text = await execute(owner, 'open', { method: 'request', params: { httpMethod: 'GET', path: '/text' } });
    expect(text.body.data).toMatchObject({ body: 'plain text answer', encoding: 'text' });
    const binary = await execute(owner, 'open', { method: 'request', params: { httpMethod: 'GET', path: '/binary' } });
    expect(binary.body.data.encoding).toBe('base64');
    expect([...Buffer.from(binary.body.data.body, 'base64')]).toEqual(Array.from({ length: 256 }, (_, i) => i));
    const empty = await execute(owner, 'open', { method: 'request', params: { httpMethod: 'PUT', path: '/empty', body: {} } });
    expect(empty.body.data).toMatchObject({ status: 204, body: null, encoding: 'empty' });
  });

  it('502 UPSTREAM_ERROR when the service cannot be reached', async () => {
    const fresh = await t.createOwner('Unreachable');
    await createConnector(fresh, { name: 'gone', baseUrl: `http://127.0.0.1:${await closedPort()}`, authType: 'none' });
    const error = expectError(await execute(fresh, 'gone', { method: 'request', params: { httpMethod: 'GET', path: '/x' } }), 502, 'UPSTREAM_ERROR');
    expect(error.message).toMatch(/Could not reach/);
  });

  it('validates params against the method schema, with details', async () => {
    const cases: Array<[unknown, string]> = [
      [{ method: 'createIssue', params: { owner: 'a', repo: 'b' } }, 'body.params.title'],
      [{ method: 'createIssue', params: { owner: 'a', repo: 'b', title: 5 } }, 'body.params.title'],
      [{ method: 'createIssue', params: { owner: 'a', repo: 'b', title: 't', surprise: 1 } }, 'body.params.surprise'],
      [{ method: 'listMyRepos', params: { per_page: 500 } }, 'body.params.per_page'],
      [{ method: 'listMyRepos', params: { sort: 'random' } }, 'body.params.sort'],
      [{ method: 'nosuch', params: {} }, 'body.method'],
      [{ method: 'request', params: { httpMethod: 'FETCH', path: '/' } }, 'body.params.httpMethod'],
      [{ method: 'request', params: { path: '/' } }, 'body.params.httpMethod'],
      [{ method: 'request', params: { httpMethod: 'GET', path: '/', body: { a: 1 } } }, 'body.params.body'],
      [{ method: 'request', params: { httpMethod: 'GET', path: 'https://evil.example/' } }, 'body.params.path'],
      [{ method: 'request', params: { httpMethod: 'GET', path: '/a/%2e%2e/%2e%2e/admin' } }, 'body.params.path'],
      [{ method: 'getRepo', params: { owner: 'octocat', repo: '..' } }, 'body.params.repo'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await execute(owner, 'github', body), 400, 'VALIDATION_ERROR');
      expect(error.details, JSON.stringify(body)).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
    expectError(await execute(owner, 'github', { params: {} }), 400, 'VALIDATION_ERROR');
    expectError(await execute(owner, 'github', { method: 'getAuthenticatedUser', params: [] }), 400, 'VALIDATION_ERROR');
    expect(fake.requests).toHaveLength(0);
  });

  it('403 PROVIDER_NOT_CONNECTED without a credential, saying how to connect', async () => {
    const github = expectError(await execute(owner, 'github', { method: 'getAuthenticatedUser' }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(github.message).toMatch(/POST \/api\/v1\/vault\/tokens/);
    expect(github.details).toMatchObject({ service: 'github', vaultService: 'github' });
    const google = expectError(await execute(owner, 'google', { method: 'gmail.listLabels' }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(google.message).toMatch(/GET \/api\/v1\/oauth\/authorize\/google/);
    expect(google.details).toMatchObject({ oauthAuthorize: 'GET /api/v1/oauth/authorize/google' });
    expect(fake.requests).toHaveLength(0);
  });

  it('403 PROVIDER_NOT_CONNECTED when a connector\'s vault token was deleted', async () => {
    const fresh = await t.createOwner('Lost Token');
    const tokenId = await storeToken(fresh, { service: 'lost', token: 'lost-secret-123' });
    const connector = await createConnector(fresh, { name: 'lost', baseUrl: fake.url, authType: 'bearer', vaultTokenId: tokenId });
    await t.request('DELETE', `/api/v1/vault/tokens/${tokenId}`, { token: fresh.token });
    const error = expectError(await execute(fresh, 'lost', { method: 'request', params: { httpMethod: 'GET', path: '/x' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(error.message).toContain(`PUT /api/v1/connectors/${connector.id}`);
    expect(fake.requests).toHaveLength(0);
  });

  it("500 INTEGRITY_ERROR, and nothing sent, when a connector's vault token holds another record's ciphertext", async () => {
    const fresh = await t.createOwner('Tampered Token');
    const tokenId = await storeToken(fresh, { service: 'moved', token: 'moved-secret-123' });
    const other = await storeToken(fresh, { service: 'other', token: 'other-secret-456' });
    await createConnector(fresh, { name: 'moved', baseUrl: fake.url, authType: 'bearer', vaultTokenId: tokenId });
    const sealed = await t.storage.db.selectFrom('vault_tokens').select('secret_sealed').where('id', '=', other).executeTakeFirstOrThrow();
    await t.storage.db.updateTable('vault_tokens').set({ secret_sealed: sealed.secret_sealed }).where('id', '=', tokenId).execute();
    const res = await execute(fresh, 'moved', { method: 'request', params: { httpMethod: 'GET', path: '/x' } });
    const error = expectError(res, 500, 'INTEGRITY_ERROR');
    expect(error.message).toContain(`vault token ${tokenId}`);
    expect(res.text).not.toMatch(/moved-secret|other-secret/);
    expect(fake.requests).toHaveLength(0);
    const audit = await t.request('GET', '/api/v1/audit/log', { token: fresh.token, query: { action: 'secret.tampered' } });
    expect(audit.body.data).toEqual([expect.objectContaining({ targetType: 'vault_token', targetId: tokenId })]);
  });

  it('builds real catalogue methods: Gmail through a vault token at the Google endpoint override', async () => {
    const fresh = await t.createOwner('Gmail User');
    const token = 'ya29.google-access-token-value';
    await storeToken(fresh, { service: 'google', token });
    const list = await execute(fresh, 'google', { method: 'gmail.listMessages', params: { q: 'is:unread from:a@b.c', maxResults: 5 } });
    expect(list.body.data.status).toBe(200);
    let seen = onlyRequest();
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/gmail/v1/users/me/messages?q=is%3Aunread%20from%3Aa%40b.c&maxResults=5');
    expect(seen.headers.authorization).toBe(`Bearer ${token}`);

    fake.requests.length = 0;
    await execute(fresh, 'google', { method: 'gmail.getMessage', params: { id: 'a/b?c', format: 'metadata' } });
    seen = onlyRequest();
    expect(seen.url).toBe('/gmail/v1/users/me/messages/a%2Fb%3Fc?format=metadata');

    fake.requests.length = 0;
    const event = { calendarId: 'me@example.com', sendUpdates: 'none', summary: 'Lunch', start: { date: '2030-01-01' }, end: { date: '2030-01-02' } };
    await execute(fresh, 'google', { method: 'calendar.createEvent', params: event });
    seen = onlyRequest();
    expect(seen).toMatchObject({ method: 'POST', url: '/calendar/v3/calendars/me%40example.com/events?sendUpdates=none' });
    expect(JSON.parse(seen.body)).toEqual({ summary: 'Lunch', start: { date: '2030-01-01' }, end: { date: '2030-01-02' } });
    expect(seen.headers['content-type']).toBe('application/json');
  });

  it('builds Microsoft Graph methods with OData parameters, through a vault token', async () => {
    const fresh = await t.createOwner('Graph User');
    await storeToken(fresh, { service: 'Microsoft', token: 'eyJ0eXAiOiJKV1QiLCJub25jZSI6Imdyb' });
    const res = await execute(fresh, 'microsoft', { method: 'listMessages', params: { $top: 5, $select: 'subject,from', $filter: 'isRead eq false' } });
    expect(res.body.data.status).toBe(200);
    const seen = onlyRequest();
    expect(seen.url).toBe('/v1.0/me/messages?$top=5&$select=subject%2Cfrom&$filter=isRead%20eq%20false');
    expect(seen.query).toEqual({ $top: ['5'], $select: ['subject,from'], $filter: ['isRead eq false'] });
    expect(seen.headers.authorization).toBe('Bearer eyJ0eXAiOiJKV1QiLCJub25jZSI6Imdyb');
  });

  it('records each call in the audit log without the secret', async () => {
    await execute(owner, 'bearer', { method: 'request', params: { httpMethod: 'GET', path: '/audited?x=secret-query' } });
    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token });
    const entry = log.body.data.find((e: { action: string }) => e.action === 'service.call');
    expect(entry).toMatchObject({
      outcome: 'success',
      targetType: 'service',
      targetId: 'bearer',
      details: { via: 'execute', source: 'connector', method: 'request', httpMethod: 'GET', path: '/audited', status: 200, credential: 'vault' },
    });
    expect(log.text).not.toContain(secret);
    expect(log.text).not.toContain('secret-query');
  });
});

describe('proxy', () => {
  let owner: Owner;
  const secret = 'proxy-secret-8c2e11aa';

  beforeAll(async () => {
    owner = await t.createOwner('Proxier');
    const bearer = await storeToken(owner, { service: 'px-bearer', token: secret });
    const key = await storeToken(owner, { service: 'px-key', token: fake.apiKey });
    await createConnector(owner, { name: 'px', baseUrl: fake.url, authType: 'bearer', vaultTokenId: bearer });
    await createConnector(owner, { name: 'px-header', baseUrl: fake.url, authType: 'header', headerName: 'X-Widget-Key', vaultTokenId: key });
    await createConnector(owner, { name: 'px-query', baseUrl: fake.url, authType: 'query', queryParam: 'api_key', vaultTokenId: key });
    await createConnector(owner, { name: 'px-base', baseUrl: `${fake.url}/api/v1`, authType: 'bearer', vaultTokenId: bearer });
  });

  it('sends the method, path, query, allowed headers and JSON body', async () => {
    const res = await proxy(owner, 'px', {
      method: 'PATCH',
      path: '/items/7',
      query: { fields: ['a', 'b'], dry: true },
      headers: { Accept: 'application/json', 'X-Trace-Id': 'trace-1', 'Notion-Version': '2025-09-03', 'If-Match': '"v1"' },
      body: { name: 'seven' },
    });
    expect(res.status).toBe(200);
    const seen = onlyRequest();
    expect(seen).toMatchObject({ method: 'PATCH', url: '/items/7?fields=a&fields=b&dry=true', body: '{"name":"seven"}' });
    expect(seen.headers).toMatchObject({
      accept: 'application/json',
      'x-trace-id': 'trace-1',
      'notion-version': '2025-09-03',
      'if-match': '"v1"',
      'content-type': 'application/json',
      authorization: `Bearer ${secret}`,
    });
    expect(res.body.data).toMatchObject({ status: 200, encoding: 'json' });
  });

  it('sends a string body with a non-JSON Content-Type as it is', async () => {
    await proxy(owner, 'px', { method: 'POST', path: '/form', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' });
    expect(onlyRequest()).toMatchObject({ body: 'a=1&b=2', headers: expect.objectContaining({ 'content-type': 'application/x-www-form-urlencoded' }) });
  });

  it('never shows the credential: echoed headers and bodies are redacted, Set-Cookie and token headers dropped', async () => {
    for (const service of ['px', 'px-header', 'px-query']) {
      const res = await proxy(owner, service, { method: 'GET', path: '/leak' });
      expect(res.status).toBe(200);
      expect(res.text, service).not.toContain(secret);
      expect(res.text, service).not.toContain(fake.apiKey);
      expect(res.body.data.headers['set-cookie']).toBeUndefined();
      expect(res.body.data.headers['x-session-token']).toBeUndefined();
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const res = await proxy(owner, 'px', { method: 'GET', path: '/leak' });
    // A header named like a credential is dropped; any other that echoes it is redacted.
    expect(res.body.data.headers['x-echo-authorization']).toBeUndefined();
    expect(res.body.data.headers['x-echo-seen']).toBe('Bearer [REDACTED]');
    const query = await proxy(owner, 'px-query', { method: 'GET', path: '/leak' });
    expect(query.body.data.headers.location).toBe(`${fake.url}/somewhere?api_key=[REDACTED]`);
    expect(query.body.data.body.query.api_key).toEqual(['[REDACTED]']);
  });

  it('the caller cannot set or replace the credential', async () => {
    const attempts: Array<[string, Record<string, string>]> = [
      ['px', { Authorization: 'Bearer attacker' }],
      ['px', { authorization: 'Basic YTpi' }],
      ['px', { Cookie: 'session=1' }],
      ['px', { 'X-Api-Key': 'attacker' }],
      ['px', { 'Proxy-Authorization': 'Basic YTpi' }],
      ['px', { Host: 'evil.example' }],
      ['px', { 'X-Forwarded-Host': 'evil.example' }],
      ['px-header', { 'X-Widget-Key': 'attacker' }],
      ['px-header', { 'x-widget-key': 'attacker' }],
      ['px', { 'Some-Header': 'x' }],
    ];
    for (const [service, headers] of attempts) {
      const error = expectError(await proxy(owner, service, { method: 'GET', path: '/echo', headers }), 400, 'VALIDATION_ERROR');
      expect(error.details, JSON.stringify(headers)).toEqual([expect.objectContaining({ field: `body.headers.${Object.keys(headers)[0]}` })]);
    }
    expect(fake.requests).toHaveLength(0);
    // A query parameter of the credential's name is replaced by the credential, never sent alongside.
    await proxy(owner, 'px-query', { method: 'GET', path: '/secure/x?api_key=attacker&q=1', query: { api_key: 'attacker2', API_KEY: 'x' } });
    expect(onlyRequest().query).toEqual({ q: ['1'], api_key: [fake.apiKey] });
  });

  it('refuses paths that leave the base address, before anything is sent', async () => {
    for (const path of [
      'https://evil.example/steal',
      'http://127.0.0.1:1/x',
      '//evil.example/steal',
      '/..',
      '/../../etc/passwd',
      '/a/%2e%2e/%2e%2e/b',
      '/a/%252e%252e/b',
      '/a\\..\\b',
      '/%2F%2Fevil.example',
      '/x y',
    ]) {
      const error = expectError(await proxy(owner, 'px-base', { method: 'GET', path }), 400, 'VALIDATION_ERROR');
      expect(error.details, path).toEqual([expect.objectContaining({ field: 'body.path' })]);
    }
    expect(fake.requests).toHaveLength(0);
    await proxy(owner, 'px-base', { method: 'GET', path: 'widgets' });
    expect(onlyRequest().path).toBe('/api/v1/widgets');
  });

  it('hands redirects back instead of following them', async () => {
    const res = await proxy(owner, 'px', { method: 'GET', path: '/redirect', query: { to: 'https://elsewhere.example/landing' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 302, headers: { location: 'https://elsewhere.example/landing' }, body: null, encoding: 'empty' });
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses a body on GET and a malformed proxy body', async () => {
    expectError(await proxy(owner, 'px', { method: 'GET', path: '/x', body: { a: 1 } }), 400, 'VALIDATION_ERROR');
    expectError(await proxy(owner, 'px', { method: 'TRACE', path: '/x' }), 400, 'VALIDATION_ERROR');
    expectError(await proxy(owner, 'px', { method: 'GET' }), 400, 'VALIDATION_ERROR');
    expectError(await proxy(owner, 'px', { method: 'GET', path: '/x', extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await proxy(owner, 'px', { method: 'GET', path: '/x', headers: { a: 5 } }), 400, 'VALIDATION_ERROR');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('pass-through GET /services/{service}/*', () => {
  let owner: Owner;
  let reader: string;

  beforeAll(async () => {
    owner = await t.createOwner('Passer');
    const key = await storeToken(owner, { service: 'pt-key', token: fake.apiKey });
    await createConnector(owner, { name: 'pt', baseUrl: `${fake.url}/api`, authType: 'header', headerName: 'X-Api-Key', vaultTokenId: key });
    reader = await t.tokenWithScopes(owner, ['services:read']);
  });

  it('passes the path and query through exactly as written, with the credential', async () => {
    const res = await t.request('GET', '/api/v1/services/pt/secure/items/a%2Fb?x=1&x=2&q=a+b', { token: reader });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 200, encoding: 'json' });
    const seen = onlyRequest();
    expect(seen).toMatchObject({ method: 'GET', url: '/api/secure/items/a%2Fb?x=1&x=2&q=a+b' });
    expect(seen.headers['x-api-key']).toBe(fake.apiKey);
    expect(res.text).not.toContain(fake.apiKey);
  });

  it("does not pass on ?token= when it carried Hearth's own token", async () => {
    await t.request('GET', `/api/v1/services/pt/secure/items?token=${reader}&x=1`);
    expect(onlyRequest().url).toBe('/api/secure/items?x=1');
    fake.requests.length = 0;
    // With the header carrying Hearth's token, a token parameter belongs to the service.
    await t.request('GET', '/api/v1/services/pt/secure/items?token=upstream-value', { token: reader });
    expect(onlyRequest().url).toBe('/api/secure/items?token=upstream-value');
  });

  it("does not pass on Hearth's token under a percent-encoded parameter name either", async () => {
    // The query parser decodes names, so these authenticate exactly as ?token= does.
    for (const name of ['%74oken', 'tok%65n', '%74%6F%6B%65%6E']) {
      fake.requests.length = 0;
      const res = await t.request('GET', `/api/v1/services/pt/secure/items?${name}=${reader}&x=1`);
      expect(res.status, name).toBe(200);
      expect(onlyRequest().url, name).toBe('/api/secure/items?x=1');
      expect(JSON.stringify(fake.requests)).not.toContain(reader);
    }
  });

  it('refuses escapes from the base path', async () => {
    for (const url of ['/api/v1/services/pt/a/%252e%252e/%252e%252e/x', '/api/v1/services/pt/%2F%2Fevil.example/x', '/api/v1/services/pt/a/.%252e/x']) {
      expectError(await t.request('GET', url, { token: reader }), 400, 'VALIDATION_ERROR');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses encoded dot segments arriving on the wire as they are', async () => {
    // An injected request is normalised like a URL; a real socket delivers %2e%2e untouched.
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    for (const path of ['/api/v1/services/pt/%2e%2e/admin', '/api/v1/services/pt/a/%2E%2E/%2e%2E/x', '/api/v1/services/pt/..%2f..%2fx']) {
      const answer = await rawGet(address, path, { authorization: `Bearer ${reader}` });
      expect(answer.status, path).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'path', message: 'must not contain . or .. segments' }] });
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('fixed routes under /services win over the pass-through', async () => {
    const methods = await t.request('GET', '/api/v1/services/pt/methods', { token: reader });
    expect(methods.status).toBe(200);
    expect(methods.body.data).toEqual([expect.objectContaining({ name: 'request' })]);
    // The Google mail and storage routes answer for themselves: Google OAuth is not configured here,
    // which the pass-through would have answered as 403 PROVIDER_NOT_CONNECTED instead.
    for (const url of ['/api/v1/services/google/storage/files', '/api/v1/services/google/mail/messages', '/api/v1/services/google/mail/messages/m1']) {
      expectError(await t.request('GET', url, { token: owner.token }), 503, 'PROVIDER_NOT_CONFIGURED');
    }
    // Other Google paths are the pass-through's.
    const other = expectError(await t.request('GET', '/api/v1/services/google/gmail/v1/users/me/profile', { token: owner.token }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(other.details).toMatchObject({ service: 'google', vaultService: 'google' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('discovered APIs', () => {
  it('offers an API found on a vault token\'s website, with its operations as methods', async () => {
    const owner = await t.createOwner('Discoverer');
    await storeToken(owner, { service: 'widgets', token: fake.apiKey, websiteUrl: fake.url, discoverApi: true });
    const list = await t.request('GET', '/api/v1/services', { token: owner.token, query: { source: 'discovered' } });
    expect(list.body.data).toEqual([
      {
        id: 'widgets',
        name: 'Fake Widgets API',
        description: 'Widgets for tests',
        category: 'discovered',
        source: 'discovered',
        authKind: 'header',
        connected: true,
        methodsCount: 4,
      },
    ]);
    const methods = await t.request('GET', '/api/v1/services/widgets/methods', { token: owner.token });
    expect(methods.body.data.map((m: { name: string }) => m.name)).toEqual(['listWidgets', 'createWidget', 'getWidget', 'request']);
    expect(methods.body.data[2]).toMatchObject({ httpMethod: 'GET', path: '/widgets/{widgetId}', params: { required: ['widgetId'] } });
    const detail = await t.request('GET', '/api/v1/services/widgets', { token: owner.token });
    expect(detail.body.data).toMatchObject({ baseUrl: `${fake.url}/api`, auth: { kind: 'header', headerName: 'X-Api-Key' } });

    fake.requests.length = 0;
    const res = await execute(owner, 'widgets', { method: 'getWidget', params: { widgetId: 'w 1', query: { full: true } } });
    expect(res.body.data.status).toBe(200);
    const seen = onlyRequest();
    expect(seen.url).toBe('/api/widgets/w%201?full=true');
    expect(seen.headers['x-api-key']).toBe(fake.apiKey);

    fake.requests.length = 0;
    await execute(owner, 'widgets', { method: 'createWidget', params: { body: { name: 'gear' } } });
    expect(onlyRequest()).toMatchObject({ method: 'POST', url: '/api/widgets', body: '{"name":"gear"}' });
    expectError(await execute(owner, 'widgets', { method: 'getWidget', params: {} }), 400, 'VALIDATION_ERROR');
    expectError(await execute(owner, 'widgets', { method: 'listWidgets', params: { body: { a: 1 } } }), 400, 'VALIDATION_ERROR');
  });
});

describe('security', () => {
  let owner: Owner;
  let other: Owner;

  beforeAll(async () => {
    owner = await t.createOwner('Services Security');
    other = await t.createOwner('Services Intruder');
    const tokenId = await storeToken(owner, { service: 'sec', token: 'sec-secret-1234' });
    await createConnector(owner, { name: 'private-one', baseUrl: fake.url, authType: 'bearer', vaultTokenId: tokenId });
  });

  it('401 without a token on every route', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/services'],
      ['GET', '/api/v1/services/categories'],
      ['GET', '/api/v1/services/github'],
      ['GET', '/api/v1/services/github/methods'],
      ['POST', '/api/v1/services/private-one/execute'],
      ['POST', '/api/v1/services/private-one/proxy'],
      ['GET', '/api/v1/services/private-one/echo'],
    ] as const) {
      expectError(await t.request(method, url, method === 'POST' ? { body: { method: 'GET', path: '/' } } : {}), 401, 'UNAUTHORIZED');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('reading needs services:read; execute and proxy need services:write', async () => {
    const reader = await t.tokenWithScopes(owner, ['services:read']);
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    const vaultOnly = await t.tokenWithScopes(owner, ['vault']);
    for (const url of ['/api/v1/services', '/api/v1/services/categories', '/api/v1/services/github', '/api/v1/services/github/methods', '/api/v1/services/private-one/echo']) {
      expect((await t.request('GET', url, { token: reader })).status, url).toBe(200);
      expectError(await t.request('GET', url, { token: writer }), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.request('GET', url, { token: vaultOnly }), 403, 'INSUFFICIENT_SCOPE');
    }
    fake.requests.length = 0;
    expectError(await execute(reader, 'private-one', { method: 'request', params: { httpMethod: 'GET', path: '/' } }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await proxy(reader, 'private-one', { method: 'GET', path: '/' }), 403, 'INSUFFICIENT_SCOPE');
    expect(fake.requests).toHaveLength(0);
    expect((await execute(writer, 'private-one', { method: 'request', params: { httpMethod: 'GET', path: '/' } })).status).toBe(200);
    expect((await proxy(writer, 'private-one', { method: 'GET', path: '/' })).status).toBe(200);
  });

  it("another owner's connector is unknown to them, everywhere", async () => {
    expectError(await t.request('GET', '/api/v1/services/private-one', { token: other.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/services/private-one/methods', { token: other.token }), 404, 'NOT_FOUND');
    expectError(await execute(other, 'private-one', { method: 'request', params: { httpMethod: 'GET', path: '/' } }), 404, 'NOT_FOUND');
    expectError(await proxy(other, 'private-one', { method: 'GET', path: '/' }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/services/private-one/echo', { token: other.token }), 404, 'NOT_FOUND');
    const list = await t.request('GET', '/api/v1/services', { token: other.token, query: { source: 'connector' } });
    expect(list.body.data).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it("another owner's vault token for the same service is never used", async () => {
    await storeToken(other, { service: 'openai', token: 'sk-other-owner-key' });
    expectError(await execute(owner, 'openai', { method: 'listModels' }), 403, 'PROVIDER_NOT_CONNECTED');
  });
});
