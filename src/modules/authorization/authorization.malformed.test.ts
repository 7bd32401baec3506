/**
 * Malformed requests to the OAuth protocol endpoints (token, revocation, registration) answer
 * the RFCs' own error with 400, as OAuth clients read it: they used to fail while their error
 * was written (500 FST_ERR_FAILED_ERROR_SERIALIZATION), because the API's error shape does not
 * fit the 400 these routes declare.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

function expectOAuthError(res: { status: number; body: any; headers: Record<string, unknown> }, code: string, what: string): string {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body, what).toEqual({ error: code, error_description: expect.any(String) });
  expect(res.headers['cache-control'], what).toBe('no-store');
  return res.body.error_description as string;
}

const WRONG_JSON = [[1], 1, 'a string', null, true, [], { grant_type: ['a', 'b'] }, { client_id: { nested: 1 } }];

describe('the token and revocation endpoints (RFC 6749 §5.2, RFC 7009 §2.2.1)', () => {
  for (const path of ['/token', '/revoke']) {
    it(`${path}: a body that is not a form of strings is 400 invalid_request, never a 500`, async () => {
      for (const body of WRONG_JSON) {
        const res = await t.request('POST', path, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
        expectOAuthError(res, 'invalid_request', `${path} ${JSON.stringify(body)}`);
      }
      const described = expectOAuthError(await t.request('POST', path, { body: '[1]', headers: { 'content-type': 'application/json' } }), 'invalid_request', 'array');
      expect(described).toMatch(/body must be a JSON object.*application\/x-www-form-urlencoded/);
    });

    it(`${path}: a body that does not parse, or of a type it does not take, is 400 invalid_request`, async () => {
      expectOAuthError(await t.request('POST', path, { body: '{"grant_type":', headers: { 'content-type': 'application/json' } }), 'invalid_request', 'bad JSON');
      const media = expectOAuthError(await t.request('POST', path, { body: 'grant_type=x', headers: { 'content-type': 'text/plain' } }), 'invalid_request', 'text/plain');
      expect(media).toMatch(/application\/x-www-form-urlencoded/);
    });
  }

  it('a well-formed form still reaches the endpoint and gets its own protocol errors', async () => {
    const res = await t.request('POST', '/token', { body: 'grant_type=password&client_id=nobody', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });

  it('a body over the size limit is still 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.request('POST', '/token', { body: `grant_type=${'x'.repeat(20_000)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('client registration (RFC 7591 §3.2.2)', () => {
  it('metadata that is not a JSON object, or of the wrong types, is 400 invalid_client_metadata, never a 500', async () => {
    for (const body of [[1], 'a string', null, { redirect_uris: [{ uri: 'https://example.com/cb' }] }, { client_name: { first: 'x' } }, { grant_types: 'x'.repeat(200) }]) {
      const res = await t.request('POST', '/register', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const described = expectOAuthError(res, 'invalid_client_metadata', JSON.stringify(body));
      expect(described).toMatch(/JSON object \(RFC 7591/);
    }
    expectOAuthError(await t.request('POST', '/register', { body: 'hello', headers: { 'content-type': 'text/plain' } }), 'invalid_client_metadata', 'text/plain');
  });
});
