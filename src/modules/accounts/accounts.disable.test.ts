import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';
import { SESSION_BINDING_HEADER } from '../../http/access.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';

/** The administrator disables an account (PUT /api/v1/users/{id}/status) and enables it again. */

const USER_KEYS = ['createdAt', 'disabled', 'disabledAt', 'email', 'id', 'name', 'planId', 'role', 'updatedAt'];
const ORIGIN = 'https://hearth.example.org';
const ownPage = { 'sec-fetch-site': 'same-origin', origin: ORIGIN };

let t: TestApp;
let admin: Owner;

beforeAll(async () => {
  t = await createTestApp({ config: { publicBaseUrl: ORIGIN } });
  admin = await t.createOwner('Admin');
});
afterAll(async () => t.close());

const setStatus = (id: string, body: unknown, token = admin.token) => t.request('PUT', `/api/v1/users/${id}/status`, { token, body });

/** Every way `owner` reaches the API: its master token, a login session, a scoped token, an agent's handshake token, the console's cookie. */
async function credentialsOf(owner: Owner) {
  const session = await t.login(owner);
  const scoped = await t.tokenWithScopes(owner, ['memory']);
  const created = await t.request('POST', '/api/v1/handshakes', {
    body: { agentId: `agent-${randomBytes(3).toString('hex')}`, requestedScopes: ['read'], message: 'An assistant', ownerId: owner.id },
  });
  expect(created.status).toBe(201);
  const approved = await t.request('POST', `/api/v1/handshakes/${created.body.data.handshakeId}/approve`, { token: owner.token });
  expect(approved.status).toBe(200);
  const handshake: string = approved.body.data.token;
  const browser = await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password }, headers: ownPage });
  expect(browser.status).toBe(200);
  const cookie = String(browser.headers['set-cookie']).split(';')[0]!;
  const consoleHeaders = { ...ownPage, cookie, [SESSION_BINDING_HEADER]: browser.body.data.sessionBinding as string };
  return { master: owner.token, session, scoped, handshake, consoleHeaders };
}

type Credentials = Awaited<ReturnType<typeof credentialsOf>>;

/**
 * One request per credential, each to a route it may call: through `inject` and over HTTP (the
 * front door answers the capabilities of a token it has cached without reaching Fastify).
 */
async function useEach(c: Credentials): Promise<ApiResponse[]> {
  return [
    await t.request('GET', '/api/v1/auth/me', { token: c.master }),
    await t.request('GET', '/api/v1/auth/me', { token: c.session }),
    await t.request('GET', '/api/v1/memory', { token: c.scoped }),
    await t.request('GET', '/api/v1/identity', { token: c.handshake }),
    await t.request('GET', '/api/v1/auth/me', { headers: c.consoleHeaders }),
    await t.http('GET', '/api/v1/tokens/me/capabilities', { token: c.scoped }),
    await t.http('GET', '/api/v1/tokens/me/capabilities', { token: c.handshake }),
    await t.http('GET', '/api/v1/memory', { token: c.session }),
  ];
}

async function auditActions(token: string, action: string): Promise<Array<{ action: string; outcome: string; targetId: string | null; details: unknown }>> {
  const res = await t.request('GET', '/api/v1/audit/log', { token, query: { action, limit: 200 } });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('PUT /api/v1/users/{id}/status', () => {
  it('disables an account: its sign-in and every one of its tokens are refused at once with 403 ACCOUNT_DISABLED', async () => {
    const user = await t.createOwner('To disable');
    const c = await credentialsOf(user);
    // Each credential works, and is cached (twice: the second answer comes from the caches).
    for (let round = 0; round < 2; round++) for (const res of await useEach(c)) expect(res.status, res.text).toBe(200);

    const res = await setStatus(user.id, { disabled: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(USER_KEYS);
    expect(res.body.data).toMatchObject({ id: user.id, disabled: true, role: 'user' });
    expect(Date.parse(res.body.data.disabledAt)).toBeGreaterThan(Date.now() - 60_000);

    for (const refused of await useEach(c)) {
      const body = expectError(refused, 403, 'ACCOUNT_DISABLED');
      expect(body.message).toMatch(/administrator disabled/);
    }
    // MCP is refused the same way before any tool runs.
    expectError(
      await t.request('POST', '/mcp', { token: c.scoped, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } }),
      403,
      'ACCOUNT_DISABLED',
    );

    // The right password says why; a wrong one says nothing of the account's state.
    const login = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } });
    expect(expectError(login, 403, 'ACCOUNT_DISABLED').message).toMatch(/administrator disabled this account/);
    expectError(await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'not the password' } }), 401, 'UNAUTHORIZED');
    expectError(
      await t.request('POST', '/api/v1/auth/session', { body: { email: user.email, password: user.password }, headers: ownPage }),
      403,
      'ACCOUNT_DISABLED',
    );
    // Nobody can address a handshake to it: it could not answer.
    expectError(
      await t.request('POST', '/api/v1/handshakes', { body: { agentId: 'late-agent', requestedScopes: ['read'], message: 'hello', ownerId: user.id } }),
      404,
      'NOT_FOUND',
    );

    // The administrator's list shows it disabled.
    const list = await t.request('GET', '/api/v1/users', { token: admin.token, query: { limit: 200 } });
    const listed = list.body.data.find((u: { id: string }) => u.id === user.id);
    expect(listed).toMatchObject({ disabled: true, disabledAt: res.body.data.disabledAt });
    expect(list.body.data.find((u: { id: string }) => u.id === admin.id)).toMatchObject({ disabled: false, disabledAt: null });

    // Audited: in the administrator's log, and in the account's own (readable once enabled again).
    const entries = await auditActions(admin.token, 'user.disable');
    expect(entries.some((e) => e.targetId === user.id && e.outcome === 'success')).toBe(true);
  });

  it('enables it again: every token and session not revoked works again, a revoked one stays revoked', async () => {
    const user = await t.createOwner('To enable');
    const c = await credentialsOf(user);
    const revoked = await t.request('POST', '/api/v1/tokens', { token: user.token, body: { name: 'revoked before', scopes: ['memory'] } });
    expect(revoked.status).toBe(201);
    expect((await t.request('DELETE', `/api/v1/tokens/${revoked.body.data.id}`, { token: user.token })).status).toBe(200);

    expect((await setStatus(user.id, { disabled: true })).status).toBe(200);
    for (const refused of await useEach(c)) expectError(refused, 403, 'ACCOUNT_DISABLED');
    expectError(await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } }), 403, 'ACCOUNT_DISABLED');

    const enabled = await setStatus(user.id, { disabled: false });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ id: user.id, disabled: false, disabledAt: null });
    for (const res of await useEach(c)) expect(res.status, res.text).toBe(200);
    expectError(await t.request('GET', '/api/v1/memory', { token: revoked.body.data.token }), 401, 'UNAUTHORIZED');
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(200);

    // The account's owner reads in its own log that the administrator disabled it and enabled it.
    const own = await auditActions(user.token, 'account.*');
    expect(own.map((e) => e.action).sort()).toEqual(['account.disabled', 'account.enabled']);
    expect((await auditActions(admin.token, 'user.enable')).some((e) => e.targetId === user.id)).toBe(true);
    // Its refused sign-in too, with the reason.
    const logins = await auditActions(user.token, 'auth.login');
    expect(logins.some((e) => e.outcome === 'denied' && (e.details as { reason?: string } | null)?.reason === 'account disabled')).toBe(true);
  });

  it('setting the state an account already has changes nothing', async () => {
    const user = await t.createOwner('Twice');
    const first = await setStatus(user.id, { disabled: true });
    const second = await setStatus(user.id, { disabled: true });
    expect(second.status).toBe(200);
    expect(second.body.data.disabledAt).toBe(first.body.data.disabledAt);
    expect(second.body.data.updatedAt).toBe(first.body.data.updatedAt);
    const enabled = await setStatus(user.id, { disabled: false });
    const again = await setStatus(user.id, { disabled: false });
    expect(again.body.data).toMatchObject({ disabled: false, disabledAt: null, updatedAt: enabled.body.data.updatedAt });
    expect((await t.request('GET', '/api/v1/auth/me', { token: user.token })).status).toBe(200);
  });

  it("answers 409 CONFLICT to the administrator disabling their own account, which keeps working", async () => {
    const session = await t.login(admin);
    for (const token of [admin.token, session]) {
      const body = expectError(await setStatus(admin.id, { disabled: true }, token), 409, 'CONFLICT');
      expect(body.message).toMatch(/cannot disable your own account/);
    }
    expect((await t.request('GET', '/api/v1/auth/me', { token: admin.token })).body.data).toMatchObject({ disabled: false });
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: admin.email, password: admin.password } })).status).toBe(200);
    const denied = await auditActions(admin.token, 'user.disable');
    expect(denied.some((e) => e.targetId === admin.id && e.outcome === 'denied')).toBe(true);
    // Enabling an account that is enabled is harmless, the administrator's own included.
    expect((await setStatus(admin.id, { disabled: false })).status).toBe(200);
  });

  it('is for the administrator alone: 403 FORBIDDEN to other accounts and to scoped tokens, 401 without a token', async () => {
    const target = await t.createOwner('Target');
    const other = await t.createOwner('Other');
    const adminScoped = await t.tokenWithScopes(admin, [...SCOPE_NAMES]);
    for (const token of [other.token, await t.login(other), adminScoped, target.token]) {
      expectError(await setStatus(target.id, { disabled: true }, token), 403, 'FORBIDDEN');
    }
    expectError(await t.request('PUT', `/api/v1/users/${target.id}/status`, { body: { disabled: true } }), 401, 'UNAUTHORIZED');
    expect((await t.request('GET', '/api/v1/auth/me', { token: target.token })).body.data.disabled).toBe(false);
  });

  it('answers 404 NOT_FOUND for an unknown account and 400 VALIDATION_ERROR for a bad body', async () => {
    expectError(await setStatus('usr_00000000000000000000000000', { disabled: true }), 404, 'NOT_FOUND');
    for (const body of [{}, { disabled: 'yes' }, { disabled: true, role: 'admin' }]) {
      const refused = expectError(await setStatus(admin.id, body), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(refused.details)).toMatch(/body/);
    }
  });
});
