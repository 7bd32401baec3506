/**
 * Password guessing over HTTP: every route that checks a password (login, replacing the master
 * token from a login session) reserves its attempt before the password hash runs, so parallel
 * requests cannot race past the slowdown; counters are per address and per account, an attacker
 * cannot lock the owner out from another address, and unknown emails answer like known ones.
 * Client addresses come from X-Forwarded-For (TRUST_PROXY on in this file's config).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { freezeDate, fromAddress as from, loginFrom, newAddress } from '../../../test/clients.js';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ config: { trustProxy: true } });
});
afterAll(async () => t.close());
// The clock stands still, so a wait of 1 s cannot run out between two requests.
beforeEach(freezeDate);

const login = (email: string, password: string, address: string) => loginFrom(t, { email, password }, address);

function regenerate(session: string, password: string, address: string, url = '/api/v1/tokens/master/regenerate') {
  return t.request('POST', url, { token: session, body: { password }, headers: from(address) });
}

async function sessionFor(owner: Owner, address: string): Promise<string> {
  const res = await login(owner.email, owner.password, address);
  expect(res.status).toBe(200);
  return res.body.data.token;
}

async function auditEntries(owner: Owner, action: string): Promise<Array<{ outcome: string; ip: string; details: Record<string, unknown> | null }>> {
  const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action, limit: 200 } });
  expect(res.status).toBe(200);
  return res.body.data;
}

const statuses = (responses: ApiResponse[]) => responses.map((r) => r.status).sort((a, b) => a - b);

describe('parallel wrong passwords are counted before any is checked', () => {
  it('15 parallel wrong logins on an account at 4 failures: one is checked, the 14 others answer 429 unchecked', async () => {
    const owner = await t.createOwner();
    const address = newAddress();
    for (let i = 0; i < 4; i++) expectError(await login(owner.email, `wrong-${i}-password`, address), 401, 'UNAUTHORIZED');

    const batch = await Promise.all(Array.from({ length: 15 }, (_, i) => login(owner.email, `parallel-${i}-wrong`, address)));
    expect(statuses(batch)).toEqual([401, ...Array<number>(14).fill(429)]);
    for (const res of batch.filter((r) => r.status === 429)) {
      expectError(res, 429, 'RATE_LIMITED');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // The audit log tells the checked attempts (failure) from the refused ones (denied).
    const logins = await auditEntries(owner, 'auth.login');
    expect(logins.filter((e) => e.outcome === 'failure')).toHaveLength(5);
    expect(logins.filter((e) => e.outcome === 'denied')).toHaveLength(14);
  });

  it('15 parallel logins on an account at 5 failures once its wait has passed: exactly one is checked, even with the right password among them', async () => {
    const owner = await t.createOwner();
    const address = newAddress();
    for (let i = 0; i < 5; i++) expectError(await login(owner.email, `wrong-${i}-password`, address), 401, 'UNAUTHORIZED');
    // The fifth failure asks for 1 s; let it pass without sleeping.
    vi.setSystemTime(Date.now() + 1500);

    const batch = await Promise.all(
      Array.from({ length: 15 }, (_, i) => login(owner.email, i === 7 ? owner.password : `parallel-${i}-wrong`, address)),
    );
    const checked = batch.filter((r) => r.status !== 429);
    expect(checked).toHaveLength(1);
    expect(batch.filter((r) => r.status === 429)).toHaveLength(14);
    const logins = await auditEntries(owner, 'auth.login');
    expect(logins.filter((e) => e.outcome !== 'denied')).toHaveLength(6);
  });

  it('30 parallel master regenerations with wrong passwords: only the free attempts are checked; the master token stays', async () => {
    const owner = await t.createOwner();
    const address = newAddress();
    const session = await sessionFor(owner, address);

    const batch = await Promise.all(Array.from({ length: 30 }, (_, i) => regenerate(session, `wrong-${i}-password`, address)));
    expect(statuses(batch)).toEqual([...Array<number>(5).fill(403), ...Array<number>(25).fill(429)]);
    for (const res of batch.filter((r) => r.status === 429)) expectError(res, 429, 'RATE_LIMITED');
    const checks = await auditEntries(owner, 'auth.confirm_password');
    expect(checks.filter((e) => e.outcome === 'failure')).toHaveLength(5);
    expect(checks.filter((e) => e.outcome === 'denied')).toHaveLength(25);
    // Still waiting: the right password is refused too, and the master token was never replaced.
    expectError(await regenerate(session, owner.password, address), 429, 'RATE_LIMITED');
    expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
  });

  it('/tokens/{masterId}/regenerate shares the counter with /tokens/master/regenerate and login', async () => {
    const owner = await t.createOwner();
    const address = newAddress();
    const session = await sessionFor(owner, address);
    const tokens = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'master' } });
    const masterUrl = `/api/v1/tokens/${tokens.body.data[0].id}/regenerate`;
    const batch = await Promise.all(
      Array.from({ length: 20 }, (_, i) => regenerate(session, `wrong-${i}-password`, address, i % 2 ? masterUrl : undefined)),
    );
    expect(statuses(batch)).toEqual([...Array<number>(5).fill(403), ...Array<number>(15).fill(429)]);
    expectError(await login(owner.email, owner.password, address), 429, 'RATE_LIMITED');
  });
});

describe('the owner is not locked out by someone guessing from another address', () => {
  it('logs in and replaces the master token from their address while an attacker is being slowed', async () => {
    const owner = await t.createOwner();
    const attacker = newAddress();
    const home = newAddress();
    const attempts = [];
    for (let i = 0; i < 12; i++) attempts.push(await login(owner.email, `guess-${i}-password`, attacker));
    expect(attempts.slice(0, 5).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(attempts.slice(5).every((r) => r.status === 429)).toBe(true);
    // The attacker is refused even with the right password...
    expectError(await login(owner.email, owner.password, attacker), 429, 'RATE_LIMITED');

    // ...while the owner, elsewhere, gets in at once, and can replace the master token.
    const session = await sessionFor(owner, home);
    const replaced = await regenerate(session, owner.password, home);
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.token).toMatch(/^hth_mst_/);
    // The attacker stays slowed after the owner's success.
    expectError(await login(owner.email, owner.password, attacker), 429, 'RATE_LIMITED');
  });

  it('guessing spread over many addresses slows every new address, never the one the owner logged in from', async () => {
    const owner = await t.createOwner();
    const home = newAddress();
    await sessionFor(owner, home);
    for (let a = 0; a < 4; a++) {
      const address = newAddress();
      for (let i = 0; i < 5; i++) expectError(await login(owner.email, `spread-${a}-${i}`, address), 401, 'UNAUTHORIZED');
    }
    // A fifth address that never logged in to the account waits, even with the right password.
    expectError(await login(owner.email, owner.password, newAddress()), 429, 'RATE_LIMITED');
    // The owner's address is not affected.
    expect((await login(owner.email, owner.password, home)).status).toBe(200);
  });
});

describe('unknown emails answer exactly like known ones', () => {
  const comparable = (res: ApiResponse) => {
    const headers = { ...res.headers };
    delete headers['x-request-id'];
    delete headers.date;
    return { status: res.status, body: res.body, headers };
  };

  it('the same statuses, bodies and headers, failure after failure, through the slowdown', async () => {
    const owner = await t.createOwner();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const address = newAddress();
    const known: ApiResponse[] = [];
    const missing: ApiResponse[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await login(owner.email, `wrong-${i}-password`, address));
      missing.push(await login(unknown, `wrong-${i}-password`, address));
    }
    expect(known.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(missing.map(comparable)).toEqual(known.map(comparable));
  });

  it('parallel guesses at an unknown email are held back exactly as at a known one', async () => {
    const owner = await t.createOwner();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const [knownBatch, unknownBatch] = await Promise.all(
      [owner.email, unknown].map((email) => {
        const address = newAddress();
        return Promise.all(Array.from({ length: 10 }, (_, i) => login(email, `parallel-${i}-wrong`, address)));
      }),
    );
    expect(statuses(unknownBatch!)).toEqual(statuses(knownBatch!));
    expect(statuses(knownBatch!)).toEqual([...Array<number>(5).fill(401), ...Array<number>(5).fill(429)]);
  });
});

describe('per-address limit on every route that checks a password', () => {
  it('counts master regenerations with a password towards the address limit (AUTH_RATE_LIMIT)', async () => {
    const limited = await createTestApp({ config: { trustProxy: true, authRateLimitPerMinute: 3 } });
    try {
      const owner = await limited.createOwner();
      const address = '203.0.113.77';
      const regen = (password: string, at: string, token: string) =>
        limited.request('POST', '/api/v1/tokens/master/regenerate', { token, body: { password }, headers: from(at) });
      const res = await loginFrom(limited, owner, address);
      expect(res.status).toBe(200);
      const session = res.body.data.token as string;
      expectError(await regen('wrong-password-1', address, session), 403, 'FORBIDDEN');
      expectError(await regen('wrong-password-2', address, session), 403, 'FORBIDDEN');
      // The third password check this minute from that address: refused before it is checked.
      const refused = await regen(owner.password, address, session);
      expectError(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another address is not affected.
      expect((await regen(owner.password, '203.0.113.78', session)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
