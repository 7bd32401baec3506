/**
 * The stored account: the lockout columns of the first design are gone (migration
 * 0015-drop-login-lockout); registering and logging in work without them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('users table', () => {
  it('has no failed_logins or locked_until, and accounts are stored and signed in to as before', async () => {
    const owner = await t.createOwner();
    const row = await t.storage.db.selectFrom('users').selectAll().where('id', '=', owner.id).executeTakeFirstOrThrow();
    expect(Object.keys(row).sort()).toEqual(['created_at', 'disabled_at', 'email', 'id', 'name', 'password_hash', 'plan_id', 'role', 'updated_at']);
    const login = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
    expect(login.status, login.text).toBe(200);
  });
});
