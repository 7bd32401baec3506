import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { generateTokenSecret } from '../../lib/crypto.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TOKEN_KEYS = [
  'clientId',
  'createdAt',
  'expiresAt',
  'handshakeId',
  'hint',
  'id',
  'kind',
  'lastUsedAt',
  'memoryTags',
  'name',
  'revokedAt',
  'scopes',
  'status',
  'updatedAt',
];
const UNKNOWN_ID = 'tok_00000000000000000000000000';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function create(owner: Owner, body: Record<string, unknown>, token = owner.token): Promise<ApiResponse> {
  return t.request('POST', '/api/v1/tokens', { token, body });
}

/** Creates an API token and answers its id and secret. */
async function apiToken(owner: Owner, scopes: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await create(owner, { name: `t ${scopes.join(',')}`.slice(0, 100), scopes, ...extra });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, secret: res.body.data.token };
}

async function masterId(owner: Owner): Promise<string> {
  const res = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'master' } });
  expect(res.status).toBe(200);
  expect(res.body.data).toHaveLength(1);
  return res.body.data[0].id;
}

/** GET /auth/me with `token`: 200 when the token is live and holds `identity`. */
async function me(token: string): Promise<ApiResponse> {
  return t.request('GET', '/api/v1/auth/me', { token });
}

function expectSecretAbsent(res: ApiResponse, secret: string): void {
  expect(res.text).not.toContain(secret);
  expect(res.text).not.toContain(secret.slice(8, 40));
}

describe('POST /api/v1/tokens', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await t.createOwner();
  });

  it('answers 201 with the record and the secret, shown once', async () => {
    const res = await create(owner, { name: 'Calendar agent', scopes: ['identity', 'memory'] });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([...TOKEN_KEYS, 'token'].sort());
    expect(data.id).toMatch(/^tok_[0-9A-Z]{26}$/);
    expect(data.name).toBe('Calendar agent');
    expect(data.kind).toBe('api');
    expect(data.scopes).toEqual(['identity', 'memory']);
    expect(data.status).toBe('active');
    expect(data.handshakeId).toBeNull();
    expect(data.expiresAt).toBeNull();
    expect(data.lastUsedAt).toBeNull();
    expect(data.revokedAt).toBeNull();
    expect(data.createdAt).toMatch(ISO);
    expect(data.token).toMatch(/^hth_pat_[0-9A-Za-z]{38}$/);
    expect(data.hint.startsWith('hth_pat_')).toBe(true);
    expect(data.hint.endsWith(data.token.slice(-4))).toBe(true);
    expect(data.hint).not.toContain(data.token.slice(8, 40));

    const secret = data.token as string;
    expect((await me(secret)).status).toBe(200);

    // Never again: not in the list, the record, an update or a revoke.
    const list = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { includeRevoked: true } });
    expect(list.status).toBe(200);
    expect(list.body.data.map((tok: { id: string }) => tok.id)).toContain(data.id);
    for (const item of list.body.data) expect(item).not.toHaveProperty('token');
    expectSecretAbsent(list, secret);

    const got = await t.request('GET', `/api/v1/tokens/${data.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.data).not.toHaveProperty('token');
    expect(Object.keys(got.body.data).sort()).toEqual(TOKEN_KEYS);
    expectSecretAbsent(got, secret);

    const updated = await t.request('PUT', `/api/v1/tokens/${data.id}`, { token: owner.token, body: { name: 'Renamed' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).not.toHaveProperty('token');
    expectSecretAbsent(updated, secret);

    const revoked = await t.request('DELETE', `/api/v1/tokens/${data.id}`, { token: owner.token });
    expect(revoked.status).toBe(200);
    expectSecretAbsent(revoked, secret);
  });

  it('validates scopes against the scope list', async () => {
    const unknown = await create(owner, { name: 'x', scopes: ['identity', 'root'] });
    const body = expectError(unknown, 400, 'VALIDATION_ERROR');
    // One detail for the field, naming the accepted values (not one "must be equal to constant" per scope).
    expect(body.details).toEqual([{ field: 'body.scopes.1', message: `must be one of: ${SCOPE_NAMES.join(', ')}` }]);
    expect(body.message).toBe(`Invalid request: body.scopes.1 must be one of: ${SCOPE_NAMES.join(', ')}`);

    expectError(await create(owner, { name: 'x', scopes: [] }), 400, 'VALIDATION_ERROR');
    expectError(await create(owner, { name: 'x', scopes: ['memory', 'memory'] }), 400, 'VALIDATION_ERROR');
    expectError(await create(owner, { name: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await create(owner, { scopes: ['memory'] }), 400, 'VALIDATION_ERROR');
    expectError(await create(owner, { name: '', scopes: ['memory'] }), 400, 'VALIDATION_ERROR');
    const extra = await create(owner, { name: 'x', scopes: ['memory'], kind: 'master' });
    expect(expectError(extra, 400, 'VALIDATION_ERROR').details).toContainEqual({ field: 'body.kind', message: 'is not an accepted field' });

    // Every listed scope is accepted, all at once too.
    const all = await create(owner, { name: 'everything', scopes: [...SCOPE_NAMES] });
    expect(all.status).toBe(201);
    expect([...all.body.data.scopes].sort()).toEqual([...SCOPE_NAMES].sort());
  });

  it('refuses an expiresAt in the past or not a date with 400, and stores a future one in UTC', async () => {
    const past = await create(owner, { name: 'x', scopes: ['memory'], expiresAt: new Date(Date.now() - 60_000).toISOString() });
    const pastBody = expectError(past, 400, 'VALIDATION_ERROR');
    expect((pastBody.details as Array<{ field: string }>).map((d) => d.field)).toContain('body.expiresAt');

    expectError(await create(owner, { name: 'x', scopes: ['memory'], expiresAt: 'tomorrow' }), 400, 'VALIDATION_ERROR');

    const future = await create(owner, { name: 'x', scopes: ['memory'], expiresAt: '2099-01-01T00:00:00+02:00' });
    expect(future.status).toBe(201);
    expect(future.body.data.expiresAt).toBe('2098-12-31T22:00:00.000Z');
    expect(future.body.data.status).toBe('active');

    // A change of expiry is held to the same rule, and names the field where the body carried it.
    const moved = await t.request('PUT', `/api/v1/tokens/${future.body.data.id}`, { token: owner.token, body: { expiresAt: new Date(Date.now() - 60_000).toISOString() } });
    expect(expectError(moved, 400, 'VALIDATION_ERROR').details).toEqual([{ field: 'body.expiresAt', message: 'must be in the future' }]);
  });

  it('works with a login session too', async () => {
    const session = await t.login(owner);
    const res = await create(owner, { name: 'from session', scopes: ['identity'] }, session);
    expect(res.status).toBe(201);
    expect((await me(res.body.data.token)).status).toBe(200);
  });
});

describe('GET /api/v1/tokens', () => {
  let owner: Owner;
  const created: string[] = [];
  let revokedId: string;
  let sessionIds: string[];
  beforeAll(async () => {
    owner = await t.createOwner();
    for (let i = 0; i < 5; i++) created.push((await apiToken(owner, ['memory'])).id);
    revokedId = (await apiToken(owner, ['memory'])).id;
    expect((await t.request('DELETE', `/api/v1/tokens/${revokedId}`, { token: owner.token })).status).toBe(200);
    await t.login(owner);
    await t.login(owner);
    const sessions = await t.storage.db.selectFrom('tokens').select('id').where('owner_id', '=', owner.id).where('kind', '=', 'session').execute();
    sessionIds = sessions.map((s) => s.id);
    expect(sessionIds).toHaveLength(2);
  });

  it('lists the master and live API tokens newest first, without sessions or revoked ones', async () => {
    const res = await t.request('GET', '/api/v1/tokens', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const ids = res.body.data.map((tok: { id: string }) => tok.id);
    const master = await masterId(owner);
    expect(ids).toEqual([...created].reverse().concat(master));
    for (const tok of res.body.data) {
      expect(Object.keys(tok).sort()).toEqual(TOKEN_KEYS);
      expect(tok.kind).not.toBe('session');
      expect(tok.status).toBe('active');
    }
  });

  it('pages with limit, cursor and nextCursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 2 };
      if (cursor) query.cursor = cursor;
      const res = await t.request('GET', '/api/v1/tokens', { token: owner.token, query });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((tok: { id: string }) => tok.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse().concat(await masterId(owner)));
  });

  it('lists login sessions only with kind=session', async () => {
    const res = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'session' } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((tok: { id: string }) => tok.id).sort()).toEqual([...sessionIds].sort());
    for (const tok of res.body.data) {
      expect(tok.kind).toBe('session');
      expect(tok.expiresAt).toMatch(ISO);
      expect([...tok.scopes].sort()).toEqual([...SCOPE_NAMES].sort());
    }
    const apiOnly = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'api' } });
    expect(apiOnly.body.data.map((tok: { id: string }) => tok.id)).toEqual([...created].reverse());
    expectError(await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'bogus' } }), 400, 'VALIDATION_ERROR');
  });

  it('lists revoked tokens only with includeRevoked=true', async () => {
    const without = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { includeRevoked: false } });
    expect(without.body.data.map((tok: { id: string }) => tok.id)).not.toContain(revokedId);
    const withRevoked = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { includeRevoked: true } });
    const revoked = withRevoked.body.data.find((tok: { id: string }) => tok.id === revokedId);
    expect(revoked).toBeDefined();
    expect(revoked.status).toBe('revoked');
    expect(revoked.revokedAt).toMatch(ISO);
    expect(withRevoked.body.data).toHaveLength(without.body.data.length + 1);
  });

  it('never lists another owner\'s tokens', async () => {
    const other = await t.createOwner();
    const res = await t.request('GET', '/api/v1/tokens', { token: other.token, query: { includeRevoked: true } });
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].kind).toBe('master');
    expect(res.body.data[0].id).not.toBe(await masterId(owner));
  });
});

describe('GET, PUT, DELETE /api/v1/tokens/{id} and regenerate', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await t.createOwner();
  });

  it('GET answers the record; an unknown id 404 NOT_FOUND', async () => {
    const { id } = await apiToken(owner, ['memory', 'identity']);
    const res = await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
    expect(res.body.data.scopes).toEqual(['memory', 'identity']);
    const missing = await t.request('GET', `/api/v1/tokens/${UNKNOWN_ID}`, { token: owner.token });
    expect(expectError(missing, 404, 'NOT_FOUND').message).toContain(UNKNOWN_ID);
  });

  it('PUT changes the name, scopes and expiry; {} is 400', async () => {
    const { id } = await apiToken(owner, ['memory']);
    const res = await t.request('PUT', `/api/v1/tokens/${id}`, {
      token: owner.token,
      body: { name: 'New name', scopes: ['identity', 'chat'], expiresAt: '2099-06-01T00:00:00Z' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, name: 'New name', scopes: ['identity', 'chat'], expiresAt: '2099-06-01T00:00:00.000Z', status: 'active' });
    const got = await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(got.body.data).toMatchObject({ name: 'New name', scopes: ['identity', 'chat'], expiresAt: '2099-06-01T00:00:00.000Z' });

    const cleared = await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { expiresAt: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.expiresAt).toBeNull();

    expectError(await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { scopes: ['root'] } }), 400, 'VALIDATION_ERROR');
    expectError(
      await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { expiresAt: new Date(Date.now() - 1000).toISOString() } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await t.request('PUT', `/api/v1/tokens/${UNKNOWN_ID}`, { token: owner.token, body: { name: 'x' } }), 404, 'NOT_FOUND');
  });

  it('PUT on the master token may rename it but not change its scopes or expiry (409)', async () => {
    const id = await masterId(owner);
    const renamed = await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { name: 'My master' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('My master');
    expectError(await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { scopes: ['memory'] } }), 409, 'CONFLICT');
    expectError(await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { expiresAt: '2099-01-01T00:00:00Z' } }), 409, 'CONFLICT');
    expect((await me(owner.token)).status).toBe(200);
  });

  it('DELETE revokes: the token is refused on its very next request', async () => {
    const { id, secret } = await apiToken(owner, ['identity']);
    expect((await me(secret)).status).toBe(200);
    const res = await t.request('DELETE', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('revoked');
    expect(res.body.data.revokedAt).toMatch(ISO);
    const next = await me(secret);
    expectError(next, 401, 'UNAUTHORIZED');
    expect(String(next.headers['www-authenticate'])).toMatch(/^Bearer/);
    // Revoking twice is harmless; a revoked token cannot be changed or regenerated.
    const again = await t.request('DELETE', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(res.body.data.revokedAt);
    expectError(await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { name: 'x' } }), 409, 'CONFLICT');
    expectError(await t.request('POST', `/api/v1/tokens/${id}/regenerate`, { token: owner.token }), 409, 'CONFLICT');
    expectError(await me(secret), 401, 'UNAUTHORIZED');
    expectError(await t.request('DELETE', `/api/v1/tokens/${UNKNOWN_ID}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('DELETE of the master token answers 409 CONFLICT and it keeps working', async () => {
    const id = await masterId(owner);
    const res = await t.request('DELETE', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(expectError(res, 409, 'CONFLICT').message).toContain('/api/v1/tokens/master/regenerate');
    expect((await me(owner.token)).status).toBe(200);
    const got = await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(got.body.data.status).toBe('active');
  });

  it('DELETE of a session revokes it at once', async () => {
    const session = await t.login(owner);
    expect((await me(session)).status).toBe(200);
    const sessions = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'session' } });
    const record = sessions.body.data.find((tok: { hint: string }) => tok.hint.endsWith(session.slice(-4)));
    expect((await t.request('DELETE', `/api/v1/tokens/${record.id}`, { token: owner.token })).status).toBe(200);
    expectError(await me(session), 401, 'UNAUTHORIZED');
  });

  it('regenerate answers a new secret; the old one is refused on its very next request', async () => {
    const { id, secret } = await apiToken(owner, ['identity']);
    expect((await me(secret)).status).toBe(200);
    const res = await t.request('POST', `/api/v1/tokens/${id}/regenerate`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([...TOKEN_KEYS, 'token'].sort());
    const fresh = res.body.data.token as string;
    expect(fresh).toMatch(/^hth_pat_[0-9A-Za-z]{38}$/);
    expect(fresh).not.toBe(secret);
    expect(res.body.data.id).toBe(id);
    expect(res.body.data.scopes).toEqual(['identity']);
    expect(res.body.data.hint.endsWith(fresh.slice(-4))).toBe(true);

    expectError(await me(secret), 401, 'UNAUTHORIZED');
    expect((await me(fresh)).status).toBe(200);
    expectError(await t.request('POST', `/api/v1/tokens/${UNKNOWN_ID}/regenerate`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('a login session cannot be regenerated (409)', async () => {
    const session = await t.login(owner);
    const sessions = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'session' } });
    const record = sessions.body.data.find((tok: { hint: string }) => tok.hint.endsWith(session.slice(-4)));
    expectError(await t.request('POST', `/api/v1/tokens/${record.id}/regenerate`, { token: owner.token }), 409, 'CONFLICT');
    expect((await me(session)).status).toBe(200);
  });

  it('a scope change takes effect on the next request', async () => {
    const { id, secret } = await apiToken(owner, ['identity']);
    expect((await me(secret)).status).toBe(200);
    const narrowed = await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { scopes: ['memory'] } });
    expect(narrowed.status).toBe(200);
    const refused = await me(secret);
    expect(expectError(refused, 403, 'INSUFFICIENT_SCOPE').message).toContain('identity');
    const widened = await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { scopes: ['memory', 'identity'] } });
    expect(widened.status).toBe(200);
    expect((await me(secret)).status).toBe(200);
  });
});

describe('master token regeneration', () => {
  it('from a login session needs the account password; a wrong one counts like a failed login', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    const id = await masterId(owner);
    for (const url of ['/api/v1/tokens/master/regenerate', `/api/v1/tokens/${id}/regenerate`]) {
      expect(expectError(await t.request('POST', url, { token: session }), 403, 'FORBIDDEN').message).toContain('password');
      expectError(await t.request('POST', url, { token: session, body: { password: 'not-it' } }), 403, 'FORBIDDEN');
    }
    // The master token was not replaced by any of those.
    expect((await me(owner.token)).status).toBe(200);
    // Three more wrong passwords make five: the account slows down, for logins too.
    for (let i = 0; i < 3; i++) {
      await t.request('POST', '/api/v1/tokens/master/regenerate', { token: session, body: { password: 'still-not-it' } });
    }
    expectError(
      await t.request('POST', '/api/v1/tokens/master/regenerate', { token: session, body: { password: owner.password } }),
      429,
      'RATE_LIMITED',
    );
    expectError(await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } }), 429, 'RATE_LIMITED');
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'auth.confirm_password' } });
    expect(audit.body.data.length).toBeGreaterThanOrEqual(5);
    expect(audit.body.data.every((e: { outcome: string }) => e.outcome !== 'success')).toBe(true);
  });

  it('with the master token needs no password, and a password sent along is ignored', async () => {
    const owner = await t.createOwner();
    const res = await t.request('POST', '/api/v1/tokens/master/regenerate', { token: owner.token, body: { password: 'anything' } });
    expect(res.status).toBe(200);
    expect(res.body.data.token).toMatch(/^hth_mst_/);
  });

  it('POST /tokens/master/regenerate: the old master gets 401 at once, the new one works', async () => {
    const owner = await t.createOwner();
    const id = await masterId(owner);
    const res = await t.request('POST', '/api/v1/tokens/master/regenerate', { token: owner.token });
    expect(res.status).toBe(200);
    const fresh = res.body.data.token as string;
    expect(fresh).toMatch(/^hth_mst_[0-9A-Za-z]{38}$/);
    expect(fresh).not.toBe(owner.token);
    expect(res.body.data.id).toBe(id);
    expect(res.body.data.kind).toBe('master');
    expect(res.body.data.status).toBe('active');

    expectError(await me(owner.token), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/api/v1/tokens/master/regenerate', { token: owner.token }), 401, 'UNAUTHORIZED');
    const meRes = await me(fresh);
    expect(meRes.status).toBe(200);
    expect(meRes.body.data.id).toBe(owner.id);
  });

  it('POST /tokens/{masterId}/regenerate does the same, also from a login session, which keeps working', async () => {
    const owner = await t.createOwner();
    const session = await t.login(owner);
    const id = await masterId(owner);
    const api = await apiToken(owner, ['identity']);
    const res = await t.request('POST', `/api/v1/tokens/${id}/regenerate`, { token: session, body: { password: owner.password } });
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('master');
    const fresh = res.body.data.token as string;
    expect(fresh).toMatch(/^hth_mst_/);

    expectError(await me(owner.token), 401, 'UNAUTHORIZED');
    expect((await me(fresh)).status).toBe(200);
    expect((await me(session)).status).toBe(200);
    expect((await me(api.secret)).status).toBe(200);
  });

  it('the tokens service alone never replaces the master token: only accounts does, after the proof', async () => {
    const owner = await t.createOwner();
    const id = await masterId(owner);
    const actor = { ownerId: owner.id, tokenId: null, ip: null, userAgent: null };
    await expect(t.container.tokens.regenerate(owner.id, id, actor)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(t.container.accounts.regenerateMaster(owner.id, actor, { callerKind: 'session' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await me(owner.token)).status).toBe(200);
  });
});

describe('how a token is presented', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await t.createOwner();
  });

  it('accepts ?token= in the query', async () => {
    const { secret } = await apiToken(owner, ['identity']);
    const res = await t.request('GET', '/api/v1/auth/me', { query: { token: secret } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(owner.id);
    const list = await t.request('GET', '/api/v1/tokens', { query: { token: owner.token, limit: 1 } });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
  });

  it('refuses a malformed token (bad checksum), an unknown well-formed one and garbage with 401', async () => {
    const { secret } = await apiToken(owner, ['identity']);
    const last = secret.at(-1) === 'a' ? 'b' : 'a';
    const badChecksum = secret.slice(0, -1) + last;
    // The live token is known (cached) first: its near-misses must still be refused.
    expect((await me(secret)).status).toBe(200);
    for (const bad of [badChecksum, generateTokenSecret('api'), generateTokenSecret('master'), 'hello', `${secret}x`, secret.slice(0, -1), secret.toUpperCase()]) {
      const res = await me(bad);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer/);
      expectError(await t.request('GET', '/api/v1/auth/me', { query: { token: bad } }), 401, 'UNAUTHORIZED');
    }
    expect((await me(secret)).status).toBe(200);
  });

  it('refuses Authorization: Basic with 401', async () => {
    const basic = Buffer.from(`${owner.email}:${owner.password}`).toString('base64');
    const res = await t.request('GET', '/api/v1/auth/me', { headers: { authorization: `Basic ${basic}` } });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer/);
    const basicToken = await t.request('GET', '/api/v1/auth/me', { headers: { authorization: `Basic ${owner.token}` } });
    expectError(basicToken, 401, 'UNAUTHORIZED');
  });

  it('sets lastUsedAt once the token is used', async () => {
    const { id, secret } = await apiToken(owner, ['identity']);
    const before = await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(before.body.data.lastUsedAt).toBeNull();
    const usedAt = Date.now();
    expect((await me(secret)).status).toBe(200);
    // The write happens off the request path; it lands right after.
    await expect
      .poll(async () => (await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token })).body.data.lastUsedAt, { timeout: 2000, interval: 20 })
      .not.toBeNull();
    const after = await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(after.body.data.lastUsedAt).toMatch(ISO);
    expect(Math.abs(Date.parse(after.body.data.lastUsedAt) - usedAt)).toBeLessThan(5000);
  });
});

describe('owner isolation', () => {
  it("another owner's token id answers 404 NOT_FOUND exactly like an unknown id, and nothing changes", async () => {
    const a = await t.createOwner();
    const b = await t.createOwner();
    const { id, secret } = await apiToken(a, ['identity']);
    const aMaster = await masterId(a);
    const bSession = await t.login(b);

    const attempts: Array<[string, string, unknown]> = [
      ['GET', '', undefined],
      ['PUT', '', { name: 'stolen', scopes: ['memory'] }],
      ['DELETE', '', undefined],
      ['POST', '/regenerate', undefined],
    ];
    for (const token of [b.token, bSession]) {
      for (const target of [id, aMaster]) {
        for (const [method, suffix, body] of attempts) {
          const theirs = await t.request(method as 'GET', `/api/v1/tokens/${target}${suffix}`, { token, body });
          const unknown = await t.request(method as 'GET', `/api/v1/tokens/${UNKNOWN_ID}${suffix}`, { token, body });
          expectError(theirs, 404, 'NOT_FOUND');
          expectError(unknown, 404, 'NOT_FOUND');
          expect(theirs.body.message.replace(target, '<id>')).toBe(unknown.body.message.replace(UNKNOWN_ID, '<id>'));
          expect(Object.keys(theirs.body).sort()).toEqual(Object.keys(unknown.body).sort());
        }
      }
    }

    // A's token is untouched: same name and scopes, still live with its old secret.
    const got = await t.request('GET', `/api/v1/tokens/${id}`, { token: a.token });
    expect(got.body.data).toMatchObject({ name: 't identity', scopes: ['identity'], status: 'active' });
    expect((await me(secret)).status).toBe(200);
    expect((await me(a.token)).status).toBe(200);
  });
});

describe('only the master token and sessions may call /tokens*', () => {
  it('an API token with every scope gets 403 FORBIDDEN on every /tokens route', async () => {
    const owner = await t.createOwner();
    const all = await apiToken(owner, [...SCOPE_NAMES]);
    const other = await apiToken(owner, ['memory']);
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/api/v1/tokens', undefined],
      ['POST', '/api/v1/tokens', { name: 'escalate', scopes: ['memory'] }],
      ['POST', '/api/v1/tokens/master/regenerate', undefined],
      ['GET', `/api/v1/tokens/${other.id}`, undefined],
      ['PUT', `/api/v1/tokens/${other.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/tokens/${other.id}`, undefined],
      ['POST', `/api/v1/tokens/${other.id}/regenerate`, undefined],
      ['POST', `/api/v1/tokens/${all.id}/regenerate`, undefined],
    ];
    for (const [method, url, body] of calls) {
      const res = await t.request(method as 'GET', url, { token: all.secret, body });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.data).toBeUndefined();
    }
    // Nothing happened: the master token and the other token still work, no token was made.
    expect((await me(owner.token)).status).toBe(200);
    const list = await t.request('GET', '/api/v1/tokens', { token: owner.token });
    expect(list.body.data.map((tok: { id: string }) => tok.id).sort()).toEqual([all.id, other.id, await masterId(owner)].sort());
    expect(list.body.data.find((tok: { id: string }) => tok.id === other.id).name).toBe('t memory');
  });
});

describe('expiry', () => {
  it('a token created to expire in a moment is refused once it has', async () => {
    const owner = await t.createOwner();
    const { id, secret } = await apiToken(owner, ['identity'], { expiresAt: new Date(Date.now() + 300).toISOString() });
    expect((await me(secret)).status).toBe(200);
    await sleep(450);
    expectError(await me(secret), 401, 'UNAUTHORIZED');
    const got = await t.request('GET', `/api/v1/tokens/${id}`, { token: owner.token });
    expect(got.body.data.status).toBe('expired');
  });

  it('a token whose expiry is moved close is refused once it passes', async () => {
    const owner = await t.createOwner();
    const { id, secret } = await apiToken(owner, ['identity']);
    expect((await me(secret)).status).toBe(200);
    const res = await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { expiresAt: new Date(Date.now() + 300).toISOString() } });
    expect(res.status).toBe(200);
    expect((await me(secret)).status).toBe(200);
    await sleep(450);
    expectError(await me(secret), 401, 'UNAUTHORIZED');
  });
});
