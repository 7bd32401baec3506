/**
 * What a proxy, execute or pass-through call must never send upstream: a path an upstream could
 * read as a dot segment however it is spelled (Tomcat's `..;`, encoded forms, dots only), and a
 * Hearth token, in the query or a header.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { rawGet } from '../../../test/raw-http.js';
import { AppError } from '../../http/errors.js';
import { safeRelativePath } from './integrations.engine.js';

let t: TestApp;
let fake: FakeUpstream;
let owner: Owner;
let reader: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  t = await createTestApp({ config: { allowPrivateNetwork: true } });
  owner = await t.createOwner('Leaky');
  const created = await t.request('POST', '/api/v1/connectors', { token: owner.token, body: { name: 'up', baseUrl: `${fake.url}/api`, authType: 'none' } });
  expect(created.status).toBe(201);
  reader = await t.tokenWithScopes(owner, ['services:read', 'services:write']);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const TRICKY_PATHS = [
  '/a/..;/admin',
  '/..;/manager/html',
  '/a/..;jsessionid=x/b',
  '/a/%2e%2e;/admin',
  '/a/..%3b/admin',
  '/a/%2e%2e%3bx/admin',
  '/a/.;/b',
  '/a/.../b',
  '/a/..%20/b',
  '/a/..%00/b',
  '/a/\uff0e\uff0e/b',
  '/a/%EF%BC%8E%EF%BC%8E/b',
  // Trailing dots and spaces that Windows drops repeatedly, and a fullwidth solidus folded to "/".
  '/x/..%20./secret',
  '/x/.%20.%20/secret',
  '/x/..%EF%BC%8F..%EF%BC%8Fadmin',
  '/x/a%EF%BC%8F..%EF%BC%8Fadmin',
];

describe('dot segments in any spelling', () => {
  it.each(TRICKY_PATHS)('safeRelativePath refuses %j', (path) => {
    let error: unknown;
    try {
      safeRelativePath(path, 'body.path');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details).toEqual([expect.objectContaining({ field: 'body.path' })]);
  });

  it('keeps names that merely contain dots or semicolons', () => {
    for (const path of ['/v1/a..b/c.d', '/files/.env.example', '/matrix;v=1/x', '/a/..b;c']) {
      expect(safeRelativePath(path).pathname).toBe(path);
    }
  });

  it('proxy and execute answer 400 and send nothing', async () => {
    for (const path of TRICKY_PATHS) {
      const proxied = await t.request('POST', '/api/v1/services/up/proxy', { token: reader, body: { method: 'GET', path } });
      expect(expectError(proxied, 400, 'VALIDATION_ERROR').details, path).toEqual([expect.objectContaining({ field: 'body.path' })]);
      const executed = await t.request('POST', '/api/v1/services/up/execute', {
        token: reader,
        body: { method: 'request', params: { httpMethod: 'GET', path } },
      });
      expectError(executed, 400, 'VALIDATION_ERROR');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('the pass-through refuses them as they arrive on the wire', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    for (const path of ['/api/v1/services/up/..;/admin', '/api/v1/services/up/a/..;x/..;y/admin', '/api/v1/services/up/%2e%2e%3b/admin']) {
      const answer = await rawGet(address, path, { authorization: `Bearer ${reader}` });
      expect(answer.status, path).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'path' }] });
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe('Hearth tokens are never sent upstream', () => {
  it('a pass-through query carrying a Hearth token answers 400 naming where', async () => {
    const withHeader = await t.request('GET', `/api/v1/services/up/items?token=${reader}&x=1`, { token: reader });
    const error = expectError(withHeader, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/Hearth token/);
    for (const url of [
      `/api/v1/services/up/items?api_key=${reader}`,
      `/api/v1/services/up/items?q=${encodeURIComponent(`Bearer ${reader}`)}`,
      `/api/v1/services/up/items?q=${encodeURIComponent(encodeURIComponent(reader))}`,
      `/api/v1/services/up/${reader}/items`,
      // Encoded twice: the query arrives as %68th_… and the service would decode it to the token.
      `/api/v1/services/up/items?q=${reader.replace(/^h/, '%2568')}`,
      `/api/v1/services/up/items?q=${reader.replace(/_/g, '%255F')}`,
    ]) {
      expectError(await t.request('GET', url, { token: reader }), 400, 'VALIDATION_ERROR');
    }
    // Authenticated by ?token= alone, a second copy under another name is refused too.
    expectError(await t.request('GET', `/api/v1/services/up/items?token=${reader}&key=${reader}`), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(fake.requests)).not.toContain('hth_');
    expect(fake.requests).toHaveLength(0);
  });

  it('proxy and execute refuse it in the query, the path and headers', async () => {
    const attempts: unknown[] = [
      { method: 'GET', path: '/items', query: { key: reader } },
      { method: 'GET', path: '/items', query: { key: reader.replace(/_/g, '%5F') } },
      { method: 'GET', path: `/items?key=${reader}` },
      { method: 'GET', path: '/items', headers: { 'x-forwarded-key': reader } },
      { method: 'GET', path: '/items', headers: { 'x-note': `Bearer ${owner.token}` } },
      { method: 'POST', path: '/items', headers: { 'x-upstream': reader }, body: { a: 1 } },
    ];
    for (const body of attempts) {
      const res = await t.request('POST', '/api/v1/services/up/proxy', { token: reader, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    const executed = await t.request('POST', '/api/v1/services/up/execute', {
      token: reader,
      body: { method: 'request', params: { httpMethod: 'GET', path: '/items', query: { access_token: owner.token } } },
    });
    const error = expectError(executed, 400, 'VALIDATION_ERROR');
    // Each field is named where the request holds it.
    expect(error.details).toEqual([expect.objectContaining({ field: 'body.params.query.access_token' })]);
    const proxied = await t.request('POST', '/api/v1/services/up/proxy', { token: reader, body: { method: 'GET', path: '/items', headers: { 'x-note': reader } } });
    expect(expectError(proxied, 400, 'VALIDATION_ERROR').details).toEqual([expect.objectContaining({ field: 'body.headers.x-note' })]);
    expect(fake.requests).toHaveLength(0);
  });

  it('other values pass as before', async () => {
    const res = await t.request('POST', '/api/v1/services/up/proxy', {
      token: reader,
      body: { method: 'GET', path: '/items?token=upstream-value', query: { q: 'hth_ is a prefix' }, headers: { 'x-note': 'fine' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(fake.requests).toHaveLength(1);
  });
});
