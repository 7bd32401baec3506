import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let owner: Owner;
let other: Owner;
let vaultToken: string;
let memoryToken: string;
let session: string;

const SECRET = 'ghp_SuperSecretValue1234567890abcdWXYZ';

function body(overrides: Record<string, unknown> = {}) {
  return { name: 'GitHub personal', service: 'GitHub', token: SECRET, websiteUrl: 'https://github.com', ...overrides };
}

async function store(who: { token: string }, overrides: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/api/v1/vault/tokens', { token: who.token, body: body(overrides) });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; [k: string]: unknown };
}

async function revealAudit(token: string) {
  const res = await t.request('GET', '/api/v1/audit/log', { token, query: { action: 'vault.reveal', limit: 200 } });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ action: string; outcome: string; targetId: string | null; tokenId: string | null; details: any }>;
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Vault owner');
  other = await t.createOwner('Other owner');
  vaultToken = await t.tokenWithScopes(owner, ['vault']);
  memoryToken = await t.tokenWithScopes(owner, ['memory']);
  session = await t.login(owner);
});

afterAll(async () => t.close());

describe('POST /api/v1/vault/tokens', () => {
  it('stores a token and answers 201 with the record, never the secret', async () => {
    const res = await t.request('POST', '/api/v1/vault/tokens', { token: vaultToken, body: body() });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'GitHub personal',
      service: 'GitHub',
      websiteUrl: 'https://github.com',
      hint: '…WXYZ',
      discoverApi: false,
      api: null,
    });
    expect(res.body.data.id).toMatch(/^vtk_/);
    expect(res.body.data.createdAt).toMatch(/Z$/);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain(SECRET.slice(0, 12));
    expect(res.body.data).not.toHaveProperty('token');
  });

  it('a short secret gets no characters in its hint', async () => {
    const data = await store({ token: vaultToken }, { token: 'short-1' });
    expect(data.hint).toBe('…');
  });

  it('refuses bodies that do not match VaultTokenCreateRequest (400 with details)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: undefined }, 'body.name'],
      [{ service: undefined }, 'body.service'],
      [{ token: undefined }, 'body.token'],
      [{ websiteUrl: undefined }, 'body.websiteUrl'],
      [{ websiteUrl: 'not a url' }, 'body.websiteUrl'],
      [{ websiteUrl: 'ftp://example.com/' }, 'body.websiteUrl'],
      [{ websiteUrl: 'https://user:pw@example.com/' }, 'body.websiteUrl'],
      [{ token: '' }, 'body.token'],
      [{ token: '   ' }, 'body.token'],
      [{ name: '' }, 'body.name'],
      [{ name: '  ' }, 'body.name'],
      [{ name: 'a\u0000b' }, 'body.name'],
      [{ service: 'a/b' }, 'body.service'],
      [{ discoverApi: 'yes please' }, 'body.discoverApi'],
      [{ extra: 1 }, 'body.extra'],
    ];
    for (const [overrides, field] of cases) {
      const res = await t.request('POST', '/api/v1/vault/tokens', { token: vaultToken, body: body(overrides) });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(error.details), `${JSON.stringify(overrides)}`).toContain(field);
      expect(res.text).not.toContain(SECRET);
    }
    expectError(await t.request('POST', '/api/v1/vault/tokens', { token: vaultToken }), 400, 'VALIDATION_ERROR');
  });

  it('security: no token 401, a token without the vault scope 403', async () => {
    expectError(await t.request('POST', '/api/v1/vault/tokens', { body: body() }), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/api/v1/vault/tokens', { token: memoryToken, body: body() }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('is audited as vault.store without the secret', async () => {
    const data = await store({ token: vaultToken }, { name: 'audited' });
    const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'vault.store' } });
    const entry = res.body.data.find((e: any) => e.targetId === data.id);
    expect(entry).toMatchObject({ action: 'vault.store', outcome: 'success', targetType: 'vault_token' });
    expect(res.text).not.toContain(SECRET);
  });
});

describe('GET /api/v1/vault/tokens', () => {
  let lister: Owner;
  beforeAll(async () => {
    lister = await t.createOwner('Lister');
    for (const [i, service] of ['OpenAI', 'openai', 'Stripe', 'GitHub', 'Linear'].entries()) {
      await store(lister, { name: `token ${i}`, service, token: `${SECRET}-${i}` });
    }
  });

  it('lists newest first, pages with limit and cursor, never shows a secret', async () => {
    const first = await t.request('GET', '/api/v1/vault/tokens', { token: lister.token, query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((r: any) => r.name)).toEqual(['token 4', 'token 3']);
    expect(first.body.nextCursor).toBe(first.body.data[1].id);
    const second = await t.request('GET', '/api/v1/vault/tokens', { token: lister.token, query: { limit: 2, cursor: first.body.nextCursor } });
    expect(second.body.data.map((r: any) => r.name)).toEqual(['token 2', 'token 1']);
    const last = await t.request('GET', '/api/v1/vault/tokens', { token: lister.token, query: { limit: 2, cursor: second.body.nextCursor } });
    expect(last.body.data.map((r: any) => r.name)).toEqual(['token 0']);
    expect(last.body.nextCursor).toBeNull();
    for (const res of [first, second, last]) {
      expect(res.text).not.toContain(SECRET);
      for (const record of res.body.data) expect(record).not.toHaveProperty('token');
    }
  });

  it('filters by service, case-insensitively', async () => {
    const res = await t.request('GET', '/api/v1/vault/tokens', { token: lister.token, query: { service: 'OPENAI' } });
    expect(res.body.data.map((r: any) => r.service).sort()).toEqual(['OpenAI', 'openai']);
  });

  it("shows only the caller's own tokens", async () => {
    const res = await t.request('GET', '/api/v1/vault/tokens', { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('validates paging and refuses callers without the scope', async () => {
    expectError(await t.request('GET', '/api/v1/vault/tokens', { token: lister.token, query: { limit: 0 } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', '/api/v1/vault/tokens', { token: lister.token, query: { limit: 201 } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', '/api/v1/vault/tokens'), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/api/v1/vault/tokens', { token: memoryToken }), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('DELETE /api/v1/vault/tokens/{id}', () => {
  it('deletes (200), then the id is gone (404)', async () => {
    const data = await store({ token: vaultToken }, { name: 'to delete' });
    const res = await t.request('DELETE', `/api/v1/vault/tokens/${data.id}`, { token: vaultToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: data.id, deleted: true } });
    expectError(await t.request('DELETE', `/api/v1/vault/tokens/${data.id}`, { token: vaultToken }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/api/v1/vault/tokens/${data.id}/reveal`, { token: owner.token }), 404, 'NOT_FOUND');
    const list = await t.request('GET', '/api/v1/vault/tokens', { token: owner.token, query: { limit: 200 } });
    expect(list.body.data.map((r: any) => r.id)).not.toContain(data.id);
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'vault.delete' } });
    expect(audit.body.data.map((e: any) => e.targetId)).toContain(data.id);
  });

  it("answers 404 for an unknown id and for another owner's id, and keeps the other owner's token", async () => {
    expectError(await t.request('DELETE', '/api/v1/vault/tokens/vtk_nope', { token: vaultToken }), 404, 'NOT_FOUND');
    const theirs = await store(other, { name: 'theirs' });
    expectError(await t.request('DELETE', `/api/v1/vault/tokens/${theirs.id}`, { token: owner.token }), 404, 'NOT_FOUND');
    const still = await t.request('GET', `/api/v1/vault/tokens/${theirs.id}/reveal`, { token: other.token });
    expect(still.status).toBe(200);
  });

  it('security and a malformed id', async () => {
    const data = await store({ token: vaultToken });
    expectError(await t.request('DELETE', `/api/v1/vault/tokens/${data.id}`), 401, 'UNAUTHORIZED');
    expectError(await t.request('DELETE', `/api/v1/vault/tokens/${data.id}`, { token: memoryToken }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('DELETE', '/api/v1/vault/tokens/bad%20id', { token: vaultToken }), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /api/v1/vault/tokens/{id}/reveal', () => {
  let stored: { id: string };
  beforeAll(async () => {
    stored = await store({ token: vaultToken }, { name: 'to reveal' });
  });

  it('the master token gets the secret in data.token, with the record; the grant is audited', async () => {
    const res = await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: stored.id, name: 'to reveal', service: 'GitHub', token: SECRET, hint: '…WXYZ' });
    const entries = await revealAudit(owner.token);
    const granted = entries.find((e) => e.targetId === stored.id && e.outcome === 'success');
    expect(granted).toBeDefined();
    expect(JSON.stringify(entries)).not.toContain(SECRET);
  });

  it('refuses a scoped token with 403 FORBIDDEN, and audits the refusal', async () => {
    const before = (await revealAudit(owner.token)).length;
    const everything = await t.tokenWithScopes(owner, ['vault', 'memory', 'identity']);
    for (const token of [vaultToken, everything]) {
      const res = await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`, { token });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.text).not.toContain(SECRET);
    }
    const entries = await revealAudit(owner.token);
    expect(entries.length).toBe(before + 2);
    const denied = entries.slice(0, 2);
    for (const entry of denied) {
      expect(entry).toMatchObject({ action: 'vault.reveal', outcome: 'denied', targetId: stored.id });
      expect(entry.details).toMatchObject({ status: 403, error: 'FORBIDDEN', tokenKind: 'api' });
    }
  });

  it('refuses a login session (every owner right except reveal) with 403, audited', async () => {
    const res = await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`, { token: session });
    expectError(res, 403, 'FORBIDDEN');
    const [latest] = await revealAudit(owner.token);
    expect(latest).toMatchObject({ outcome: 'denied', targetId: stored.id, details: { tokenKind: 'session' } });
  });

  it("answers 404 for an unknown id and for another owner's id, audited as failures", async () => {
    expectError(await t.request('GET', '/api/v1/vault/tokens/vtk_unknown/reveal', { token: owner.token }), 404, 'NOT_FOUND');
    let [latest] = await revealAudit(owner.token);
    expect(latest).toMatchObject({ outcome: 'failure', targetId: 'vtk_unknown', details: { status: 404, error: 'NOT_FOUND' } });

    const res = await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`, { token: other.token });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.text).not.toContain(SECRET);
    // Recorded in the log of the caller (the other owner), who tried.
    [latest] = await revealAudit(other.token);
    expect(latest).toMatchObject({ outcome: 'failure', targetId: stored.id });
  });

  it('without a token: 401 (no owner to audit for)', async () => {
    expectError(await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`, { token: 'hth_pat_nope' }), 401, 'UNAUTHORIZED');
  });

  it('accepts the master token as ?token= too', async () => {
    const res = await t.request('GET', `/api/v1/vault/tokens/${stored.id}/reveal`, { query: { token: owner.token } });
    expect(res.status).toBe(200);
    expect(res.body.data.token).toBe(SECRET);
  });
});

describe('sealed values are bound to their row and owner', () => {
  it('a ciphertext copied onto another row does not decrypt: 500 INTEGRITY_ERROR naming what happened, nothing leaked, audited as tampering', async () => {
    const a = await store(owner, { name: 'row A', token: 'secret-of-row-A-0123456789' });
    const b = await store(owner, { name: 'row B', token: 'secret-of-row-B-0123456789' });
    const sealedB = await t.storage.db.selectFrom('vault_tokens').select('secret_sealed').where('id', '=', b.id).executeTakeFirstOrThrow();
    await t.storage.db.updateTable('vault_tokens').set({ secret_sealed: sealedB.secret_sealed }).where('id', '=', a.id).execute();

    const res = await t.request('GET', `/api/v1/vault/tokens/${a.id}/reveal`, { token: owner.token });
    const error = expectError(res, 500, 'INTEGRITY_ERROR');
    // What happened, to which record, and what to do about it.
    expect(error.message).toContain(`vault token ${a.id}`);
    expect(error.message).toMatch(/failed its integrity check/);
    expect(error.message).toMatch(/copied there from another record/);
    expect(error.message).toMatch(/Store the secret again/);
    expect(error.message).not.toMatch(/row-B|row-A/);
    expect(res.text).not.toContain('secret-of-row');
    expect(res.body.requestId).toMatch(/^req_/);
    const [latest] = await revealAudit(owner.token);
    expect(latest).toMatchObject({ outcome: 'failure', targetId: a.id, details: { status: 500, error: 'INTEGRITY_ERROR' } });
    // The tampering itself, with the record it was found in (never a secret).
    const tampered = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'secret.tampered' } });
    expect(tampered.body.data[0]).toMatchObject({ action: 'secret.tampered', outcome: 'failure', targetType: 'vault_token', targetId: a.id, details: { record: `vault_tokens:${a.id}` } });
    expect(tampered.text).not.toContain('secret-of-row');

    // Row B itself still opens, and is not reported.
    const okB = await t.request('GET', `/api/v1/vault/tokens/${b.id}/reveal`, { token: owner.token });
    expect(okB.body.data.token).toBe('secret-of-row-B-0123456789');
    const after = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'secret.tampered' } });
    expect(after.body.data).toHaveLength(tampered.body.data.length);
  });

  it("a ciphertext copied from another owner's row does not decrypt either", async () => {
    const mine = await store(owner, { name: 'mine', token: 'my-own-secret-0123456789' });
    const theirs = await store(other, { name: 'theirs', token: 'their-secret-0123456789' });
    const sealed = await t.storage.db.selectFrom('vault_tokens').select('secret_sealed').where('id', '=', theirs.id).executeTakeFirstOrThrow();
    await t.storage.db.updateTable('vault_tokens').set({ secret_sealed: sealed.secret_sealed }).where('id', '=', mine.id).execute();
    const res = await t.request('GET', `/api/v1/vault/tokens/${mine.id}/reveal`, { token: owner.token });
    expectError(res, 500, 'INTEGRITY_ERROR');
    expect(res.text).not.toContain('their-secret');
  });
});

describe('the vault service for other modules', () => {
  it('secretFor, findByService and discoveredServices are owner-scoped', async () => {
    const owner3 = await t.createOwner('Service user');
    const older = await store(owner3, { service: 'Linear', token: 'lin_old_0123456789' });
    const newer = await store(owner3, { service: 'linear', token: 'lin_new_0123456789' });
    expect((await t.container.vault.findByService(owner3.id, 'LINEAR'))?.id).toBe(newer.id);
    expect(await t.container.vault.findByService(owner3.id, 'nothing')).toBeUndefined();
    expect(await t.container.vault.findByService(other.id, 'linear')).toBeUndefined();

    const secret = await t.container.vault.secretFor(owner3.id, older.id);
    expect(secret).toEqual({ id: older.id, name: 'GitHub personal', service: 'Linear', websiteUrl: 'https://github.com', secret: 'lin_old_0123456789' });
    await expect(t.container.vault.secretFor(other.id, older.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await t.container.vault.discoveredServices(owner3.id)).toEqual([]);
  });
});
