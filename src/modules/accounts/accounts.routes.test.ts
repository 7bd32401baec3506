import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { freezeDate } from '../../../test/clients.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const USER_KEYS = ['createdAt', 'disabled', 'disabledAt', 'email', 'id', 'name', 'planId', 'role', 'updatedAt'];

function email(tag = 'user'): string {
  return `${tag}-${randomBytes(4).toString('hex')}@example.test`;
}

function password(): string {
  return `pw-${randomBytes(8).toString('hex')}`;
}

async function userCount(t: TestApp): Promise<number> {
  const row = await t.storage.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function userRow(t: TestApp, id: string) {
  return t.storage.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

function expectDetailFor(body: { details?: unknown }, field: string): void {
  expect(Array.isArray(body.details)).toBe(true);
  const fields = (body.details as Array<{ field: string; message: string }>).map((d) => d.field);
  expect(fields).toContain(field);
  for (const detail of body.details as Array<{ field: string; message: string }>) {
    expect(typeof detail.message).toBe('string');
    expect(detail.message.length).toBeGreaterThan(0);
  }
}

describe('POST /api/v1/auth/register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('answers 201 with the user and the master token; the first account is the administrator', async () => {
    const first = await t.request('POST', '/api/v1/auth/register', {
      body: { email: 'Alice.Smith@Example.TEST', password: 'correct horse battery', name: '  Alice  ' },
    });
    expect(first.status).toBe(201);
    expect(Object.keys(first.body)).toEqual(['data']);
    expect(Object.keys(first.body.data).sort()).toEqual(['token', 'user']);
    const user = first.body.data.user;
    expect(Object.keys(user).sort()).toEqual(USER_KEYS);
    expect(user.id).toMatch(/^usr_[0-9A-Z]{26}$/);
    expect(user.email).toBe('alice.smith@example.test');
    expect(user.name).toBe('Alice');
    expect(user.role).toBe('admin');
    expect(user.planId).toBe('free');
    expect(user.createdAt).toMatch(ISO);
    expect(user.updatedAt).toMatch(ISO);
    expect(first.body.data.token).toMatch(/^hth_mst_[0-9A-Za-z]{38}$/);
    expect(first.text).not.toContain('correct horse battery');
    expect(first.text).not.toMatch(/password|hash/i);

    // The master token works at once and belongs to the new account.
    const me = await t.request('GET', '/api/v1/auth/me', { token: first.body.data.token });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(user.id);

    const second = await t.request('POST', '/api/v1/auth/register', { body: { email: email(), password: password() } });
    expect(second.status).toBe(201);
    expect(second.body.data.user.role).toBe('user');
    expect(second.body.data.user.name).toBeNull();
    expect(second.body.data.token).not.toBe(first.body.data.token);
  });

  it('answers 409 CONFLICT for an email that exists, in any case, and creates nothing', async () => {
    const address = email('dup');
    const created = await t.request('POST', '/api/v1/auth/register', { body: { email: address, password: password() } });
    expect(created.status).toBe(201);
    const before = await userCount(t);
    for (const variant of [address, address.toUpperCase(), address[0]!.toUpperCase() + address.slice(1)]) {
      const again = await t.request('POST', '/api/v1/auth/register', { body: { email: variant, password: password() } });
      const body = expectError(again, 409, 'CONFLICT');
      expect(body.message).toContain(address);
      expect(again.body.data).toBeUndefined();
    }
    expect(await userCount(t)).toBe(before);
  });

  it('answers 400 VALIDATION_ERROR with details for a bad email, a short password, missing or unknown fields', async () => {
    const before = await userCount(t);

    const badEmail = await t.request('POST', '/api/v1/auth/register', { body: { email: 'not-an-email', password: password() } });
    expectDetailFor(expectError(badEmail, 400, 'VALIDATION_ERROR'), 'body.email');

    const shortPassword = await t.request('POST', '/api/v1/auth/register', { body: { email: email(), password: 'short' } });
    const shortBody = expectError(shortPassword, 400, 'VALIDATION_ERROR');
    expectDetailFor(shortBody, 'body.password');
    expect(shortBody.message).toContain('body.password');

    const missing = await t.request('POST', '/api/v1/auth/register', { body: {} });
    const missingBody = expectError(missing, 400, 'VALIDATION_ERROR');
    expectDetailFor(missingBody, 'body.email');
    expectDetailFor(missingBody, 'body.password');

    const missingPassword = await t.request('POST', '/api/v1/auth/register', { body: { email: email() } });
    expectDetailFor(expectError(missingPassword, 400, 'VALIDATION_ERROR'), 'body.password');

    const extra = await t.request('POST', '/api/v1/auth/register', {
      body: { email: email(), password: password(), role: 'admin' },
    });
    const extraBody = expectError(extra, 400, 'VALIDATION_ERROR');
    expect(extraBody.details).toContainEqual({ field: 'body.role', message: 'is not an accepted field' });

    const noBody = await t.request('POST', '/api/v1/auth/register');
    expectError(noBody, 400, 'VALIDATION_ERROR');

    expect(await userCount(t)).toBe(before);
  });
});

describe('REGISTRATION=first-user', () => {
  it('lets only the first account register; later attempts get 403 REGISTRATION_CLOSED', async () => {
    const t = await createTestApp({ config: { registration: 'first-user' } });
    try {
      const first = await t.request('POST', '/api/v1/auth/register', { body: { email: email('first'), password: password() } });
      expect(first.status).toBe(201);
      expect(first.body.data.user.role).toBe('admin');

      const second = await t.request('POST', '/api/v1/auth/register', { body: { email: email('second'), password: password() } });
      const body = expectError(second, 403, 'REGISTRATION_CLOSED');
      expect(body.message).toMatch(/administrator/i);
      expect(await userCount(t)).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('lets exactly one of several concurrent first registrations through', async () => {
    const t = await createTestApp({ config: { registration: 'first-user' } });
    try {
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          t.request('POST', '/api/v1/auth/register', { body: { email: email(`race${i}`), password: password() } }),
        ),
      );
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      expect(created[0]!.body.data.user.role).toBe('admin');
      for (const refused of results.filter((r) => r.status !== 201)) expectError(refused, 403, 'REGISTRATION_CLOSED');
      expect(await userCount(t)).toBe(1);
      const tokens = await t.storage.db.selectFrom('tokens').select('owner_id').execute();
      expect(tokens.map((row) => row.owner_id)).toEqual([created[0]!.body.data.user.id]);
    } finally {
      await t.close();
    }
  });

  it('still lets the administrator create accounts with POST /api/v1/users, and they can log in', async () => {
    const t = await createTestApp({ config: { registration: 'first-user' } });
    try {
      const admin = await t.createOwner('Admin');
      expect(admin.role).toBe('admin');
      const newEmail = email('invited');
      const newPassword = password();
      const created = await t.request('POST', '/api/v1/users', { token: admin.token, body: { email: newEmail, password: newPassword, name: 'Invited' } });
      expect(created.status).toBe(201);
      expect(created.body.data.role).toBe('user');
      expect(created.body.data.email).toBe(newEmail);

      const login = await t.request('POST', '/api/v1/auth/login', { body: { email: newEmail, password: newPassword } });
      expect(login.status).toBe(200);
      expect(login.body.data.user.id).toBe(created.body.data.id);

      // Registration itself stays closed.
      expectError(await t.request('POST', '/api/v1/auth/register', { body: { email: email(), password: password() } }), 403, 'REGISTRATION_CLOSED');
    } finally {
      await t.close();
    }
  });
});

describe('POST /api/v1/auth/login', () => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner();
  });
  afterAll(async () => t.close());

  it('answers 200 with the user, a session token and its expiry', async () => {
    const before = Date.now();
    const res = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data).sort()).toEqual(['expiresAt', 'token', 'user']);
    expect(Object.keys(res.body.data.user).sort()).toEqual(USER_KEYS);
    expect(res.body.data.user.id).toBe(owner.id);
    expect(res.body.data.user.email).toBe(owner.email);
    expect(res.body.data.token).toMatch(/^hth_ses_[0-9A-Za-z]{38}$/);
    expect(res.body.data.token).not.toBe(owner.token);
    expect(res.body.data.expiresAt).toMatch(ISO);
    const expiresAt = Date.parse(res.body.data.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + t.config.sessionTtlMs - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + t.config.sessionTtlMs + 1000);
  });

  it('matches the email in any case', async () => {
    const res = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email.toUpperCase(), password: owner.password } });
    expect(res.status).toBe(200);
    expect(res.body.data.user.id).toBe(owner.id);
  });

  it('issues a session token that acts for the owner with every scope and owner rights', async () => {
    const session = await t.login(owner);
    const me = await t.request('GET', '/api/v1/users/me', { token: session });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(owner.id);

    // Owner rights: the session may manage tokens and read the audit log.
    const list = await t.request('GET', '/api/v1/tokens', { token: session, query: { kind: 'session' } });
    expect(list.status).toBe(200);
    const record = list.body.data.find((tok: { hint: string }) => tok.hint.endsWith(session.slice(-4)) && tok.hint.startsWith('hth_ses_'));
    expect(record).toBeDefined();
    expect(record.kind).toBe('session');
    expect(record.status).toBe('active');
    expect([...record.scopes].sort()).toEqual([...SCOPE_NAMES].sort());
    expect((await t.request('GET', '/api/v1/audit/log', { token: session })).status).toBe(200);
    expect((await t.request('POST', '/api/v1/tokens', { token: session, body: { name: 'from session', scopes: ['memory'] } })).status).toBe(201);
  });

  it('answers 401 UNAUTHORIZED with WWW-Authenticate and the same message for a wrong password and an unknown email', async () => {
    const wrong = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'wrong password' } });
    const wrongBody = expectError(wrong, 401, 'UNAUTHORIZED');
    expect(String(wrong.headers['www-authenticate'])).toMatch(/^Bearer/);
    expect(wrong.body.data).toBeUndefined();

    const unknown = await t.request('POST', '/api/v1/auth/login', { body: { email: email('nobody'), password: 'wrong password' } });
    const unknownBody = expectError(unknown, 401, 'UNAUTHORIZED');
    expect(String(unknown.headers['www-authenticate'])).toMatch(/^Bearer/);

    expect(unknownBody.message).toBe(wrongBody.message);
    expect(Object.keys(unknownBody).sort()).toEqual(Object.keys(wrongBody).sort());
  });

  it('answers 400 VALIDATION_ERROR for missing fields or unknown fields', async () => {
    expectDetailFor(expectError(await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email } }), 400, 'VALIDATION_ERROR'), 'body.password');
    const extra = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password, remember: true } });
    expectDetailFor(expectError(extra, 400, 'VALIDATION_ERROR'), 'body.remember');
  });
});

describe('login slowdown after consecutive failures', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  async function login(owner: Owner, pw = owner.password) {
    return t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: pw } });
  }

  it('answers 429 RATE_LIMITED with Retry-After after 5 failures, even for the right password; other accounts are unaffected', async () => {
    // The clock stands still, so the 1 s wait cannot run out on a slow machine before the check.
    onTestFinished(freezeDate());
    const victim = await t.createOwner();
    const bystander = await t.createOwner();

    for (let i = 1; i <= 5; i++) {
      expectError(await login(victim, `wrong-${i}-password`), 401, 'UNAUTHORIZED');
    }

    const locked = await login(victim);
    const body = expectError(locked, 429, 'RATE_LIMITED');
    const retryAfter = Number(locked.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(body.message).toMatch(/try again/i);
    expect(locked.body.data).toBeUndefined();

    // Another account logs in normally meanwhile.
    const other = await login(bystander);
    expect(other.status).toBe(200);
  });

  it('lets the right password in once the wait has passed, and resets the failure count', async () => {
    onTestFinished(freezeDate());
    const owner = await t.createOwner();
    for (let i = 0; i < 5; i++) expectError(await login(owner, 'not the password'), 401, 'UNAUTHORIZED');
    expectError(await login(owner), 429, 'RATE_LIMITED');

    // Let the wait run out without sleeping.
    vi.setSystemTime(Date.now() + 1500);
    expect((await login(owner)).status).toBe(200);

    // The count started again: four failures do not slow the account down.
    for (let i = 0; i < 4; i++) expectError(await login(owner, 'not the password'), 401, 'UNAUTHORIZED');
    expect((await login(owner)).status).toBe(200);
  });

  it('counts only consecutive failures: a success in between resets them', async () => {
    const owner = await t.createOwner();
    for (let i = 0; i < 4; i++) expectError(await login(owner, 'not the password'), 401, 'UNAUTHORIZED');
    expect((await login(owner)).status).toBe(200);
    for (let i = 0; i < 4; i++) expectError(await login(owner, 'not the password'), 401, 'UNAUTHORIZED');
    expect((await login(owner)).status).toBe(200);
  });
});

describe('per-address rate limit on register and login', () => {
  it('security: counts an IPv6 client by its /64, so rotating addresses inside it gains nothing', async () => {
    const t = await createTestApp({ config: { authRateLimitPerMinute: 2 } });
    try {
      const login = (remoteAddress: string) =>
        t.app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress, payload: { email: email('v6'), password: 'wrong-password' } });
      expect((await login('2001:db8:aa:1::1')).statusCode).toBe(401);
      expect((await login('2001:db8:aa:1::2')).statusCode).toBe(401);
      const third = await login('2001:db8:aa:1:ffff:ffff:ffff:ffff');
      expect(third.statusCode).toBe(429);
      expect(third.json().error).toBe('RATE_LIMITED');
      // Another /64 and an IPv4 client have counters of their own.
      expect((await login('2001:db8:aa:2::1')).statusCode).toBe(401);
      expect((await login('198.51.100.9')).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('answers 429 RATE_LIMITED with Retry-After once the limit per minute is used', async () => {
    const t = await createTestApp({ config: { authRateLimitPerMinute: 3 } });
    try {
      const accounts: Array<{ email: string; password: string }> = [];
      for (let i = 0; i < 3; i++) {
        const account = { email: email(`rl${i}`), password: password() };
        expect((await t.request('POST', '/api/v1/auth/register', { body: account })).status).toBe(201);
        accounts.push(account);
      }
      const limited = await t.request('POST', '/api/v1/auth/register', { body: { email: email('rl-over'), password: password() } });
      const body = expectError(limited, 429, 'RATE_LIMITED');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(body.message).toMatch(/try again/i);
      expect(await userCount(t)).toBe(3);

      // Login is counted apart from register, by its password checks: three, then 429 even with the right password.
      expectError(await t.request('POST', '/api/v1/auth/login', { body: { email: accounts[0]!.email, password: 'wrong-password' } }), 401, 'UNAUTHORIZED');
      expect((await t.request('POST', '/api/v1/auth/login', { body: accounts[0] })).status).toBe(200);
      expect((await t.request('POST', '/api/v1/auth/login', { body: accounts[1] })).status).toBe(200);
      const loginLimited = await t.request('POST', '/api/v1/auth/login', { body: accounts[2] });
      expectError(loginLimited, 429, 'RATE_LIMITED');
      expect(Number(loginLimited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(loginLimited.body.data).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});

describe('one count per login attempt', () => {
  it('a request refused before any password check uses none of the allowance; each check uses one', async () => {
    const t = await createTestApp({ config: { authRateLimitPerMinute: 2 } });
    try {
      const account = { email: email('once'), password: password() };
      expect((await t.request('POST', '/api/v1/auth/register', { body: account })).status).toBe(201);
      for (let i = 0; i < 3; i++) {
        expectError(await t.request('POST', '/api/v1/auth/login', { body: { email: account.email } }), 400, 'VALIDATION_ERROR');
      }
      expect((await t.request('POST', '/api/v1/auth/login', { body: account })).status).toBe(200);
      expect((await t.request('POST', '/api/v1/auth/login', { body: account })).status).toBe(200);
      expectError(await t.request('POST', '/api/v1/auth/login', { body: account }), 429, 'RATE_LIMITED');
    } finally {
      await t.close();
    }
  });
});

describe('session expiry', () => {
  it('refuses a session token once its lifetime has passed', async () => {
    const t = await createTestApp({ config: { sessionTtlMs: 300 } });
    try {
      const owner = await t.createOwner();
      const login = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
      expect(login.status).toBe(200);
      const session = login.body.data.token as string;
      expect(Date.parse(login.body.data.expiresAt) - Date.now()).toBeLessThanOrEqual(300);
      expect((await t.request('GET', '/api/v1/auth/me', { token: session })).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 450));

      const expired = await t.request('GET', '/api/v1/auth/me', { token: session });
      expectError(expired, 401, 'UNAUTHORIZED');
      expect(String(expired.headers['www-authenticate'])).toMatch(/^Bearer/);
      // The master token never expires.
      expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('POST /api/v1/auth/logout', () => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner();
  });
  afterAll(async () => t.close());

  it('revokes the calling session: its next request gets 401', async () => {
    const session = await t.login(owner);
    expect((await t.request('GET', '/api/v1/auth/me', { token: session })).status).toBe(200);

    const out = await t.request('POST', '/api/v1/auth/logout', { token: session });
    expect(out.status).toBe(200);
    expect(out.body.data.success).toBe(true);
    expect(out.body.data.tokenId).toMatch(/^tok_/);

    expectError(await t.request('GET', '/api/v1/auth/me', { token: session }), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/api/v1/auth/logout', { token: session }), 401, 'UNAUTHORIZED');

    const record = await t.request('GET', `/api/v1/tokens/${out.body.data.tokenId}`, { token: owner.token });
    expect(record.status).toBe(200);
    expect(record.body.data.kind).toBe('session');
    expect(record.body.data.status).toBe('revoked');
    expect(record.body.data.revokedAt).toMatch(ISO);
  });

  it('leaves other sessions and the master token working', async () => {
    const a = await t.login(owner);
    const b = await t.login(owner);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: a })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/auth/me', { token: b })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
  });

  it('answers 409 CONFLICT for the master token, which keeps working', async () => {
    const res = await t.request('POST', '/api/v1/auth/logout', { token: owner.token });
    const body = expectError(res, 409, 'CONFLICT');
    expect(body.message).toContain('/api/v1/tokens/master/regenerate');
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
  });

  it('lets an API token log itself out', async () => {
    const api = await t.tokenWithScopes(owner, ['identity']);
    expect((await t.request('GET', '/api/v1/auth/me', { token: api })).status).toBe(200);
    const out = await t.request('POST', '/api/v1/auth/logout', { token: api });
    expect(out.status).toBe(200);
    expectError(await t.request('GET', '/api/v1/auth/me', { token: api }), 401, 'UNAUTHORIZED');
  });

  it('answers 401 without a token', async () => {
    expectError(await t.request('POST', '/api/v1/auth/logout'), 401, 'UNAUTHORIZED');
  });
});

describe('GET /api/v1/auth/me and /api/v1/users/me', () => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner('Me Myself');
  });
  afterAll(async () => t.close());

  for (const url of ['/api/v1/auth/me', '/api/v1/users/me']) {
    it(`${url} answers the caller's account for the master token, a session and an identity token`, async () => {
      const session = await t.login(owner);
      const identity = await t.tokenWithScopes(owner, ['identity', 'memory']);
      for (const token of [owner.token, session, identity]) {
        const res = await t.request('GET', url, { token });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body.data).sort()).toEqual(USER_KEYS);
        expect(res.body.data).toMatchObject({ id: owner.id, email: owner.email, name: 'Me Myself', role: owner.role });
      }
    });

    it(`${url} needs the identity scope: 403 INSUFFICIENT_SCOPE naming it`, async () => {
      const memoryOnly = await t.tokenWithScopes(owner, ['memory']);
      const res = await t.request('GET', url, { token: memoryOnly });
      const body = expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(body.message).toContain('identity');
      expect(res.body.data).toBeUndefined();
    });

    it(`${url} answers 401 without a token`, async () => {
      const res = await t.request('GET', url);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer/);
    });
  }
});

describe('administrator routes: /api/v1/users', () => {
  let t: TestApp;
  let admin: Owner;
  let user: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.createOwner('Admin');
    user = await t.createOwner('User');
  });
  afterAll(async () => t.close());

  it('the first owner is the administrator', () => {
    expect(admin.role).toBe('admin');
    expect(user.role).toBe('user');
  });

  it('GET /users answers every account to the administrator master token and session', async () => {
    const session = await t.login(admin);
    for (const token of [admin.token, session]) {
      const res = await t.request('GET', '/api/v1/users', { token });
      expect(res.status).toBe(200);
      expect(res.body.nextCursor).toBeNull();
      const ids = res.body.data.map((u: { id: string }) => u.id);
      expect(ids).toContain(admin.id);
      expect(ids).toContain(user.id);
      for (const u of res.body.data) expect(Object.keys(u).sort()).toEqual(USER_KEYS);
      expect(res.text).not.toMatch(/password|hash/i);
    }
  });

  it('refuses non-administrators and scoped tokens of the administrator with 403 FORBIDDEN', async () => {
    const userSession = await t.login(user);
    const adminApi = await t.tokenWithScopes(admin, [...SCOPE_NAMES]);
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/api/v1/users', undefined],
      ['POST', '/api/v1/users', { email: email('blocked'), password: password() }],
      ['PUT', `/api/v1/users/${user.id}/plan`, { planId: 'pro' }],
    ];
    for (const token of [user.token, userSession, adminApi]) {
      for (const [method, url, body] of calls) {
        const res = await t.request(method as 'GET', url, { token, body });
        expectError(res, 403, 'FORBIDDEN');
      }
    }
    for (const [method, url, body] of calls) {
      expectError(await t.request(method as 'GET', url, { body }), 401, 'UNAUTHORIZED');
    }
    // Nothing was changed by the refused calls.
    expect((await userRow(t, user.id)).plan_id).toBe('free');
    const list = await t.request('GET', '/api/v1/users', { token: admin.token });
    expect(list.body.data.some((u: { email: string }) => u.email.startsWith('blocked'))).toBe(false);
  });

  it('POST /users creates an account that can log in (201, no token in the answer)', async () => {
    const newEmail = email('Created').replace('Created', 'CREATED');
    const newPassword = password();
    const session = await t.login(admin);
    const res = await t.request('POST', '/api/v1/users', { token: session, body: { email: newEmail, password: newPassword, name: 'Created' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(USER_KEYS);
    expect(res.body.data.email).toBe(newEmail.toLowerCase());
    expect(res.body.data.role).toBe('user');
    expect(res.body.data.planId).toBe('free');
    expect(res.text).not.toContain('hth_');
    expect(res.text).not.toContain(newPassword);

    const login = await t.request('POST', '/api/v1/auth/login', { body: { email: newEmail, password: newPassword } });
    expect(login.status).toBe(200);
    expect(login.body.data.user.id).toBe(res.body.data.id);

    expectError(await t.request('POST', '/api/v1/users', { token: admin.token, body: { email: newEmail, password: password() } }), 409, 'CONFLICT');
    const invalid = await t.request('POST', '/api/v1/users', { token: admin.token, body: { email: 'nope', password: 'x' } });
    const invalidBody = expectError(invalid, 400, 'VALIDATION_ERROR');
    expectDetailFor(invalidBody, 'body.email');
    expectDetailFor(invalidBody, 'body.password');
  });

  it('PUT /users/{id}/plan changes the plan; unknown user 404, unknown plan 400', async () => {
    const res = await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: { planId: 'pro' } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(user.id);
    expect(res.body.data.planId).toBe('pro');
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.data.createdAt));
    expect((await userRow(t, user.id)).plan_id).toBe('pro');

    const me = await t.request('GET', '/api/v1/users/me', { token: user.token });
    expect(me.body.data.planId).toBe('pro');

    const session = await t.login(admin);
    const back = await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: session, body: { planId: 'free' } });
    expect(back.status).toBe(200);
    expect(back.body.data.planId).toBe('free');

    expectError(
      await t.request('PUT', '/api/v1/users/usr_00000000000000000000000000/plan', { token: admin.token, body: { planId: 'pro' } }),
      404,
      'NOT_FOUND',
    );
    const badPlan = await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: { planId: 'platinum' } });
    expectDetailFor(expectError(badPlan, 400, 'VALIDATION_ERROR'), 'body.planId');
    expect((await userRow(t, user.id)).plan_id).toBe('free');

    expectDetailFor(
      expectError(await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: {} }), 400, 'VALIDATION_ERROR'),
      'body.planId',
    );
  });
});

describe('GET /api/v1/users paging', () => {
  let t: TestApp;
  let admin: Owner;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.createOwner();
    ids.push(admin.id);
    for (let i = 0; i < 6; i++) ids.push((await t.createOwner()).id);
  });
  afterAll(async () => t.close());

  it('walks every account once with limit, cursor and nextCursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 3 };
      if (cursor) query.cursor = cursor;
      const res = await t.request('GET', '/api/v1/users', { token: admin.token, query });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.data.map((u: { id: string }) => u.id));
      cursor = res.body.nextCursor;
      if (cursor !== null) expect(cursor).toBe(res.body.data.at(-1).id);
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  it('answers an exact last page with nextCursor null', async () => {
    const all = await t.request('GET', '/api/v1/users', { token: admin.token, query: { limit: 7 } });
    expect(all.body.data).toHaveLength(7);
    expect(all.body.nextCursor).toBeNull();
    const partial = await t.request('GET', '/api/v1/users', { token: admin.token, query: { limit: 6 } });
    expect(partial.body.data).toHaveLength(6);
    expect(partial.body.nextCursor).toBe(partial.body.data[5].id);
  });

  it('refuses a limit outside 1..200 with 400 VALIDATION_ERROR', async () => {
    for (const limit of [0, 201, 'many']) {
      const res = await t.request('GET', '/api/v1/users', { token: admin.token, query: { limit } });
      expectDetailFor(expectError(res, 400, 'VALIDATION_ERROR'), 'querystring.limit');
    }
  });
});
