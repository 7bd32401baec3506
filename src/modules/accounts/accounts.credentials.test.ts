/**
 * Changing the account's password and email (POST /auth/password, POST /auth/email): the
 * current password is required and counted as login counts it, the new one follows the
 * registration rules, and a password change ends every other login session.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const newPassword = () => `new-${randomBytes(8).toString('hex')}`;
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function loginStatus(email: string, password: string): Promise<number> {
  return (await t.request('POST', '/api/v1/auth/login', { body: { email, password } })).status;
}

async function auditActions(ownerId: string, action: string) {
  return t.storage.db.selectFrom('audit_log').selectAll().where('owner_id', '=', ownerId).where('action', '=', action).execute();
}

describe('POST /api/v1/auth/password', () => {
  it('changes the password from a login session: other sessions end, the caller keeps its own', async () => {
    const owner = await t.createOwner();
    const caller = await t.login(owner);
    const other1 = await t.login(owner);
    const other2 = await t.login(owner);
    const apiToken = await t.tokenWithScopes(owner, ['memory']);
    const next = newPassword();

    const res = await t.request('POST', '/api/v1/auth/password', { token: caller, body: { currentPassword: owner.password, newPassword: next } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { success: true, sessionsEnded: 2 } });

    expect((await t.request('GET', '/api/v1/auth/me', { token: caller })).status).toBe(200);
    for (const ended of [other1, other2]) expectError(await t.request('GET', '/api/v1/auth/me', { token: ended }), 401, 'UNAUTHORIZED');
    // Tokens given to apps are not sessions: they stay (the owner revokes them on their own).
    expect((await t.request('GET', '/api/v1/memory', { token: apiToken })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);

    expect(await loginStatus(owner.email, owner.password)).toBe(401);
    expect(await loginStatus(owner.email, next)).toBe(200);
    const audited = await auditActions(owner.id, 'auth.password_changed');
    expect(audited).toHaveLength(1);
    expect(audited[0]!.outcome).toBe('success');
    expect(JSON.stringify(audited)).not.toContain(next);
  });

  it('ends every session a login with the old password made, however the login and the change interleave', async () => {
    const sessions: string[] = [];
    for (let round = 0; round < 30; round++) {
      // An account a round: the logins refused after the change count as failed sign-ins of its
      // address, and must not reach the slowdown that would refuse the next change.
      const owner = await t.createOwner();
      const change = t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: owner.password, newPassword: newPassword() } });
      // Logins started across the change's two hashings (its check, then the new hash): one of
      // them checks the old hash while the change stores the new one and lists the sessions.
      const logins = [0, 1, 2].map((k) => later(k * (round % 4)).then(() => t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } })));
      expect((await change).status).toBe(200);
      for (const login of await Promise.all(logins)) if (login.status === 200) sessions.push(login.body.data.token as string);
    }
    expect(sessions.length).toBeGreaterThan(0);
    for (const session of sessions) expect((await t.request('GET', '/api/v1/auth/me', { token: session })).status).toBe(401);
  });

  it('with the master token, every login session ends', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    const res = await t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: owner.password, newPassword: newPassword() } });
    expect(res.status).toBe(200);
    expect(res.body.data.sessionsEnded).toBe(1);
    expectError(await t.request('GET', '/api/v1/auth/me', { token: session }), 401, 'UNAUTHORIZED');
  });

  it('counts only sessions that were still live: an expired one is neither revoked nor counted', async () => {
    const owner = await t.createOwner();
    await t.login(owner);
    await t.login(owner);
    const sessions = await t.storage.db.selectFrom('tokens').select('id').where('owner_id', '=', owner.id).where('kind', '=', 'session').execute();
    expect(sessions).toHaveLength(2);
    await t.storage.db.updateTable('tokens').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', sessions[0]!.id).execute();
    const res = await t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: owner.password, newPassword: newPassword() } });
    expect(res.body).toEqual({ data: { success: true, sessionsEnded: 1 } });
    const expired = await t.storage.db.selectFrom('tokens').select('revoked_at').where('id', '=', sessions[0]!.id).executeTakeFirstOrThrow();
    expect(expired.revoked_at).toBeNull();
  });

  it('a wrong current password answers as login does and changes nothing', async () => {
    const owner = await t.createOwner();
    const other = await t.login(owner);
    const res = await t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: 'not the password', newPassword: newPassword() } });
    const login = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'not the password' } });
    expect(res.body.error).toBe(login.body.error);
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.message).toMatch(/current password is wrong/);
    expect((await t.request('GET', '/api/v1/auth/me', { token: other })).status).toBe(200);
    expect(await loginStatus(owner.email, owner.password)).toBe(200);
    expect(await auditActions(owner.id, 'auth.password_changed')).toHaveLength(0);
    const failures = await auditActions(owner.id, 'auth.password_change');
    expect(failures.map((row) => row.outcome)).toEqual(['failure']);
  });

  it('failed checks count as failed logins: the slowdown starts and login.failed is published', async () => {
    const owner = await t.createOwner();
    const heard: Array<{ type: string; data: unknown }> = [];
    const stop = t.container.events.subscribe(owner.id, (event) => heard.push(event));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: 'guess', newPassword: newPassword() } });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const failed = heard.filter((event) => event.type === 'login.failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]!.data).toMatchObject({ userId: owner.id, consecutiveFailures: 5 });
      // Login itself is slowed down too: the same limiter.
      expect(await loginStatus(owner.email, owner.password)).toBe(429);
    } finally {
      stop();
    }
  });

  it('a new password that breaks the registration rules is refused (400) and nothing changes', async () => {
    const owner = await t.createOwner();
    const res = await t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: owner.password, newPassword: 'short' } });
    const body = expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.details)).toContain('newPassword');
    expect(await loginStatus(owner.email, owner.password)).toBe(200);
  });

  it('is refused to a scoped API token (403) and without a token (401)', async () => {
    const owner = await t.createOwner();
    const scoped = await t.tokenWithScopes(owner, ['identity', 'memory']);
    const body = { currentPassword: owner.password, newPassword: newPassword() };
    expectError(await t.request('POST', '/api/v1/auth/password', { token: scoped, body }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/api/v1/auth/password', { body }), 401, 'UNAUTHORIZED');
    expect(await loginStatus(owner.email, owner.password)).toBe(200);
  });
});

describe('POST /api/v1/auth/email', () => {
  it('changes the sign-in email with the password; audited', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    const fresh = `Moved-${randomBytes(4).toString('hex')}@Example.TEST`;
    const res = await t.request('POST', '/api/v1/auth/email', { token: session, body: { password: owner.password, newEmail: fresh } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(owner.id);
    expect(res.body.data.email).toBe(fresh.toLowerCase());
    expect((await t.request('GET', '/api/v1/auth/me', { token: session })).body.data.email).toBe(fresh.toLowerCase());
    expect(await loginStatus(fresh, owner.password)).toBe(200);
    expect(await loginStatus(owner.email, owner.password)).toBe(401);
    const audited = await auditActions(owner.id, 'auth.email_changed');
    expect(audited).toHaveLength(1);
    expect(audited[0]!.outcome).toBe('success');
  });

  it('a wrong password answers as login does and changes nothing', async () => {
    const owner = await t.createOwner();
    const res = await t.request('POST', '/api/v1/auth/email', { token: owner.token, body: { password: 'not it', newEmail: 'x-wrong@example.test' } });
    expectError(res, 401, 'UNAUTHORIZED');
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).body.data.email).toBe(owner.email);
  });

  it('an email another account uses is refused (409), an invalid one (400)', async () => {
    const owner = await t.createOwner();
    const other = await t.createOwner();
    const taken = await t.request('POST', '/api/v1/auth/email', { token: owner.token, body: { password: owner.password, newEmail: other.email.toUpperCase() } });
    const body = expectError(taken, 409, 'CONFLICT');
    expect(body.message).toContain(other.email);
    expect(JSON.stringify(body.details)).toContain('body.newEmail');
    expectError(await t.request('POST', '/api/v1/auth/email', { token: owner.token, body: { password: owner.password, newEmail: 'not an email' } }), 400, 'VALIDATION_ERROR');
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).body.data.email).toBe(owner.email);
  });

  it('is refused to a scoped API token (403) and without a token (401)', async () => {
    const owner = await t.createOwner();
    const scoped = await t.tokenWithScopes(owner, ['identity']);
    const body = { password: owner.password, newEmail: 'never@example.test' };
    expectError(await t.request('POST', '/api/v1/auth/email', { token: scoped, body }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/api/v1/auth/email', { body }), 401, 'UNAUTHORIZED');
  });
});
