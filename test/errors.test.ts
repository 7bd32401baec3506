import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type ApiResponse, type Owner, type RequestOptions, type TestApp } from './harness.js';

/**
 * Every framework error answers the conventions' shape `{ error, message, details? }` with the
 * right status and code, as JSON, with an x-request-id, never HTML, a stack trace or a redirect.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

let t: TestApp;
let small: TestApp;
let owner: Owner;
/** Every answer this file received, checked as a whole at the end. */
const answers: Array<{ label: string; res: ApiResponse }> = [];

async function call(app: TestApp, method: Method, url: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const res = await app.request(method, url, options);
  answers.push({ label: `${method} ${url}`, res });
  return res;
}

function expectShape(res: ApiResponse): void {
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(typeof res.body.error).toBe('string');
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(5);
  for (const key of Object.keys(res.body)) expect(['error', 'message', 'details', 'requestId']).toContain(key);
}

function fieldsOf(res: ApiResponse): string[] {
  expect(Array.isArray(res.body.details)).toBe(true);
  for (const detail of res.body.details) {
    expect(Object.keys(detail).sort()).toEqual(['field', 'message']);
    expect(typeof detail.message).toBe('string');
  }
  return res.body.details.map((d: { field: string }) => d.field);
}

beforeAll(async () => {
  t = await createTestApp();
  small = await createTestApp({ config: { bodyLimit: 2048 } });
  owner = await t.createOwner();
});
afterAll(async () => {
  await t.close();
  await small.close();
});

describe('unknown routes', () => {
  it('answer 404 ROUTE_NOT_FOUND naming the path, with or without a token', async () => {
    for (const url of ['/api/v1/nothing-here', '/api/v2/tokens', '/no-page-here', '/favicon.ico', '/api/v1/tokens/abc/def/ghi']) {
      const res = await call(t, 'GET', url);
      expectShape(res);
      expectError(res, 404, 'ROUTE_NOT_FOUND');
      expect(res.body.message).toContain(url.split('?')[0]);
    }
    const withToken = await call(t, 'GET', '/api/v1/nothing-here', { token: owner.token });
    expectError(withToken, 404, 'ROUTE_NOT_FOUND');
    const badToken = await call(t, 'GET', '/api/v1/nothing-here', { token: 'hth_pat_bogus' });
    expectError(badToken, 404, 'ROUTE_NOT_FOUND');
  });

  it('answer 405 METHOD_NOT_ALLOWED with Allow for a method the path does not have', async () => {
    for (const method of ['PATCH', 'OPTIONS', 'HEAD'] as const) {
      const res = await call(t, method, '/api/v1/tokens', { token: owner.token });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST');
      if (method !== 'HEAD') expectError(res, 405, 'METHOD_NOT_ALLOWED');
    }
    expectError(await call(t, 'DELETE', '/api/v1/auth/login', { token: owner.token }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('answer 404 ROUTE_NOT_FOUND for a doubled /api/v1 prefix, explaining the base address', async () => {
    for (const url of ['/api/v1/api/v1/tokens', '/api/v1/api/v1/auth/me', '/api/v1/api/v1/']) {
      const res = await call(t, 'GET', url, { token: owner.token });
      expectShape(res);
      expectError(res, 404, 'ROUTE_NOT_FOUND');
      expect(res.body.message).toMatch(/base address must not include \/api\/v1/);
    }
    const post = await call(t, 'POST', '/api/v1/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
    expectError(post, 404, 'ROUTE_NOT_FOUND');
    expect(post.text).not.toContain('hth_');
  });
});

describe('request bodies', () => {
  it('bad JSON answers 400 VALIDATION_ERROR', async () => {
    for (const body of ['{"email": "a@example.test",', '{email: 1}', 'not json', '[1, 2', '{"__proto__": {"admin": true}}']) {
      const res = await call(t, 'POST', '/api/v1/auth/login', { body, headers: { 'content-type': 'application/json' } });
      expectShape(res);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message).toMatch(/JSON/);
    }
  });

  it('a body over the limit answers 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ email: 'a@example.test', password: 'x'.repeat(4096) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(4096);
    const res = await call(small, 'POST', '/api/v1/auth/login', { body: big, headers: { 'content-type': 'application/json' } });
    expectShape(res);
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');

    const smallOwner = await small.createOwner();
    const tokenRes = await call(small, 'POST', '/api/v1/tokens', {
      token: smallOwner.token,
      body: { name: 'n'.repeat(4096), scopes: ['memory'] },
    });
    expectError(tokenRes, 413, 'PAYLOAD_TOO_LARGE');

    // Under the limit the same route works.
    const ok = await call(small, 'POST', '/api/v1/auth/login', { body: { email: smallOwner.email, password: smallOwner.password } });
    expect(ok.status).toBe(200);
  });

  it('a Content-Type the route does not take answers 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const cases: Array<[string, string]> = [
      ['text/plain', `{"email":"${owner.email}","password":"${owner.password}"}`],
      ['application/xml', '<login/>'],
      ['application/x-www-form-urlencoded', `email=${encodeURIComponent(owner.email)}&password=x`],
      ['multipart/form-data; boundary=x', '--x--'],
    ];
    for (const [type, body] of cases) {
      const res = await call(t, 'POST', '/api/v1/auth/login', { body, headers: { 'content-type': type } });
      expectShape(res);
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(res.text).not.toContain('hth_');
    }
    const tokenRes = await call(t, 'POST', '/api/v1/tokens', { token: owner.token, body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expectError(tokenRes, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a JSON Content-Type with an empty body is served on a bodiless POST', async () => {
    const session = await t.login(owner);
    const res = await call(t, 'POST', '/api/v1/tokens/master/regenerate', { token: owner.token, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body.data.token).toMatch(/^hth_mst_/);
    owner.token = res.body.data.token;

    const api = await t.tokenWithScopes(owner, ['memory']);
    const list = await call(t, 'GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'api' } });
    const apiId = list.body.data[0].id;
    const regen = await call(t, 'POST', `/api/v1/tokens/${apiId}/regenerate`, {
      token: owner.token,
      body: '',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(regen.status).toBe(200);
    expect(regen.body.data.token).not.toBe(api);

    const logout = await call(t, 'POST', '/api/v1/auth/logout', { token: session, body: '   ', headers: { 'content-type': 'application/json' } });
    expect(logout.status).toBe(200);

    // A route that needs a body still says so.
    const login = await call(t, 'POST', '/api/v1/auth/login', { headers: { 'content-type': 'application/json' } });
    expectError(login, 400, 'VALIDATION_ERROR');
  });
});

describe('validation errors', () => {
  it('list each failing body field in details', async () => {
    const res = await call(t, 'POST', '/api/v1/tokens', {
      token: owner.token,
      body: { name: '', scopes: ['memory', 'bogus'], expiresAt: 'soon', extra: true },
    });
    expectShape(res);
    expectError(res, 400, 'VALIDATION_ERROR');
    const fields = fieldsOf(res);
    for (const field of ['body.name', 'body.scopes.1', 'body.expiresAt', 'body.extra']) expect(fields).toContain(field);
    expect(fields.filter((f) => f === 'body.scopes.1')).toHaveLength(1);
    expect(fields.filter((f) => f === 'body.expiresAt').length).toBeGreaterThanOrEqual(1);
    expect(res.body.message).toMatch(/^Invalid request: body\./);
    expect(res.body.details).toContainEqual({ field: 'body.extra', message: 'is not an accepted field' });

    const missing = await call(t, 'POST', '/api/v1/tokens', { token: owner.token, body: {} });
    const missingFields = fieldsOf(missing);
    expect(missingFields).toContain('body.name');
    expect(missingFields).toContain('body.scopes');
  });

  it('name query and path parameters too', async () => {
    const query = await call(t, 'GET', '/api/v1/tokens', { token: owner.token, query: { limit: 'abc', kind: 'nope' } });
    expectError(query, 400, 'VALIDATION_ERROR');
    const queryFields = fieldsOf(query);
    expect(queryFields).toContain('querystring.limit');
    expect(queryFields).toContain('querystring.kind');
    expect(query.body.details).toContainEqual({ field: 'querystring.kind', message: 'must be one of: master, session, api, handshake, oauth' });
    expect(queryFields.filter((f) => f === 'querystring.kind')).toHaveLength(1);

    const params = await call(t, 'GET', `/api/v1/tokens/${'x'.repeat(101)}`, { token: owner.token });
    expectError(params, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(params)).toContain('params.id');
  });

  it('an id holding a NUL or other non-id characters answers 400, on both engines', async () => {
    for (const id of ['tok_%00abc', 'a%20b', '..%2F..%2Fetc']) {
      const res = await call(t, 'GET', `/api/v1/tokens/${id}`, { token: owner.token });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toContain('params.id');
    }
  });

  it('a malformed or over-long address answers 400 in the same shape', async () => {
    const badEncoding = await call(t, 'GET', '/api/v1/tokens/%E0%A4%A', { token: owner.token });
    expectShape(badEncoding);
    expectError(badEncoding, 400, 'VALIDATION_ERROR');
    expect(badEncoding.headers['x-request-id']).toMatch(/^req_/);

    const longParam = await call(t, 'GET', `/api/v1/tokens/${'a'.repeat(600)}`, { token: owner.token });
    expectShape(longParam);
    expectError(longParam, 400, 'VALIDATION_ERROR');
    expect(longParam.text.length).toBeLessThan(400);
  });
});

describe('internal errors', () => {
  it('answer 500 INTERNAL_ERROR with the request id and nothing internal', async () => {
    const victim = await t.createOwner();
    const created = await call(t, 'POST', '/api/v1/tokens', { token: victim.token, body: { name: 'broken', scopes: ['identity'] } });
    expect(created.status).toBe(201);
    // Corrupt the stored row so that reading it throws inside the server.
    await t.storage.db.updateTable('tokens').set({ scopes: '{not json' }).where('id', '=', created.body.data.id).execute();

    const res = await call(t, 'GET', '/api/v1/auth/me', { token: created.body.data.token });
    expectShape(res);
    expectError(res, 500, 'INTERNAL_ERROR');
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(res.text).not.toMatch(/JSON|SyntaxError|\.ts:|\.js:|\n\s+at /);
    expect(res.body.details).toBeUndefined();

    // The server keeps serving.
    expect((await call(t, 'GET', '/api/v1/auth/me', { token: victim.token })).status).toBe(200);
  });
});

describe('every answer of this file', () => {
  it('asked for HTML, still answers JSON', async () => {
    const headers = { accept: 'text/html,application/xhtml+xml' };
    const notFound = await call(t, 'GET', '/nowhere', { headers });
    expectShape(notFound);
    const unauthorized = await call(t, 'GET', '/api/v1/tokens', { headers });
    expectShape(unauthorized);
    expectError(unauthorized, 401, 'UNAUTHORIZED');
  });

  it('never redirects: trailing slashes and odd paths are served or 404, never 3xx', async () => {
    const trailing = await call(t, 'GET', '/api/v1/tokens/', { token: owner.token });
    expect(trailing.status).toBe(200);
    const bare = await call(t, 'GET', '/api/v1', { token: owner.token });
    const slashed = await call(t, 'GET', '/api/v1/', { token: owner.token });
    expect(bare.status).toBe(slashed.status);
    for (const url of ['//api/v1/tokens', '/api/v1//tokens', '/API/V1/tokens', '/api/v1/auth/me/']) {
      await call(t, 'GET', url, { token: owner.token });
    }
  });

  it('is JSON (or empty), carries x-request-id, has no stack trace, and is never a redirect', () => {
    expect(answers.length).toBeGreaterThan(40);
    const requestIds = new Set<string>();
    for (const { label, res } of answers) {
      expect(res.status < 300 || res.status >= 400, `${label} answered ${res.status}`).toBe(true);
      expect(res.headers.location, label).toBeUndefined();
      const id = res.headers['x-request-id'];
      expect(id, label).toMatch(/^req_[0-9A-Z]{26}$/);
      requestIds.add(String(id));
      if (res.text.length > 0) {
        expect(String(res.headers['content-type']), label).toMatch(/^application\/json/);
        expect(res.text.trimStart().startsWith('<'), label).toBe(false);
        expect(res.text, label).not.toMatch(/<html|<!DOCTYPE|\n\s+at |node_modules|FST_ERR|"statusCode"|"stack"/i);
      }
      if (res.status >= 400 && res.text.length > 0) {
        expect(res.body.error, label).toMatch(/^[A-Z_]+$/);
        expect(typeof res.body.message, label).toBe('string');
      }
    }
    expect(requestIds.size).toBe(answers.length);
  });
});
