import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { SESSION_BINDING_HEADER, sessionBinding } from '../../http/access.js';

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

/** Signs in as the console does; `headers` are what its page then sends: the cookie and the session binding. */
async function signIn(who: Owner = owner): Promise<{ cookie: string; setCookie: string; binding: string; headers: Record<string, string> }> {
  const res = await t.request('POST', '/api/v1/auth/session', { body: { email: who.email, password: who.password }, headers: ownPage });
  expect(res.status).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  const binding = res.body.data.sessionBinding as string;
  return { setCookie, cookie, binding, headers: { cookie, [SESSION_BINDING_HEADER]: binding } };
}

describe('the browser session cookie', () => {
  it('is HttpOnly, SameSite=Strict and Secure behind https, and the session never appears in the body (its binding does)', async () => {
    const res = await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password }, headers: ownPage });
    expect(res.status).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-hearth_session=hth_ses_[0-9A-Za-z]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
    const secret = setCookie.split(';')[0]!.split('=')[1]!;
    expect(res.text).not.toContain(secret);
    expect(res.body.data).toMatchObject({ user: { id: owner.id }, expiresAt: expect.any(String), sessionBinding: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(res.body.data.sessionBinding).not.toContain(secret);
  });

  it("authenticates requests from the console's own pages with the session's rights", async () => {
    const { headers } = await signIn();
    const tokens = await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, ...headers } });
    expect(tokens.status).toBe(200);
    // A plain GET from the page sends no Origin; Sec-Fetch-Site still says where it comes from.
    expect((await t.request('GET', '/api/v1/memory', { headers: { 'sec-fetch-site': 'same-origin', ...headers } })).status).toBe(200);
    // Revealing a vault secret needs the master token itself, which a session is not.
    expectError(await t.request('GET', '/api/v1/vault/tokens/vt_x/reveal', { headers: { ...ownPage, ...headers } }), 403, 'FORBIDDEN');
  });

  it('refuses the cookie on a request from another site, or from something that does not say where it comes from', async () => {
    const { headers } = await signIn();
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example', ...headers } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/api/v1/memory', { body: { content: 'planted' }, headers: { 'sec-fetch-site': 'same-site', origin: 'https://sub.hearth.example.org', ...headers } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/api/v1/tokens', { headers }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example', ...headers } }), 401, 'UNAUTHORIZED');
    const memory = await t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(memory.body.data.some((entry: { content: string }) => entry.content === 'planted')).toBe(false);
  });

  it('is no credential for /mcp, whose tools run with a bearer token', async () => {
    const { headers } = await signIn();
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } };
    expectError(
      await t.request('POST', '/mcp', { body: initialize, headers: { ...ownPage, ...headers, accept: 'application/json, text/event-stream' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('carries nothing but a login session: another kind of token in the cookie is refused', async () => {
    // Even with the binding such a token would have.
    const bound = (secret: string) => ({ ...ownPage, cookie: `__Host-hearth_session=${secret}`, [SESSION_BINDING_HEADER]: sessionBinding(secret) });
    expectError(await t.request('GET', '/api/v1/tokens', { headers: bound(owner.token) }), 401, 'UNAUTHORIZED');
    const scoped = await t.tokenWithScopes(owner, ['memory']);
    expectError(await t.request('GET', '/api/v1/memory', { headers: bound(scoped) }), 401, 'UNAUTHORIZED');
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
    const { headers } = await signIn();
    const out = await t.request('DELETE', '/api/v1/auth/session', { headers: { ...ownPage, ...headers } });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^__Host-hearth_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict; Secure$/);
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, ...headers } }), 401, 'UNAUTHORIZED');
  });

  it('reads only the __Host- cookie behind https, which a sibling subdomain cannot set', async () => {
    const { cookie, headers } = await signIn();
    const secret = cookie.split('=')[1]!;
    expectError(await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, ...headers, cookie: `hearth_session=${secret}` } }), 401, 'UNAUTHORIZED');
  });

  it('leaves bearer tokens working as before, whatever cookie comes along', async () => {
    const res = await t.request('GET', '/api/v1/tokens', { token: owner.token, headers: { cookie: '__Host-hearth_session=hth_ses_forged' } });
    expect(res.status).toBe(200);
  });

  it('is refused when a request carries two of it (one planted by a page on another port or path)', async () => {
    const { cookie, headers } = await signIn();
    const other = await signIn();
    const res = await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, ...headers, cookie: `${other.cookie}; ${cookie}` } });
    expectError(res, 401, 'UNAUTHORIZED');
    expect((await t.request('GET', '/api/v1/tokens', { headers: { ...ownPage, ...headers, cookie: `theme=dark; ${cookie}` } })).status).toBe(200);
  });

  it("marks every answer to the session private, so no shared cache keeps the owner's data", async () => {
    const { headers } = await signIn();
    const res = await t.request('GET', '/api/v1/memory', { headers: { ...ownPage, ...headers } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it("acts only with the page's session binding: a cookie alone, or one planted from another port, acts for no session", async () => {
    const mine = await signIn();
    const intruder = await t.createOwner('Intruder');
    const planted = await signIn(intruder);
    // The cookie without the binding (a page that did not sign in, or a tool replaying the cookie).
    const bare = expectError(await t.request('GET', '/api/v1/auth/me', { headers: { ...ownPage, cookie: mine.cookie } }), 401, 'UNAUTHORIZED');
    expect(bare.message).toMatch(/session binding .*sign in again on this page/);
    // Another account's session planted in the cookie (a page on another port of the host set
    // it), sent with the console page's own binding: refused, never answered as the intruder.
    const swapped = await t.request('POST', '/api/v1/memory', { body: { content: 'written as whom?' }, headers: { ...ownPage, cookie: planted.cookie, [SESSION_BINDING_HEADER]: mine.binding } });
    expectError(swapped, 401, 'UNAUTHORIZED');
    expect((await t.request('GET', '/api/v1/memory', { token: intruder.token })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).text).not.toContain('written as whom?');
    // The binding without its cookie, or a made-up one, is nothing either.
    expectError(await t.request('GET', '/api/v1/auth/me', { headers: { ...ownPage, [SESSION_BINDING_HEADER]: mine.binding } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/api/v1/auth/me', { headers: { ...ownPage, cookie: mine.cookie, [SESSION_BINDING_HEADER]: 'x'.repeat(43) } }), 401, 'UNAUTHORIZED');
    // Each session with its own binding.
    expect((await t.request('GET', '/api/v1/auth/me', { headers: { ...ownPage, ...mine.headers } })).body.data.id).toBe(owner.id);
    expect((await t.request('GET', '/api/v1/auth/me', { headers: { ...ownPage, ...planted.headers } })).body.data.id).toBe(intruder.id);
  });

  it('is not read on public routes: they need no one, and a dead cookie does not break them', async () => {
    const res = await t.request('GET', '/api/v1/auth/registration', { headers: { ...ownPage, cookie: '__Host-hearth_session=hth_ses_revoked' } });
    expect(res.status).toBe(200);
    const page = await t.request('GET', '/', { headers: { ...ownPage, cookie: '__Host-hearth_session=hth_ses_revoked' } });
    expect(page.status).toBe(200);
  });
});
