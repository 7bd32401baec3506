import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

/** The console's session cookie: what a browser sends from the console's pages, and what another site's page makes it send. */
let t: TestApp;
let owner: Owner;
const ORIGIN = 'https://hearth.example.org';
const ownPage = { 'sec-fetch-site': 'same-origin', origin: ORIGIN };

beforeAll(async () => {
  t = await createTestApp({ config: { publicBaseUrl: ORIGIN } });
  owner = await t.createOwner('Browser Owner');
});
afterAll(async () => t.close());

async function signIn(): Promise<{ cookie: string; setCookie: string }> {
  const res = await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password }, headers: ownPage });
  expect(res.status).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  return { setCookie, cookie: setCookie.split(';')[0]! };
}

describe('the browser session cookie', () => {
  it('is HttpOnly, SameSite=Strict and Secure behind https, and the session never appears in the body', async () => {
    const res = await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password }, headers: ownPage });
    expect(res.status).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-hearth_session=hth_ses_[0-9A-Za-z]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
    const secret = setCookie.split(';')[0]!.split('=')[1]!;
    expect(res.text).not.toContain(secret);
    expect(res.body.data).toMatchObject({ user: { id: owner.id }, expiresAt: expect.any(String) });
  });

  it("authenticates requests from the console's own pages with the session's rights", async () => {
    const { cookie } = await signIn();
    const tokens = await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, cookie } });
    expect(tokens.status).toBe(200);
    // A plain GET from the page sends no Origin; Sec-Fetch-Site still says where it comes from.
    expect((await t.request('GET', '/api/v1/memory', { headers: { 'sec-fetch-site': 'same-origin', cookie } })).status).toBe(200);
    // Revealing a vault secret needs the master token itself, which a session is not.
    expectError(await t.request('GET', '/api/v1/vault/tokens/vt_x/reveal', { headers: { ...ownPage, cookie } }), 403, 'FORBIDDEN');
  });

  it('refuses the cookie on a request from another site, or from something that does not say where it comes from', async () => {
    const { cookie } = await signIn();
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example', cookie } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/api/v1/memory', { body: { content: 'planted' }, headers: { 'sec-fetch-site': 'same-site', origin: 'https://sub.hearth.example.org', cookie } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { cookie } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example', cookie } }), 401, 'UNAUTHORIZED');
    const memory = await t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(memory.body.data.some((entry: { content: string }) => entry.content === 'planted')).toBe(false);
  });

  it('is no credential for /mcp, whose tools run with a bearer token', async () => {
    const { cookie } = await signIn();
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } };
    expectError(
      await t.request('POST', '/mcp', { body: initialize, headers: { ...ownPage, cookie, accept: 'application/json, text/event-stream' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('carries nothing but a login session: another kind of token in the cookie is refused', async () => {
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, cookie: `__Host-hearth_session=${owner.token}` } }), 401, 'UNAUTHORIZED');
    const scoped = await t.tokenWithScopes(owner, ['memory']);
    expectError(await t.request('GET', '/api/v1/memory', { headers: { ...ownPage, cookie: `__Host-hearth_session=${scoped}` } }), 401, 'UNAUTHORIZED');
  });

  it("is opened only from the console's own pages, with the right password", async () => {
    expectError(
      await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password }, headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } }),
      403,
      'FORBIDDEN',
    );
    expectError(await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password } }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: 'wrong' }, headers: ownPage }), 401, 'UNAUTHORIZED');
  });

  it('signs out: the session is revoked and the cookie cleared', async () => {
    const { cookie } = await signIn();
    const out = await t.request('DELETE', '/api/v1/auth/session', { headers: { ...ownPage, cookie } });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^__Host-hearth_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict; Secure$/);
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, cookie } }), 401, 'UNAUTHORIZED');
  });

  it('reads only the __Host- cookie behind https, which a sibling subdomain cannot set', async () => {
    const { cookie } = await signIn();
    const secret = cookie.split('=')[1]!;
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, cookie: `hearth_session=${secret}` } }), 401, 'UNAUTHORIZED');
  });

  it('leaves bearer tokens working as before, whatever cookie comes along', async () => {
    const res = await t.request('GET', '/api/v1/tokens', { token: owner.token, headers: { cookie: '__Host-hearth_session=hth_ses_forged' } });
    expect(res.status).toBe(200);
  });

  it('is refused when a request carries two of it (one planted by a page on another port or path)', async () => {
    const { cookie } = await signIn();
    const other = await signIn();
    const res = await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, cookie: `${other.cookie}; ${cookie}` } });
    expectError(res, 401, 'UNAUTHORIZED');
    expect((await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, cookie: `theme=dark; ${cookie}` } })).status).toBe(200);
  });

  it("marks every answer to the session private, so no shared cache keeps the owner's data", async () => {
    const { cookie } = await signIn();
    const res = await t.request('GET', '/api/v1/memory', { headers: { ...ownPage, cookie } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('is not read on public routes: they need no one, and a dead cookie does not break them', async () => {
    const res = await t.request('GET', '/api/v1/auth/registration', { headers: { ...ownPage, cookie: '__Host-hearth_session=hth_ses_revoked' } });
    expect(res.status).toBe(200);
    const page = await t.request('GET', '/', { headers: { ...ownPage, cookie: '__Host-hearth_session=hth_ses_revoked' } });
    expect(page.status).toBe(200);
  });
});
