/**
 * Deleting an account (DELETE /api/v1/users/me) through the API, on the engine under test: the
 * confirmation it needs (the email typed again, the password under the login attempt limits), who
 * may ask, the administrator's rule, and what no longer answers afterwards. The walk over every
 * table of the database is erasure.every-table.test.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let admin: Owner;
beforeAll(async () => {
  t = await createTestApp();
  // The first account of a server is its administrator.
  admin = await t.createOwner('Admin');
  expect(admin.role).toBe('admin');
});
afterAll(async () => t.close());

const deleteAccount = (token: string | undefined, body: unknown) => t.request('DELETE', '/api/v1/users/me', { token, body });
const loginStatus = async (owner: Owner) => (await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } })).status;
const userExists = async (id: string) => (await t.storage.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

describe('DELETE /api/v1/users/me', () => {
  it('deletes the account with its password and email: every token stops, signing in fails, the cookie is cleared', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    const scoped = await t.tokenWithScopes(owner, ['memory', 'skills']);
    expect((await t.request('POST', '/api/v1/memory', { token: scoped, body: { content: 'Remember the milk' } })).status).toBe(201);
    const skill = await t.request('POST', '/api/v1/skills', { token: owner.token, body: { name: 'leaving-soon', description: 'A skill' } });
    expect(skill.status).toBe(201);
    // Answered once, so that the front door and the caches hold something of the account.
    expect((await t.http('GET', '/api/v1/skills/_by_slug/leaving-soon', { token: scoped })).status).toBe(200);
    expect((await t.http('GET', '/api/v1/tokens/me/capabilities', { token: scoped })).status).toBe(200);

    const res = await deleteAccount(session, { password: owner.password, confirmEmail: ` ${owner.email.toUpperCase()} ` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { deleted: true, userId: owner.id, rows: expect.any(Number), files: 0, providers: [] } });
    expect(res.body.data.rows).toBeGreaterThan(5);
    expect(String(res.headers['set-cookie'])).toMatch(/^hearth_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);

    for (const token of [owner.token, session, scoped]) {
      expectError(await t.request('GET', '/api/v1/auth/me', { token }), 401, 'UNAUTHORIZED');
      // Over HTTP too, where the front door answers its prepared reads.
      expectError(await t.http('GET', '/api/v1/tokens/me/capabilities', { token }), 401, 'UNAUTHORIZED');
      expectError(await t.http('GET', '/api/v1/skills/_by_slug/leaving-soon', { token }), 401, 'UNAUTHORIZED');
      expectError(await t.http('GET', '/api/v1/memory', { token }), 401, 'UNAUTHORIZED');
    }
    expect(await loginStatus(owner)).toBe(401);
    expect(await userExists(owner.id)).toBe(false);
    // The administrator is untouched.
    expect((await t.request('GET', '/api/v1/auth/me', { token: admin.token })).status).toBe(200);
  });

  it('with the master token, and removes the export archives from disk', async () => {
    const owner = await t.createOwner();
    await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Exported, then deleted' } });
    const job = (await t.request('POST', '/api/v1/export', { token: owner.token, body: {} })).body.data;
    let state = job;
    for (let i = 0; i < 200 && state.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      state = (await t.request('GET', `/api/v1/export/${job.id}`, { token: owner.token })).body.data;
    }
    expect(state.status).toBe('done');
    const archive = path.join(t.config.dataDir, 'exports', `${job.id}.zip`);
    expect(existsSync(archive)).toBe(true);

    const res = await deleteAccount(owner.token, { password: owner.password, confirmEmail: owner.email });
    expect(res.status).toBe(200);
    expect(res.body.data.files).toBe(1);
    expect(existsSync(archive)).toBe(false);
    expect(readdirSync(path.join(t.config.dataDir, 'exports')).filter((name) => name.startsWith(job.id))).toEqual([]);
  });

  it('tells memory to let go of what it keeps of the account in the process, and of no other account', async () => {
    const owner = await t.createOwner();
    const other = await t.createOwner();
    for (const who of [owner, other]) expect((await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'Kept in the process' } })).status).toBe(201);
    const memory = t.container.memory;
    const original = memory.writtenElsewhere.bind(memory);
    const told: string[] = [];
    const spy = vi.spyOn(memory, 'writtenElsewhere').mockImplementation((ownerId: string) => {
      told.push(ownerId);
      original(ownerId);
    });
    try {
      expect((await deleteAccount(owner.token, { password: owner.password, confirmEmail: owner.email })).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    expect(told).toEqual([owner.id]);
    // The other account's text is still known: the same text again is its duplicate.
    const again = await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: 'Kept in the process' } });
    expect(again.status).toBe(200);
    expect(again.body.duplicateOf).toEqual(expect.any(String));
  });

  it('refuses an email that is not the account\'s (400, naming confirmEmail) and deletes nothing', async () => {
    const owner = await t.createOwner();
    const res = await deleteAccount(owner.token, { password: owner.password, confirmEmail: admin.email });
    const body = expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.details)).toContain('body.confirmEmail');
    expect(body.message).toMatch(/type the email this account signs in with/);
    expect(await userExists(owner.id)).toBe(true);
    expect(await loginStatus(owner)).toBe(200);
  });

  it('refuses missing or unknown fields (400)', async () => {
    const owner = await t.createOwner();
    expect(JSON.stringify(expectError(await deleteAccount(owner.token, { confirmEmail: owner.email }), 400, 'VALIDATION_ERROR').details)).toContain('body.password');
    expect(JSON.stringify(expectError(await deleteAccount(owner.token, { password: owner.password }), 400, 'VALIDATION_ERROR').details)).toContain('body.confirmEmail');
    expectError(await deleteAccount(owner.token, { password: owner.password, confirmEmail: owner.email, force: true }), 400, 'VALIDATION_ERROR');
    expectError(await deleteAccount(owner.token, undefined), 400, 'VALIDATION_ERROR');
    expect(await userExists(owner.id)).toBe(true);
  });

  it('a wrong password answers as login does (401), is audited, and deletes nothing', async () => {
    const owner = await t.createOwner();
    const res = await deleteAccount(owner.token, { password: 'not the password', confirmEmail: owner.email });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.message).toBe('The password is wrong; nothing was deleted');
    expect(await userExists(owner.id)).toBe(true);
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
    const audited = await t.storage.db.selectFrom('audit_log').selectAll().where('owner_id', '=', owner.id).where('action', '=', 'auth.confirm_password').execute();
    expect(audited.map((row) => row.outcome)).toEqual(['failure']);
  });

  it('failed passwords count as failed logins: the slowdown starts and login.failed is published', async () => {
    const owner = await t.createOwner();
    const heard: Array<{ type: string; data: unknown }> = [];
    const stop = t.container.events.subscribe(owner.id, (event) => heard.push(event));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await deleteAccount(owner.token, { password: 'guess', confirmEmail: owner.email })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      expect(heard.filter((event) => event.type === 'login.failed').map((event) => event.data)).toEqual([expect.objectContaining({ userId: owner.id, consecutiveFailures: 5 })]);
      expect(await userExists(owner.id)).toBe(true);
    } finally {
      stop();
    }
  });

  it('is refused to a scoped API token (403) and without a token (401)', async () => {
    const owner = await t.createOwner();
    const scoped = await t.tokenWithScopes(owner, ['identity', 'memory', 'vault']);
    const body = { password: owner.password, confirmEmail: owner.email };
    expectError(await deleteAccount(scoped, body), 403, 'FORBIDDEN');
    expectError(await deleteAccount(undefined, body), 401, 'UNAUTHORIZED');
    expect(await userExists(owner.id)).toBe(true);
  });

  it("refuses the administrator's account while other accounts remain (409); once they are gone, it goes too", async () => {
    const app = await createTestApp();
    try {
      const first = await app.createOwner('First');
      const second = await app.createOwner('Second');
      expect(first.role).toBe('admin');
      const refused = await app.request('DELETE', '/api/v1/users/me', { token: first.token, body: { password: first.password, confirmEmail: first.email } });
      expect(expectError(refused, 409, 'CONFLICT').message).toMatch(/administrator's account, and 1 other account remains on this server/);
      expect((await app.request('GET', '/api/v1/auth/me', { token: first.token })).status).toBe(200);

      expect((await app.request('DELETE', '/api/v1/users/me', { token: second.token, body: { password: second.password, confirmEmail: second.email } })).status).toBe(200);
      const last = await app.request('DELETE', '/api/v1/users/me', { token: first.token, body: { password: first.password, confirmEmail: first.email } });
      expect(last.status).toBe(200);
      // An empty server again: the next account to register is its administrator.
      expect((await app.request('GET', '/api/v1/auth/registration')).body.data).toMatchObject({ hasAccounts: false });
      expect((await app.createOwner('Next')).role).toBe('admin');
    } finally {
      await app.close();
    }
  });
});
