import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function storeToken(owner: Owner, fields: { service?: string; websiteUrl?: string; token?: string } = {}): Promise<string> {
  const res = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: {
      name: 'key',
      service: fields.service ?? 'example',
      token: fields.token ?? 'secret-value-123456',
      websiteUrl: fields.websiteUrl ?? 'https://example.com',
    },
  });
  if (res.status !== 201) throw new Error(`storing a vault token failed: ${res.status} ${res.text}`);
  return res.body.data.id;
}

let counter = 0;
const uniqueName = (prefix = 'conn') => `${prefix}-${++counter}`;

async function create(owner: Owner, body: Record<string, unknown>, token = owner.token) {
  return t.request('POST', '/api/v1/connectors', { token, body });
}

describe('happy path', () => {
  let owner: Owner;
  let vaultTokenId: string;

  beforeAll(async () => {
    owner = await t.createOwner('Connector Owner');
    vaultTokenId = await storeToken(owner);
  });

  it('creates a bearer connector and answers it with 201', async () => {
    const res = await create(owner, { name: 'Acme', baseUrl: 'https://api.example.com/v2/', authType: 'bearer', vaultTokenId });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^con_[0-9A-Z]{26}$/),
        name: 'Acme',
        baseUrl: 'https://api.example.com/v2',
        authType: 'bearer',
        vaultTokenId,
        headerName: null,
        queryParam: null,
        apiStyle: 'rest',
        readMethods: [],
        connected: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const again = await t.request('GET', `/api/v1/connectors/${res.body.data.id}`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('creates header, query and none connectors', async () => {
    const header = await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'header', headerName: 'X-API-Key', vaultTokenId });
    expect(header.status).toBe(201);
    expect(header.body.data).toMatchObject({ authType: 'header', headerName: 'X-API-Key', queryParam: null });
    const query = await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'query', queryParam: 'api_key', vaultTokenId });
    expect(query.status).toBe(201);
    expect(query.body.data).toMatchObject({ authType: 'query', queryParam: 'api_key', headerName: null });
    const none = await create(owner, { name: uniqueName(), baseUrl: 'http://open.example.org', authType: 'none' });
    expect(none.status).toBe(201);
    expect(none.body.data).toMatchObject({ authType: 'none', vaultTokenId: null, connected: true });
  });

  it('lists newest first, in pages', async () => {
    const fresh = await t.createOwner('Lister');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(fresh, { name: `svc${i}`, baseUrl: 'https://x.example', authType: 'none' })).body.data.id);
    const first = await t.request('GET', '/api/v1/connectors', { token: fresh.token, query: { limit: 3 } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(first.body.nextCursor).toBe(ids[2]);
    const second = await t.request('GET', '/api/v1/connectors', { token: fresh.token, query: { limit: 3, cursor: first.body.nextCursor } });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[1] }), expect.objectContaining({ id: ids[0] })], nextCursor: null });
  });

  it('updates some fields; changing authType drops the fields the new type does not use', async () => {
    const created = await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'header', headerName: 'X-Key', vaultTokenId });
    const id = created.body.data.id;
    const renamed = await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { name: 'Renamed-One', baseUrl: 'https://api.example.com/' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Renamed-One', baseUrl: 'https://api.example.com', authType: 'header', headerName: 'X-Key', vaultTokenId });
    const toQuery = await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { authType: 'query', queryParam: 'key' } });
    expect(toQuery.status).toBe(200);
    expect(toQuery.body.data).toMatchObject({ authType: 'query', queryParam: 'key', headerName: null, vaultTokenId });
    const toNone = await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { authType: 'none' } });
    expect(toNone.body.data).toMatchObject({ authType: 'none', queryParam: null, headerName: null, vaultTokenId: null });
    expect(Date.parse(toNone.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.data.updatedAt));
  });

  it('deletes a connector; the vault token stays', async () => {
    const created = await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId });
    const id = created.body.data.id;
    const res = await t.request('DELETE', `/api/v1/connectors/${id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id, deleted: true } });
    expectError(await t.request('GET', `/api/v1/connectors/${id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/connectors/${id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expect((await t.request('GET', `/api/v1/vault/tokens/${vaultTokenId}/reveal`, { token: owner.token })).status).toBe(200);
  });

  it('reads as not connected once its vault token is deleted', async () => {
    const tokenId = await storeToken(owner, { service: 'doomed' });
    const created = await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId: tokenId });
    expect((await t.request('DELETE', `/api/v1/vault/tokens/${tokenId}`, { token: owner.token })).status).toBe(200);
    const res = await t.request('GET', `/api/v1/connectors/${created.body.data.id}`, { token: owner.token });
    expect(res.body.data).toMatchObject({ vaultTokenId: tokenId, connected: false });
  });

  it('writes connector changes to the audit log, without secrets', async () => {
    const fresh = await t.createOwner('Audited');
    const tokenId = await storeToken(fresh, { token: 'audit-secret-value-999' });
    const created = await create(fresh, { name: 'audited', baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId: tokenId });
    await t.request('PUT', `/api/v1/connectors/${created.body.data.id}`, { token: fresh.token, body: { name: 'audited2' } });
    await t.request('DELETE', `/api/v1/connectors/${created.body.data.id}`, { token: fresh.token });
    const log = await t.request('GET', '/api/v1/audit/log', { token: fresh.token });
    const actions = log.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['connector.create', 'connector.update', 'connector.delete']));
    expect(log.text).not.toContain('audit-secret-value-999');
  });
});

describe('gateway context', () => {
  it('lists connectors for tokens with services:read, and follows changes', async () => {
    const owner = await t.createOwner('Context Owner');
    const tokenId = await storeToken(owner, { service: 'ctx' });
    const withServices = await t.tokenWithScopes(owner, ['read', 'services:read']);
    const without = await t.tokenWithScopes(owner, ['read']);
    const before = await t.request('GET', '/api/v1/gateway/context', { token: withServices });
    expect(before.status).toBe(200);
    expect(before.body.data.connectors).toEqual([]);
    const created = (await create(owner, { name: 'ctx-api', baseUrl: 'https://api.example.com', authType: 'bearer', vaultTokenId: tokenId })).body.data;
    const after = await t.request('GET', '/api/v1/gateway/context', { token: withServices });
    expect(after.body.data.connectors).toEqual([{ id: created.id, name: 'ctx-api', baseUrl: 'https://api.example.com', authType: 'bearer', connected: true }]);
    await t.request('DELETE', `/api/v1/vault/tokens/${tokenId}`, { token: owner.token });
    const gone = await t.request('GET', '/api/v1/gateway/context', { token: withServices });
    expect(gone.body.data.connectors).toEqual([expect.objectContaining({ name: 'ctx-api', connected: false })]);
    const hidden = await t.request('GET', '/api/v1/gateway/context', { token: without });
    expect(hidden.body.data).not.toHaveProperty('connectors');
  });
});

describe('errors', () => {
  let owner: Owner;
  let vaultTokenId: string;

  beforeAll(async () => {
    owner = await t.createOwner('Connector Errors');
    vaultTokenId = await storeToken(owner);
  });

  it.each([
    ['ftp address', { baseUrl: 'ftp://example.com', authType: 'none' }, 'body.baseUrl'],
    ['not an address', { baseUrl: 'example.com/api', authType: 'none' }, 'body.baseUrl'],
    ['credentials in the address', { baseUrl: 'https://user:pw@example.com', authType: 'none' }, 'body.baseUrl'],
    ['a query in the address', { baseUrl: 'https://example.com/?key=1', authType: 'none' }, 'body.baseUrl'],
    ['a fragment in the address', { baseUrl: 'https://example.com/#x', authType: 'none' }, 'body.baseUrl'],
    ['header without headerName', { baseUrl: 'https://example.com', authType: 'header', vaultTokenId: 'VAULT' }, 'body.headerName'],
    ['query without queryParam', { baseUrl: 'https://example.com', authType: 'query', vaultTokenId: 'VAULT' }, 'body.queryParam'],
    ['bearer without vaultTokenId', { baseUrl: 'https://example.com', authType: 'bearer' }, 'body.vaultTokenId'],
    ['none with a vaultTokenId', { baseUrl: 'https://example.com', authType: 'none', vaultTokenId: 'VAULT' }, 'body.vaultTokenId'],
    ['headerName with bearer', { baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId: 'VAULT', headerName: 'X-A' }, 'body.headerName'],
    ['queryParam with header', { baseUrl: 'https://example.com', authType: 'header', headerName: 'X-A', vaultTokenId: 'VAULT', queryParam: 'k' }, 'body.queryParam'],
    ['a transport header as headerName', { baseUrl: 'https://example.com', authType: 'header', headerName: 'Host', vaultTokenId: 'VAULT' }, 'body.headerName'],
    ['an unknown authType', { baseUrl: 'https://example.com', authType: 'basic' }, 'body.authType'],
    ['an unknown field', { baseUrl: 'https://example.com', authType: 'none', description: 'x' }, 'body.description'],
  ])('400 for %s', async (_what, fields, field) => {
    const body = { name: uniqueName(), ...fields } as Record<string, unknown>;
    if (body.vaultTokenId === 'VAULT') body.vaultTokenId = vaultTokenId;
    const error = expectError(await create(owner, body), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it.each(['', 'has space', '-leading', 'a/b', 'x'.repeat(65)])('400 for the name %j', async (name) => {
    expectError(await create(owner, { name, baseUrl: 'https://example.com', authType: 'none' }), 400, 'VALIDATION_ERROR');
  });

  it('409 for a name already used, whatever the case', async () => {
    expect((await create(owner, { name: 'Twice', baseUrl: 'https://example.com', authType: 'none' })).status).toBe(201);
    const taken = expectError(await create(owner, { name: 'twice', baseUrl: 'https://other.example.com', authType: 'none' }), 409, 'CONFLICT');
    expect(taken.details).toEqual([{ field: 'body.name', message: 'is already used by another connector' }]);
    const other = await create(owner, { name: 'twice-b', baseUrl: 'https://example.com', authType: 'none' });
    expectError(await t.request('PUT', `/api/v1/connectors/${other.body.data.id}`, { token: owner.token, body: { name: 'TWICE' } }), 409, 'CONFLICT');
  });

  it.each(['github', 'GitHub', 'openai', 'google', 'categories'])('409 for the built-in name %s', async (name) => {
    const error = expectError(await create(owner, { name, baseUrl: 'https://example.com', authType: 'none' }), 409, 'CONFLICT');
    expect(error.message).toMatch(/built-in/);
    expect(error.details).toEqual([{ field: 'body.name', message: 'is a built-in service name' }]);
  });

  it('404 for an unknown vault token and for another owner\'s', async () => {
    expectError(await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId: 'vtk_nope' }), 404, 'NOT_FOUND');
    const stranger = await t.createOwner('Stranger');
    const theirs = await storeToken(stranger);
    expectError(await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId: theirs }), 404, 'NOT_FOUND');
  });

  it('400 for an empty update and for fields the resulting type does not use', async () => {
    const created = await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'bearer', vaultTokenId });
    const id = created.body.data.id;
    expectError(await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { headerName: 'X-A' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/connectors/${id}`, { token: owner.token, body: { authType: 'header' } }), 400, 'VALIDATION_ERROR');
  });

  it('404 for unknown ids', async () => {
    expectError(await t.request('GET', '/api/v1/connectors/con_unknown', { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PUT', '/api/v1/connectors/con_unknown', { token: owner.token, body: { name: 'x1' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', '/api/v1/connectors/con_unknown', { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('security', () => {
  let owner: Owner;
  let other: Owner;
  let connectorId: string;
  let vaultTokenId: string;

  beforeAll(async () => {
    owner = await t.createOwner('Connector Security');
    other = await t.createOwner('Connector Intruder');
    vaultTokenId = await storeToken(owner, { websiteUrl: 'https://www.example.com/account' });
    connectorId = (await create(owner, { name: 'guarded', baseUrl: 'https://api.example.com', authType: 'bearer', vaultTokenId })).body.data.id;
  });

  it('401 without a token on every route', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/connectors'],
      ['POST', '/api/v1/connectors'],
      ['GET', `/api/v1/connectors/${connectorId}`],
      ['PUT', `/api/v1/connectors/${connectorId}`],
      ['DELETE', `/api/v1/connectors/${connectorId}`],
    ] as const) {
      expectError(await t.request(method, url, { body: method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined }), 401, 'UNAUTHORIZED');
    }
  });

  it('services:read reads; writing needs services:write', async () => {
    const reader = await t.tokenWithScopes(owner, ['services:read']);
    expect((await t.request('GET', '/api/v1/connectors', { token: reader })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/connectors/${connectorId}`, { token: reader })).status).toBe(200);
    expectError(await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'none' }, reader), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('PUT', `/api/v1/connectors/${connectorId}`, { token: reader, body: { name: 'x2' } }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('DELETE', `/api/v1/connectors/${connectorId}`, { token: reader }), 403, 'INSUFFICIENT_SCOPE');
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    expectError(await t.request('GET', '/api/v1/connectors', { token: writer }), 403, 'INSUFFICIENT_SCOPE');
    const vaultOnly = await t.tokenWithScopes(owner, ['vault']);
    expectError(await create(owner, { name: uniqueName(), baseUrl: 'https://example.com', authType: 'none' }, vaultOnly), 403, 'INSUFFICIENT_SCOPE');
  });

  it("another owner's connector is 404 everywhere, and their lists are their own", async () => {
    expectError(await t.request('GET', `/api/v1/connectors/${connectorId}`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PUT', `/api/v1/connectors/${connectorId}`, { token: other.token, body: { name: 'stolen' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/connectors/${connectorId}`, { token: other.token }), 404, 'NOT_FOUND');
    const list = await t.request('GET', '/api/v1/connectors', { token: other.token });
    expect(list.body.data).toEqual([]);
    // Names are per owner.
    expect((await create(other, { name: 'guarded', baseUrl: 'https://example.com', authType: 'none' })).status).toBe(201);
  });

  it('a scoped token binds a vault secret only to the site it was stored for', async () => {
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    // The token was stored for www.example.com: example.com and its subdomains are its site.
    for (const baseUrl of ['https://example.com', 'https://api.example.com/v1', 'https://deep.api.example.com']) {
      const res = await create(owner, { name: uniqueName(), baseUrl, authType: 'bearer', vaultTokenId }, writer);
      expect(res.status, baseUrl).toBe(201);
    }
    for (const baseUrl of ['https://evil.test', 'https://example.com.evil.test', 'https://notexample.com']) {
      const error = expectError(await create(owner, { name: uniqueName(), baseUrl, authType: 'bearer', vaultTokenId }, writer), 403, 'FORBIDDEN');
      expect(error.message).toMatch(/only the owner/);
    }
    // Moving a credentialed connector elsewhere is a new binding too; renaming it is not.
    expectError(await t.request('PUT', `/api/v1/connectors/${connectorId}`, { token: writer, body: { baseUrl: 'https://evil.test' } }), 403, 'FORBIDDEN');
    expect((await t.request('PUT', `/api/v1/connectors/${connectorId}`, { token: writer, body: { name: 'guarded-renamed' } })).status).toBe(200);
    // A connector without a credential may point anywhere.
    expect((await create(owner, { name: uniqueName(), baseUrl: 'https://evil.test', authType: 'none' }, writer)).status).toBe(201);
    // The owner may bind anywhere: the master token, or a login session with the account password.
    expect((await create(owner, { name: uniqueName(), baseUrl: 'https://elsewhere.test', authType: 'bearer', vaultTokenId })).status).toBe(201);
    const session = await t.login(owner);
    expectError(await create(owner, { name: uniqueName(), baseUrl: 'https://elsewhere.test', authType: 'bearer', vaultTokenId }, session), 403, 'FORBIDDEN');
    const withPassword = { name: uniqueName(), baseUrl: 'https://elsewhere.test', authType: 'bearer', vaultTokenId, password: owner.password };
    expect((await create(owner, withPassword, session)).status).toBe(201);
  });

  it('a scoped token cannot move a secret stored for an https site to cleartext http, or to another port the site does not use', async () => {
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    // vaultTokenId was stored for https://www.example.com/account: http on its site is a downgrade.
    for (const baseUrl of ['http://api.example.com', 'http://example.com/v1']) {
      const error = expectError(await create(owner, { name: uniqueName(), baseUrl, authType: 'bearer', vaultTokenId }, writer), 403, 'FORBIDDEN');
      expect(error.message).toMatch(/cleartext http/);
    }
    expectError(await t.request('PUT', `/api/v1/connectors/${connectorId}`, { token: writer, body: { baseUrl: 'http://api.example.com' } }), 403, 'FORBIDDEN');
    // A token stored for an http site may be used over http on it.
    const plain = await storeToken(owner, { service: 'plain', websiteUrl: 'http://intranet.example.org' });
    expect((await create(owner, { name: uniqueName(), baseUrl: 'http://api.intranet.example.org', authType: 'bearer', vaultTokenId: plain }, writer)).status).toBe(201);
    // A site that names a port binds to that port.
    const ported = await storeToken(owner, { service: 'ported', websiteUrl: 'https://tools.example.net:8443/' });
    expect((await create(owner, { name: uniqueName(), baseUrl: 'https://api.tools.example.net:8443/v1', authType: 'bearer', vaultTokenId: ported }, writer)).status).toBe(201);
    for (const baseUrl of ['https://tools.example.net', 'https://tools.example.net:9443']) {
      const error = expectError(await create(owner, { name: uniqueName(), baseUrl, authType: 'bearer', vaultTokenId: ported }, writer), 403, 'FORBIDDEN');
      expect(error.message).toMatch(/port 8443/);
    }
    // The owner still decides for themselves.
    expect((await create(owner, { name: uniqueName(), baseUrl: 'http://api.example.com', authType: 'bearer', vaultTokenId })).status).toBe(201);
  });
});
