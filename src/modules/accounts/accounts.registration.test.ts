import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/harness.js';

/** GET /api/v1/auth/registration: what a sign-in page asks before offering "Create account". */
const status = (t: TestApp, token?: string) => t.request('GET', '/api/v1/auth/registration', { token });

describe('with REGISTRATION=first-user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { registration: 'first-user' } });
  });
  afterAll(async () => t.close());

  it('is open until the first account exists, then closed, as POST /auth/register finds it', async () => {
    const before = await status(t);
    expect(before.status).toBe(200);
    expect(before.headers['cache-control']).toBe('no-store');
    expect(before.body).toEqual({ data: { open: true, hasAccounts: false } });

    const first = await t.createOwner('First');
    expect((await status(t)).body).toEqual({ data: { open: false, hasAccounts: true } });
    expectError(
      await t.request('POST', '/api/v1/auth/register', { body: { email: 'second@example.test', password: 'long enough password' } }),
      403,
      'REGISTRATION_CLOSED',
    );
    // A token changes nothing: the answer is about the server, not the caller.
    expect((await status(t, first.token)).body).toEqual({ data: { open: false, hasAccounts: true } });
  });
});

describe('with REGISTRATION=open', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { registration: 'open' } });
  });
  afterAll(async () => t.close());

  it('stays open once accounts exist', async () => {
    expect((await status(t)).body).toEqual({ data: { open: true, hasAccounts: false } });
    await t.createOwner('First');
    await t.createOwner('Second');
    expect((await status(t)).body).toEqual({ data: { open: true, hasAccounts: true } });
  });

  it('answers a sign-in page that still sends a dead token', async () => {
    const res = await status(t, 'hth_not_a_live_token');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { open: true, hasAccounts: true } });
  });
});
