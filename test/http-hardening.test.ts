/**
 * HTTP edges that answered 500, a reset or the wrong status: non-finite numbers in query
 * parameters, a known path with a method it does not take.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from './harness.js';

let t: TestApp;
let admin: Owner;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.createOwner('Admin'); // the first account: the administrator, every right
  expect(admin.role).toBe('admin');
});
afterAll(async () => {
  await t.close();
});

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: { type?: string; enum?: unknown[]; const?: unknown; anyOf?: unknown[] };
}

/** A value the parameter's schema accepts, so that the request gets past path validation. */
function validPathValue(param: OpenApiParameter): string {
  const schema = param.schema ?? {};
  if (schema.enum) return String(schema.enum[0]);
  if (schema.type === 'integer' || schema.type === 'number') return '1';
  return 'abc';
}

describe('numeric query parameters', () => {
  it('every GET route answers 400 VALIDATION_ERROR, never 500, for Infinity, 1e999 or a 400-digit number', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
    };
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      const get = operations.get;
      if (!get?.parameters) continue;
      const numeric = get.parameters.filter((p) => p.in === 'query' && (p.schema?.type === 'integer' || p.schema?.type === 'number'));
      if (numeric.length === 0) continue;
      let url = path;
      for (const p of get.parameters.filter((q) => q.in === 'path')) url = url.replace(`{${p.name}}`, validPathValue(p));
      url = url.replace('/*', '/anything');
      // A required text parameter (a search's q) is given, so that the number is what is refused.
      const required = Object.fromEntries(get.parameters.filter((p) => p.in === 'query' && p.required && p.schema?.type === 'string').map((p) => [p.name, 'word']));
      for (const param of numeric) {
        for (const bad of ['Infinity', '-Infinity', '1e999', '9'.repeat(400)]) {
          const res = await t.request('GET', url, { token: admin.token, query: { ...required, [param.name]: bad } });
          expect(res.status, `${url}?${param.name}=${bad.slice(0, 12)}: ${res.text}`).toBe(400);
          expectError(res, 400, 'VALIDATION_ERROR');
          expect(res.body.details[0].field).toBe(`querystring.${param.name}`);
        }
        checked.push(`${url} ${param.name}`);
      }
    }
    // The paged lists of the issue are among those walked.
    for (const path of ['/api/v1/users limit', '/api/v1/audit/log limit', '/api/v1/vault/tokens limit', '/api/v1/memory limit']) {
      expect(checked).toContain(path);
    }
  });

  it('a finite limit within bounds is still served', async () => {
    const res = await t.request('GET', '/api/v1/memory', { token: admin.token, query: { limit: '5' } });
    expect(res.status).toBe(200);
    expectError(await t.request('GET', '/api/v1/memory', { token: admin.token, query: { limit: '201' } }), 400, 'VALIDATION_ERROR');
  });

  it('a body field coerced from a string is bounded too', async () => {
    // AFP exec's timeout is an integer; "1e999" used to coerce to Infinity past its maximum.
    const res = await t.request('POST', '/api/v1/afp/dev_x/exec', { token: admin.token, body: { cmd: 'true', timeout: '1e999' } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.details[0].field).toBe('body.timeout');
  });
});

describe('a known path with a method it does not take', () => {
  it('answers 405 METHOD_NOT_ALLOWED with an Allow header listing the methods it takes', async () => {
    const res = await t.request('PUT', '/api/v1/memory', { token: admin.token, body: { content: 'x' } });
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET, POST, DELETE');
    expect(res.body.message).toContain('GET, POST, DELETE');
  });

  it('counts routes with parameters and the services wildcard as the router does', async () => {
    const byId = await t.request('PUT', '/api/v1/memory/mem_123', { token: admin.token, body: { content: 'x' } });
    expectError(byId, 405, 'METHOD_NOT_ALLOWED');
    expect(byId.headers.allow).toBe('PATCH, DELETE');
    const wildcard = await t.request('DELETE', '/api/v1/services/github/repos/x', { token: admin.token });
    expectError(wildcard, 405, 'METHOD_NOT_ALLOWED');
    expect(wildcard.headers.allow).toBe('GET');
    const execute = await t.request('PUT', '/api/v1/services/github/execute', { token: admin.token });
    expectError(execute, 405, 'METHOD_NOT_ALLOWED');
    expect(String(execute.headers.allow).split(', ').sort()).toEqual(['GET', 'POST']);
  });

  it('answers the same without a token, and unknown paths stay 404 ROUTE_NOT_FOUND', async () => {
    const anonymous = await t.request('PATCH', '/api/v1/tokens');
    expectError(anonymous, 405, 'METHOD_NOT_ALLOWED');
    expect(anonymous.headers.allow).toBe('GET, POST');
    expectError(await t.request('PUT', '/api/v1/nothing-here', { token: admin.token }), 404, 'ROUTE_NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/api/v1/memory', { token: admin.token }), 404, 'ROUTE_NOT_FOUND');
  });
});
