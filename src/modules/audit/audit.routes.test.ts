import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ENTRY_KEYS = ['action', 'createdAt', 'details', 'id', 'ip', 'outcome', 'targetId', 'targetType', 'tokenId', 'userAgent'];
const UA = 'audit-test-agent/1.0';

interface Entry {
  id: string;
  action: string;
  outcome: 'success' | 'failure' | 'denied';
  tokenId: string | null;
  ip: string | null;
  userAgent: string | null;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown> | null;
  createdAt: string;
}

let t: TestApp;
let owner: Owner;
/** Every secret issued to `owner` during the scenario, and its password. */
const secrets: string[] = [];
const ids = {} as { master: string; session: string; api: string };
let entries: Entry[];

async function readAll(token: string, query: Record<string, string | number> = {}): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const q: Record<string, string | number> = { limit: 200, ...query };
    if (cursor) q.cursor = cursor;
    const res = await t.request('GET', '/api/v1/audit/log', { token, query: q });
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('audit log paging did not end');
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner();
  secrets.push(owner.token, owner.password);
  const headers = { 'user-agent': UA };

  // 1. A failed login, then a successful one.
  const failed = await t.request('POST', '/api/v1/auth/login', { headers, body: { email: owner.email, password: 'not-the-password' } });
  expect(failed.status).toBe(401);
  const login = await t.request('POST', '/api/v1/auth/login', { headers, body: { email: owner.email, password: owner.password } });
  expect(login.status).toBe(200);
  secrets.push(login.body.data.token);

  const masterList = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'master' } });
  ids.master = masterList.body.data[0].id;
  const sessions = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'session' } });
  ids.session = sessions.body.data[0].id;

  // 2. Token create, regenerate, revoke (with the master token).
  const created = await t.request('POST', '/api/v1/tokens', { token: owner.token, headers, body: { name: 'Audited', scopes: ['memory'] } });
  expect(created.status).toBe(201);
  ids.api = created.body.data.id;
  secrets.push(created.body.data.token);
  const regenerated = await t.request('POST', `/api/v1/tokens/${ids.api}/regenerate`, { token: owner.token, headers });
  expect(regenerated.status).toBe(200);
  secrets.push(regenerated.body.data.token);
  const revoked = await t.request('DELETE', `/api/v1/tokens/${ids.api}`, { token: owner.token, headers });
  expect(revoked.status).toBe(200);

  // 3. Master regenerate (from the login session).
  const master = await t.request('POST', '/api/v1/tokens/master/regenerate', { token: login.body.data.token, headers, body: { password: owner.password } });
  expect(master.status).toBe(200);
  owner.token = master.body.data.token;
  secrets.push(owner.token);

  entries = await readAll(owner.token);
});
afterAll(async () => t.close());

function only(action: string, outcome?: string): Entry {
  const matches = entries.filter((e) => e.action === action && (outcome === undefined || e.outcome === outcome));
  expect(matches, `${action} ${outcome ?? ''}`).toHaveLength(1);
  return matches[0]!;
}

describe('GET /api/v1/audit/log: what is recorded', () => {
  it('answers entries in the documented shape', () => {
    expect(entries.length).toBeGreaterThanOrEqual(7);
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
      expect(entry.id).toMatch(/^aud_[0-9A-Z]{26}$/);
      expect(['success', 'failure', 'denied']).toContain(entry.outcome);
      expect(entry.createdAt).toMatch(ISO);
      expect(entry.ip).toBe('127.0.0.1');
    }
  });

  it('records the registration', () => {
    const entry = only('auth.register');
    expect(entry).toMatchObject({ outcome: 'success', targetType: 'user', targetId: owner.id, tokenId: null });
  });

  it('records a failed login with where it came from, and no token', () => {
    const entry = only('auth.login', 'failure');
    expect(entry).toMatchObject({ tokenId: null, ip: '127.0.0.1', userAgent: UA });
    expect(entry.details).toMatchObject({ reason: 'wrong password' });
  });

  it('records a successful login with the session it opened', () => {
    const entry = only('auth.login', 'success');
    expect(entry).toMatchObject({ tokenId: ids.session, targetType: 'token', targetId: ids.session, ip: '127.0.0.1', userAgent: UA });
  });

  it('records token create, regenerate and revoke with the acting token', () => {
    const create = only('token.create');
    expect(create).toMatchObject({ outcome: 'success', tokenId: ids.master, targetType: 'token', targetId: ids.api, userAgent: UA });
    expect(create.details).toMatchObject({ name: 'Audited', scopes: ['memory'] });
    expect(only('token.regenerate')).toMatchObject({ outcome: 'success', tokenId: ids.master, targetId: ids.api, userAgent: UA });
    expect(only('token.revoke')).toMatchObject({ outcome: 'success', tokenId: ids.master, targetId: ids.api, userAgent: UA });
  });

  it('records the master regenerate, done by the session', () => {
    expect(only('token.master_regenerate')).toMatchObject({ outcome: 'success', tokenId: ids.session, targetId: ids.master, userAgent: UA });
  });

  it('never holds a secret or the password', async () => {
    expect(secrets).toHaveLength(6);
    const text = JSON.stringify(entries);
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const secret of secrets.filter((s) => s.startsWith('hth_'))) expect(text).not.toContain(secret.slice(8, 40));
    const rows = await t.storage.db.selectFrom('audit_log').selectAll().execute();
    const raw = JSON.stringify(rows);
    for (const secret of secrets) expect(raw).not.toContain(secret);
  });

  it('lists newest first', () => {
    const order = entries.map((e) => e.action + ':' + e.outcome);
    expect(order.slice(0, 6)).toEqual([
      'token.master_regenerate:success',
      'token.revoke:success',
      'token.regenerate:success',
      'token.create:success',
      'auth.login:success',
      'auth.login:failure',
    ]);
    expect(order.at(-1)).toBe('auth.register:success');
    const entryIds = entries.map((e) => e.id);
    expect(entryIds).toEqual([...entryIds].sort().reverse());
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i - 1]!.createdAt >= entries[i]!.createdAt).toBe(true);
    }
  });
});

describe('GET /api/v1/audit/log: paging and filters', () => {
  it('pages with limit, cursor and nextCursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 2 };
      if (cursor) query.cursor = cursor;
      const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((e: Entry) => e.id));
      cursor = res.body.nextCursor;
      if (cursor) expect(cursor).toBe(res.body.data.at(-1).id);
      pages += 1;
    } while (cursor && pages < 50);
    const all = await readAll(owner.token);
    expect(seen).toEqual(all.map((e) => e.id));
    expect(pages).toBe(Math.ceil(all.length / 2));
  });

  it('filters by exact action', async () => {
    const res = await readAll(owner.token, { action: 'token.create' });
    expect(res.map((e) => e.id)).toEqual([only('token.create').id]);
    const logins = await readAll(owner.token, { action: 'auth.login' });
    expect(logins.map((e) => e.outcome)).toEqual(['success', 'failure']);
    expect(await readAll(owner.token, { action: 'token' })).toEqual([]);
  });

  it('filters by the token that acted, alone or with the other filters', async () => {
    const all = await readAll(owner.token);
    const actor = all.find((e) => e.tokenId !== null)!.tokenId!;
    const res = await readAll(owner.token, { tokenId: actor });
    expect(res.length).toBeGreaterThan(0);
    expect(res.map((e) => e.id)).toEqual(all.filter((e) => e.tokenId === actor).map((e) => e.id));
    const both = await readAll(owner.token, { tokenId: actor, action: 'token.*' });
    expect(both.map((e) => e.id)).toEqual(all.filter((e) => e.tokenId === actor && e.action.startsWith('token.')).map((e) => e.id));
    expect(await readAll(owner.token, { tokenId: 'tok_nothing_here' })).toEqual([]);
  });

  it('filters by a family with `token.*`', async () => {
    const res = await readAll(owner.token, { action: 'token.*' });
    expect(res.map((e) => e.action)).toEqual(['token.master_regenerate', 'token.revoke', 'token.regenerate', 'token.create']);
    const auth = await readAll(owner.token, { action: 'auth.*' });
    expect(auth.length).toBeGreaterThanOrEqual(3);
    for (const e of auth) expect(e.action.startsWith('auth.')).toBe(true);
  });

  it('treats the family filter literally, in the same case on both engines', async () => {
    expect(await readAll(owner.token, { action: 'TOKEN.*' })).toEqual([]);
    expect(await readAll(owner.token, { action: 'tok_n.*' })).toEqual([]);
    expect(await readAll(owner.token, { action: '%.*' })).toEqual([]);
  });

  it('filters by from (inclusive) and to (exclusive)', async () => {
    const all = await readAll(owner.token);
    const oldest = all.at(-1)!.createdAt;
    const pivot = all.find((e) => e.createdAt > oldest)!;
    expect(pivot).toBeDefined();
    const from = await readAll(owner.token, { from: pivot.createdAt });
    const to = await readAll(owner.token, { to: pivot.createdAt });
    expect(from.length).toBeGreaterThan(0);
    expect(to.length).toBeGreaterThan(0);
    for (const e of from) expect(e.createdAt >= pivot.createdAt).toBe(true);
    for (const e of to) expect(e.createdAt < pivot.createdAt).toBe(true);
    expect([...from, ...to].map((e) => e.id)).toEqual(all.map((e) => e.id));

    const between = await readAll(owner.token, { from: oldest, to: pivot.createdAt, action: 'auth.*' });
    for (const e of between) expect(e.createdAt >= oldest && e.createdAt < pivot.createdAt).toBe(true);

    // Another time zone means the same instant.
    const shifted = new Date(Date.parse(pivot.createdAt)).toISOString().replace('Z', '+00:00');
    expect((await readAll(owner.token, { from: shifted })).length).toBe(from.length);
    expect(await readAll(owner.token, { from: '2999-01-01T00:00:00Z' })).toEqual([]);
  });

  it('refuses bad filters with 400 VALIDATION_ERROR', async () => {
    const bad: Array<Record<string, string | number>> = [{ from: 'yesterday' }, { to: '2024-13-01' }, { limit: 0 }, { limit: 500 }];
    for (const query of bad) {
      const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query });
      expectError(res, 400, 'VALIDATION_ERROR');
    }
  });
});

describe('GET /api/v1/audit/log: who may read it', () => {
  it("shows each owner only their own entries", async () => {
    const other = await t.createOwner();
    // Actions by the other owner, including a failed login on the first owner's email.
    await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'guess-guess' } });
    await t.tokenWithScopes(other, ['memory']);
    const theirs = await readAll(other.token);
    expect(theirs.map((e) => e.action).sort()).toEqual(['auth.register', 'token.create']);
    const mine = new Set((await readAll(owner.token)).map((e) => e.id));
    for (const e of theirs) expect(mine.has(e.id)).toBe(false);
    // The failed login on the first owner's account shows in that owner's log.
    const failures = await readAll(owner.token, { action: 'auth.login' });
    expect(failures.filter((e) => e.outcome === 'failure')).toHaveLength(2);
  });

  it('is an owner right: a session reads it, an API token with every scope gets 403, no token 401', async () => {
    const session = await t.login(owner);
    expect((await t.request('GET', '/api/v1/audit/log', { token: session })).status).toBe(200);
    const api = await t.tokenWithScopes(owner, [...SCOPE_NAMES]);
    expectError(await t.request('GET', '/api/v1/audit/log', { token: api }), 403, 'FORBIDDEN');
    expectError(await t.request('GET', '/api/v1/audit/log'), 401, 'UNAUTHORIZED');
  });
});

describe('the audit table is append-only in the database', () => {
  it('refuses UPDATE and DELETE, whatever code asks', async () => {
    const before = await t.storage.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
    expect(before.length).toBeGreaterThan(0);
    const target = before[0]!;

    await expect(t.storage.db.updateTable('audit_log').set({ action: 'tampered' }).where('id', '=', target.id).execute()).rejects.toThrow(
      /append-only/,
    );
    await expect(t.storage.db.updateTable('audit_log').set({ outcome: 'failure' }).execute()).rejects.toThrow(/append-only/);
    await expect(t.storage.db.deleteFrom('audit_log').where('id', '=', target.id).execute()).rejects.toThrow(/append-only/);
    await expect(t.storage.db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
    if (t.storage.dialect === 'postgres') {
      // TRUNCATE skips row triggers on PostgreSQL; a statement trigger refuses it (SQLite has no TRUNCATE).
      await expect(sql`TRUNCATE audit_log`.execute(t.storage.db)).rejects.toThrow(/append-only/);
    }

    const after = await t.storage.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
    expect(after).toEqual(before);
  });
});
