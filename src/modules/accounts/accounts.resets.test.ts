/**
 * POST /api/v1/auth/password-reset, through the app: a link made as `hearth reset-password` makes
 * it (the same service, in process here; test/reset-password.e2e.test.ts runs the real command)
 * sets the password once, ends every login session, is audited, and answers its own 4xx for a
 * link that is unknown, used, replaced by a newer one or expired.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { COMMAND_LINE_ACTOR, RESET_LINK_TTL_MS, UnknownAccountError } from './accounts.resets.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const newPassword = () => `new-${randomBytes(8).toString('hex')}`;

/** A fresh link for `owner`, as the command line makes it; answers the link and its secret. */
async function linkFor(owner: Owner): Promise<{ link: string; secret: string; expiresAt: string }> {
  const made = await t.container.passwordResets.issueLink(owner.email, COMMAND_LINE_ACTOR);
  const secret = new URL(made.link).searchParams.get('token')!;
  return { link: made.link, secret, expiresAt: made.expiresAt };
}

const reset = (token: unknown, password: unknown = newPassword()) => t.request('POST', '/api/v1/auth/password-reset', { body: { token, newPassword: password } });
const login = (email: string, password: string) => t.request('POST', '/api/v1/auth/login', { body: { email, password } });

async function auditActions(owner: Owner, action: string) {
  const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action } });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ action: string; outcome: string; details: Record<string, unknown> | null; userAgent: string | null }>;
}

describe('POST /api/v1/auth/password-reset', () => {
  it('sets the password with a link once: every login session ends, the old password fails, the new one signs in, audited', async () => {
    const owner = await t.createOwner();
    const sessions = [await t.login(owner), await t.login(owner)];
    const { link, secret, expiresAt } = await linkFor(owner);
    expect(link).toBe(`${t.config.publicBaseUrl}/reset-password?token=${secret}`);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(RESET_LINK_TTL_MS - 60_000);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(RESET_LINK_TTL_MS);

    const password = newPassword();
    const res = await reset(secret, password);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ data: { success: true, email: owner.email, sessionsEnded: 2 } });
    for (const session of sessions) expectError(await t.request('GET', '/api/v1/auth/me', { token: session }), 401, 'UNAUTHORIZED');
    // The master token is not a password's: it stays.
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
    expectError(await login(owner.email, owner.password), 401, 'UNAUTHORIZED');
    expect((await login(owner.email, password)).status).toBe(200);

    const again = expectError(await reset(secret), 409, 'CONFLICT');
    expect(again.details).toEqual({ reason: 'used' });
    expect(again.message).toMatch(/^This password reset link was used already \(at .+\): each link sets a password once/);
    expect((await login(owner.email, password)).status).toBe(200);

    const [linkMade] = await auditActions(owner, 'auth.password_reset_link');
    expect(linkMade).toMatchObject({ outcome: 'success', userAgent: 'hearth reset-password (command line)' });
    const resets = await auditActions(owner, 'auth.password_reset');
    expect(resets.map((r) => [r.outcome, r.details?.via, r.details?.reason ?? r.details?.sessionsEnded])).toEqual([
      ['failure', 'link', 'used'],
      ['success', 'link', 2],
    ]);
  });

  it('stores only the SHA-256 of the link, never the link itself', async () => {
    const owner = await t.createOwner();
    const { secret } = await linkFor(owner);
    const rows = await t.storage.db.selectFrom('password_resets').selectAll().where('owner_id', '=', owner.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it('answers 404 NOT_FOUND for a link never made, saying what to do', async () => {
    const body = expectError(await reset(randomBytes(32).toString('base64url')), 404, 'NOT_FOUND');
    expect(body.details).toEqual({ reason: 'unknown' });
    expect(body.message).toContain('hearth reset-password --email <your email>');
  });

  it('answers 409 CONFLICT (expired) for a link past its time, and leaves the password as it was', async () => {
    const owner = await t.createOwner();
    const { secret } = await linkFor(owner);
    await t.storage.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('owner_id', '=', owner.id).execute();
    const body = expectError(await reset(secret), 409, 'CONFLICT');
    expect(body.details).toEqual({ reason: 'expired' });
    expect(body.message).toMatch(/^This password reset link expired at .+: links work for 30 minutes/);
    expect((await login(owner.email, owner.password)).status).toBe(200);
  });

  it('answers 409 CONFLICT (superseded) for a link a newer one replaced; the newer one works', async () => {
    const owner = await t.createOwner();
    const older = await linkFor(owner);
    const newer = await linkFor(owner);
    expect(expectError(await reset(older.secret), 409, 'CONFLICT').details).toEqual({ reason: 'superseded' });
    expect((await reset(newer.secret)).status).toBe(200);
  });

  it('answers 409 CONFLICT (superseded) for a link made before the password or the email was changed', async () => {
    const owner = await t.createOwner();
    const before = await linkFor(owner);
    const next = newPassword();
    expect((await t.request('POST', '/api/v1/auth/password', { token: owner.token, body: { currentPassword: owner.password, newPassword: next } })).status).toBe(200);
    expect(expectError(await reset(before.secret), 409, 'CONFLICT').details).toEqual({ reason: 'superseded' });
    expect((await login(owner.email, next)).status).toBe(200);

    const mailed = await linkFor(owner);
    const email = `moved-${randomBytes(4).toString('hex')}@example.test`;
    expect((await t.request('POST', '/api/v1/auth/email', { token: owner.token, body: { password: next, newEmail: email } })).status).toBe(200);
    // Made for the old address: it sets no password for the new one, nor tells it.
    const refused = expectError(await reset(mailed.secret), 409, 'CONFLICT');
    expect(refused.details).toEqual({ reason: 'superseded' });
    expect(JSON.stringify(refused)).not.toContain(email);
    expect((await login(email, next)).status).toBe(200);
  });

  it('answers 403 ACCOUNT_DISABLED while the account is disabled, changing nothing; the link works once it is enabled', async () => {
    const administrator = await t.createOwner();
    const owner = await t.createOwner();
    const session = await t.login(owner);
    const { secret } = await linkFor(owner);
    const actor = { ...COMMAND_LINE_ACTOR, ownerId: administrator.id };
    await t.container.accounts.setDisabled(owner.id, true, actor);
    expectError(await reset(secret), 403, 'ACCOUNT_DISABLED');
    await t.container.accounts.setDisabled(owner.id, false, actor);
    // Enabled again: its session and password are as they were, and the link still works.
    expect((await t.request('GET', '/api/v1/auth/me', { token: session })).status).toBe(200);
    expect((await login(owner.email, owner.password)).status).toBe(200);
    expect((await reset(secret)).status).toBe(200);
  });

  it('spends a link once however many requests race with it', async () => {
    const owner = await t.createOwner();
    const { secret } = await linkFor(owner);
    const answers = await Promise.all(Array.from({ length: 5 }, () => reset(secret)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
  });

  it('answers 400 VALIDATION_ERROR for a short password, a missing token or an unknown field, and the link still works after', async () => {
    const owner = await t.createOwner();
    const { secret } = await linkFor(owner);
    const short = expectError(await reset(secret, 'short'), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(short.details)).toContain('body.newPassword');
    expectError(await t.request('POST', '/api/v1/auth/password-reset', { body: { newPassword: newPassword() } }), 400, 'VALIDATION_ERROR');
    expectError(await reset('x'.repeat(201)), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/auth/password-reset', { body: { token: secret, newPassword: newPassword(), email: owner.email } }), 400, 'VALIDATION_ERROR');
    expect((await reset(secret)).status).toBe(200);
  });

  it('forgives the failed sign-ins of the address the link was used from: the new password signs in at once', async () => {
    const owner = await t.createOwner();
    // Five failures lock this address out of the account for 1 s, a sixth for 2 s, a seventh for 4 s.
    for (const wait of [0, 0, 0, 0, 0, 1_100, 2_100]) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      expectError(await login(owner.email, 'not the password'), 401, 'UNAUTHORIZED');
    }
    expectError(await login(owner.email, owner.password), 429, 'RATE_LIMITED');
    const { secret } = await linkFor(owner);
    const password = newPassword();
    expect((await reset(secret, password)).status).toBe(200);
    expect((await login(owner.email, password)).status).toBe(200);
  });

  it('makes no link for an email no account signs in with', async () => {
    await expect(t.container.passwordResets.issueLink('nobody@example.test', COMMAND_LINE_ACTOR)).rejects.toThrow(UnknownAccountError);
  });
});

describe('POST /api/v1/auth/password-reset rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ config: { authRateLimitPerMinute: 3 } });
  });
  afterAll(async () => limited?.close());

  it('answers 429 RATE_LIMITED with Retry-After past AUTH_RATE_LIMIT tries a minute from one address', async () => {
    const tries = [];
    for (let i = 0; i < 4; i++) {
      tries.push(await limited.request('POST', '/api/v1/auth/password-reset', { body: { token: randomBytes(32).toString('base64url'), newPassword: newPassword() } }));
    }
    expect(tries.slice(0, 3).map((r) => r.status)).toEqual([404, 404, 404]);
    expectError(tries[3]!, 429, 'RATE_LIMITED');
    expect(Number(tries[3]!.headers['retry-after'])).toBeGreaterThan(0);
  });
});
