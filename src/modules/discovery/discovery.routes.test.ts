import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import { Value } from '@sinclair/typebox/value';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import {
  CapabilityManifestSchema,
  DiscoveryDocumentSchema,
  QuickStartSchema,
  ScopeListSchema,
  TokenCapabilitiesSchema,
} from './discovery.schemas.js';

const BASE = 'https://hearth.example.test';

let t: TestApp;
let admin: Owner;
let user: Owner;

beforeAll(async () => {
  t = await createTestApp({ config: { publicBaseUrl: BASE } });
  admin = await t.createOwner('Admin');
  user = await t.createOwner('User');
});

afterAll(async () => t.close());

const catalogKeys = () => t.app.routeCatalog.map((r) => `${r.method} ${r.path}`);

describe('GET /api/v1/ (discovery)', () => {
  it('answers the specification’s fields and the base address, with and without the trailing slash, never redirecting', async () => {
    const withSlash = await t.request('GET', '/api/v1/');
    const without = await t.request('GET', '/api/v1');
    for (const res of [withSlash, without]) {
      expect(res.status).toBe(200);
      expect(res.headers.location).toBeUndefined();
    }
    expect(without.body).toEqual(withSlash.body);

    const doc = withSlash.body;
    expect(Object.keys(doc).sort()).toEqual(
      // The specification's fields, plus canonicalBaseUrl: the base address `important` tells agents to use.
      ['authentication', 'canonicalBaseUrl', 'description', 'documentation', 'endpoints', 'important', 'name', 'version'].sort(),
    );
    expect(doc.canonicalBaseUrl).toBe(BASE);
    expect(doc.name).toBe('Hearth');
    expect(doc.version).toBe('0.1.0');
    expect(doc.important).toMatch(/describe the intended action to the human user/);
    expect(doc.important).toMatch(/explicit approval/);
    expect(doc.important).toMatch(/never append \/api\/v1/);
    expect(doc.important).toMatch(/redirect/);
    expect(doc.documentation).toEqual({
      openapi: `${BASE}/openapi.json`,
      quickStart: `${BASE}/api/v1/quick-start`,
      llms: `${BASE}/llms.txt`,
    });
    expect(doc.authentication).toMatchObject({ type: 'bearer', header: 'Authorization: Bearer <API_TOKEN>', query_param: 'token' });
    expect(typeof doc.authentication.hint).toBe('string');
  });

  it('lists every route of the catalogue by its operationId', async () => {
    const { body } = await t.request('GET', '/api/v1/');
    expect(Object.keys(body.endpoints)).toHaveLength(t.app.routeCatalog.length);
    for (const route of t.app.routeCatalog) expect(body.endpoints[route.operationId!]).toBe(`${route.method} ${route.path}`);
    expect(body.endpoints.getGatewayContext).toBe('GET /api/v1/gateway/context');
    expect(body.endpoints.getTokenCapabilities).toBe('GET /api/v1/tokens/me/capabilities');
  });

  it('a doubled /api/v1 prefix answers 404 ROUTE_NOT_FOUND with a hint', async () => {
    for (const url of ['/api/v1/api/v1/', '/api/v1/api/v1', '/api/v1/api/v1/quick-start', '/api/v1/api/v1/tokens/me/capabilities']) {
      const body = expectError(await t.request('GET', url, { token: admin.token }), 404, 'ROUTE_NOT_FOUND');
      expect(body.message).toMatch(/must not include \/api\/v1/);
    }
  });
});

describe('GET /api/v1/quick-start', () => {
  it('tells an anonymous caller it is not authenticated and how to get a token', async () => {
    const res = await t.request('GET', '/api/v1/quick-start');
    expect(res.status).toBe(200);
    const qs = res.body;
    expect(Object.keys(qs).sort()).toEqual(
      ['authenticated', 'canonicalBaseUrl', 'fullDocs', 'important', 'mcp', 'noTokenFlow', 'prerequisite', 'steps', 'title', 'urlWarning'].sort(),
    );
    // The MCP address (the server's root, not under /api/v1) and when a model client should prefer it.
    expect(qs.mcp).toEqual({ url: `${BASE}/mcp`, prefer: expect.stringMatching(/^Prefer MCP when your client speaks it/) });
    expect(qs.authenticated).toBe(false);
    expect(qs.canonicalBaseUrl).toBe(BASE);
    expect(qs.fullDocs).toBe(`${BASE}/openapi.json`);
    expect(qs.urlWarning).toMatch(/not append \/api\/v1/);
    expect(qs.urlWarning).toMatch(/redirect/);
    expect(qs.prerequisite).toMatchObject({ required: true });
    expect(qs.prerequisite.action).toMatch(/token/i);
    expect(qs.noTokenFlow.steps.map((s: any) => s.endpoint).filter(Boolean)).toEqual([
      'POST /api/v1/handshakes',
      'GET /api/v1/handshakes/{handshakeId}/status',
      'POST /api/v1/handshakes/{handshakeId}/claim',
    ]);
    expect(qs.noTokenFlow.steps[0].body).toMatchObject({ agentId: expect.any(String), requestedScopes: ['read'], message: expect.any(String) });
    expect(qs.steps[0].done).toBeUndefined();
  });

  it('lists the steps in the specification’s order, numbered from 1', async () => {
    const { body } = await t.request('GET', '/api/v1/quick-start');
    const steps = body.steps as Array<{ step: number; endpoint?: string; action: string; detail: string }>;
    expect(steps.map((s) => s.step)).toEqual(steps.map((_, i) => i + 1));
    expect(steps[0]!.action).toMatch(/authenticate/i);
    expect(steps[1]!.endpoint).toBe('GET /api/v1/gateway/context');
    expect(steps[2]!.endpoint).toBe('GET /api/v1/tokens/me/capabilities');
    const later = steps.slice(3).map((s) => s.endpoint);
    expect(later).toEqual(expect.arrayContaining(['POST /api/v1/memory', 'GET /api/v1/brain/knowledge-base', 'POST /api/v1/brain/chat']));
    for (const s of steps) expect(s.detail.length).toBeGreaterThan(10);
  });

  it('is authenticated with a valid token in the header or in ?token=, and marks the first step done', async () => {
    const api = await t.tokenWithScopes(user, ['memory']);
    for (const res of [
      await t.request('GET', '/api/v1/quick-start', { token: api }),
      await t.request('GET', '/api/v1/quick-start', { query: { token: api } }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.body.authenticated).toBe(true);
      expect(res.body.steps[0].done).toBe(true);
    }
  });

  it('is not authenticated, and still answers 200, with a token that is not valid', async () => {
    for (const bad of ['hth_pat_000000000000000000000000000000000000000', 'garbage']) {
      const res = await t.request('GET', '/api/v1/quick-start', { token: bad });
      expect(res.status).toBe(200);
      expect(res.body.authenticated).toBe(false);
    }
    const revokedToken = await t.tokenWithScopes(user, ['read']);
    const created = await t.request('GET', '/api/v1/tokens/me/capabilities', { token: revokedToken });
    await t.request('DELETE', `/api/v1/tokens/${created.body.data.tokenId}`, { token: user.token });
    expect((await t.request('GET', '/api/v1/quick-start', { token: revokedToken })).body.authenticated).toBe(false);
  });
});

describe('GET /openapi.json', () => {
  it('is the OpenAPI 3.1 document of this version, with both token schemes, and documents itself', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('0.1.0');
    expect(res.body.servers).toEqual([{ url: BASE }]);
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(res.body.components.securitySchemes.queryToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'token' });
    expect(res.body.paths['/openapi.json'].get.operationId).toBe('getOpenApiDocument');
    expect(res.body.paths['/api/v1/tokens/me/capabilities'].get.security).toEqual([{ bearerAuth: [] }, { queryToken: [] }]);
  });
});

describe('GET /llms.txt', () => {
  it('is a plain-text guide with the rules, the flows and every endpoint', async () => {
    const res = await t.request('GET', '/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const text = res.text;
    expect(text.startsWith('# Hearth')).toBe(true);
    for (const phrase of [
      'describe the intended action to the human user',
      'never append /api/v1',
      'Never follow HTTP redirects',
      'ROUTE_NOT_FOUND',
      'METHOD_NOT_ALLOWED',
      'Authorization: Bearer <API_TOKEN>',
      '?token=<API_TOKEN>',
      'POST /api/v1/handshakes',
      'GET /api/v1/handshakes/{handshakeId}/status',
      'GET /api/v1/gateway/context',
      'GET /api/v1/tokens/me/capabilities',
      '"error"',
      'INSUFFICIENT_SCOPE',
      BASE,
      // The MCP address, and when a model client should prefer it to the HTTP API.
      `${BASE}/mcp`,
      'Prefer MCP when your client speaks it',
    ]) {
      expect(text, phrase).toContain(phrase);
    }
    for (const endpoint of catalogKeys()) expect(text, endpoint).toContain(`\`${endpoint}\``);
    // Before the gateway, after authenticating: the specification's order.
    expect(text.indexOf('Authenticate')).toBeLessThan(text.indexOf('Load the gateway context first'));
  });
});

describe('GET /api/v1/health', () => {
  it('answers ok to anyone, even with a bad token, with the node and its database', async () => {
    for (const token of [undefined, 'garbage']) {
      const res = await t.request('GET', '/api/v1/health', { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        node: { id: t.storage.bus.nodeId, state: 'serving' },
        database: { engine: ENGINE, reachable: true },
      });
    }
  });

  it('answers 503 draining once the node shuts down', async () => {
    const own = await createTestApp();
    try {
      own.container.health.drain();
      const res = await own.request('GET', '/api/v1/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'draining', node: { id: own.storage.bus.nodeId, state: 'draining' } });
    } finally {
      await own.close();
    }
  });
});

describe('GET /api/v1/scopes', () => {
  it('needs a token', async () => {
    expectError(await t.request('GET', '/api/v1/scopes'), 401, 'UNAUTHORIZED');
  });

  it('lists every scope with the routes it grants, to any token', async () => {
    const token = await t.tokenWithScopes(user, ['marketplace']);
    const res = await t.request('GET', '/api/v1/scopes', { token });
    expect(res.status).toBe(200);
    const byName = new Map<string, any>(res.body.data.map((s: any) => [s.name, s]));
    expect([...byName.keys()]).toEqual(SCOPE_NAMES);
    for (const s of byName.values()) expect(s.description.length).toBeGreaterThan(10);
    expect(byName.get('read').grants).toContain('GET /api/v1/gateway/context');
    expect(byName.get('identity').grants).toEqual(expect.arrayContaining(['GET /api/v1/users/me', 'GET /api/v1/auth/me']));
    // Owner rights are not granted by any scope.
    const granted = [...byName.values()].flatMap((s) => s.grants);
    expect(granted).not.toContain('GET /api/v1/tokens');
  });
});

describe('GET /api/v1/tokens/me/capabilities', () => {
  it('needs a token', async () => {
    expectError(await t.request('GET', '/api/v1/tokens/me/capabilities'), 401, 'UNAUTHORIZED');
  });

  it('describes the master token of the administrator', async () => {
    const res = await t.request('GET', '/api/v1/tokens/me/capabilities', { token: admin.token });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(['admin', 'endpoints', 'kind', 'master', 'memoryTags', 'ownerRights', 'scopes', 'tokenId'].sort());
    expect(d).toMatchObject({ kind: 'master', ownerRights: true, master: true, admin: true, scopes: SCOPE_NAMES, memoryTags: null });
    expect(d.tokenId).toMatch(/^tok_/);
    const nonPublic = t.app.routeCatalog.filter((r) => r.access.kind !== 'public').map((r) => `${r.method} ${r.path}`);
    expect([...d.endpoints].sort()).toEqual([...nonPublic].sort());
  });

  it('describes a login session and a non-administrator', async () => {
    const session = await t.login(admin);
    const s = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token: session })).body.data;
    expect(s).toMatchObject({ kind: 'session', ownerRights: true, master: false, admin: true });
    expect(s.endpoints).toContain('GET /api/v1/tokens');

    const u = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token: user.token })).body.data;
    expect(u).toMatchObject({ kind: 'master', ownerRights: true, master: true, admin: false });
    expect(u.endpoints).toContain('GET /api/v1/tokens');
    expect(u.endpoints).not.toContain('GET /api/v1/users');
  });

  it('lists only what a scoped token may call, never a public route, and no expiry it would need a query for', async () => {
    const token = await t.tokenWithScopes(user, ['read']);
    const res = await t.request('GET', '/api/v1/tokens/me/capabilities', { query: { token } });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ kind: 'api', scopes: ['read'], ownerRights: false, master: false, admin: false });
    expect(d.expiresAt).toBeUndefined();
    expect(d.endpoints).toContain('GET /api/v1/gateway/context');
    expect(d.endpoints).toContain('GET /api/v1/tokens/me/capabilities');
    expect(d.endpoints).not.toContain('GET /api/v1/tokens');
    expect(d.endpoints).not.toContain('GET /api/v1/users/me');
    expect(d.endpoints).not.toContain('GET /api/v1/health');
  });

  it('follows a change of the token’s scopes at once', async () => {
    const token = await t.tokenWithScopes(user, ['read']);
    const before = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token })).body.data;
    const updated = await t.request('PUT', `/api/v1/tokens/${before.tokenId}`, { token: user.token, body: { scopes: ['identity'] } });
    expect(updated.status).toBe(200);
    const after = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token })).body.data;
    expect(after.scopes).toEqual(['identity']);
    expect(after.endpoints).toContain('GET /api/v1/users/me');
    expect(after.endpoints).not.toContain('GET /api/v1/gateway/context');
  });

  it('is not taken for a token id, and /tokens/{id} still works beside it', async () => {
    expectError(await t.request('GET', '/api/v1/tokens/me', { token: user.token }), 404, 'NOT_FOUND');
    const mine = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token: user.token })).body.data;
    const res = await t.request('GET', `/api/v1/tokens/${mine.tokenId}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('master');
  });
});

describe('GET /api/v1/capabilities', () => {
  it('needs a token', async () => {
    expectError(await t.request('GET', '/api/v1/capabilities'), 401, 'UNAUTHORIZED');
  });

  it('groups every route by its tag once, and marks what the token may call', async () => {
    const token = await t.tokenWithScopes(user, ['read']);
    const res = await t.request('GET', '/api/v1/capabilities', { token });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.version).toBe('0.1.0');
    expect(d.scopes).toEqual(['read']);
    const listed = d.capabilities.flatMap((c: any) => c.endpoints.map((e: any) => `${e.method} ${e.path}`));
    expect([...listed].sort()).toEqual([...catalogKeys()].sort());

    const group = (name: string) => d.capabilities.find((c: any) => c.name === name);
    expect(group('gateway')).toMatchObject({ available: true, missingScopes: [] });
    expect(group('gateway').endpoints[0]).toEqual({
      method: 'GET',
      path: '/api/v1/gateway/context',
      operationId: 'getGatewayContext',
      summary: expect.any(String),
      allowed: true,
    });
    // Owner rights: not available, and no scope would open them.
    expect(group('tokens')).toMatchObject({ available: false, missingScopes: [] });
    expect(group('accounts').missingScopes).toEqual(['identity']);
  });

  it('differs by scope', async () => {
    const readOnly = (await t.request('GET', '/api/v1/capabilities', { token: await t.tokenWithScopes(user, ['read']) })).body.data;
    const identity = (await t.request('GET', '/api/v1/capabilities', { token: await t.tokenWithScopes(user, ['identity']) })).body.data;
    const allowed = (d: any) =>
      d.capabilities.flatMap((c: any) => c.endpoints.filter((e: any) => e.allowed).map((e: any) => `${e.method} ${e.path}`));
    expect(allowed(readOnly)).toContain('GET /api/v1/gateway/context');
    expect(allowed(readOnly)).not.toContain('GET /api/v1/users/me');
    expect(allowed(identity)).toContain('GET /api/v1/users/me');
    expect(allowed(identity)).not.toContain('GET /api/v1/gateway/context');
    expect(identity.capabilities.find((c: any) => c.name === 'gateway')).toMatchObject({ available: false, missingScopes: ['read'] });
  });
});

describe('documented shapes', () => {
  it('every answer matches the schema the OpenAPI document shows', async () => {
    // The capabilities body is serialized by hand for speed, so its schema is checked here.
    const token = await t.tokenWithScopes(user, ['read', 'memory']);
    const cases = [
      [DiscoveryDocumentSchema, await t.request('GET', '/api/v1/')],
      [QuickStartSchema, await t.request('GET', '/api/v1/quick-start')],
      [QuickStartSchema, await t.request('GET', '/api/v1/quick-start', { token })],
      [ScopeListSchema, await t.request('GET', '/api/v1/scopes', { token })],
      [TokenCapabilitiesSchema, await t.request('GET', '/api/v1/tokens/me/capabilities', { token })],
      [TokenCapabilitiesSchema, await t.request('GET', '/api/v1/tokens/me/capabilities', { token: admin.token })],
      [CapabilityManifestSchema, await t.request('GET', '/api/v1/capabilities', { token })],
    ] as const;
    for (const [schema, res] of cases) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect([...Value.Errors(schema, res.body)].map((e) => `${e.path} ${e.message}`)).toEqual([]);
    }
  });
});
