import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectGoogle, type FakeGoogle } from '../../../test/fakes/google.js';
import { closeGoogleApp, startGoogleApp } from '../../../test/google-app.js';
import { ENGINE, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { createContainer } from '../../container.js';

let fake: FakeGoogle;
let t: TestApp;

beforeAll(async () => {
  ({ fake, t } = await startGoogleApp({ clientId: 'hearth-refresh.apps.googleusercontent.com', clientSecret: 'GOCSPX-refresh-secret' }));
});
afterAll(async () => closeGoogleApp({ fake, t }));

afterEach(() => {
  fake.options.accessTokenTtlSeconds = 3599;
  fake.options.rotateRefreshTokens = false;
});

/**
 * Connects with Google issuing access tokens that live 30 s: inside Hearth's 60 s margin, so
 * every use of one refreshes it first. Later tokens live an hour unless the test says otherwise.
 */
async function connectExpiring(owner: Owner): Promise<void> {
  fake.options.accessTokenTtlSeconds = 30;
  expect((await connectGoogle(t, fake, owner)).status).toBe(200);
  fake.options.accessTokenTtlSeconds = 3599;
}

const listMail = (owner: Owner) => t.request('GET', '/api/v1/services/google/mail/messages', { token: owner.token });

describe('refreshing access tokens', () => {
  it('ten parallel calls with an expired access token cause exactly one refresh', async () => {
    const owner = await t.createOwner();
    fake.addMessage({ from: 'a@example.org', to: 'owner@gmail.test', subject: 'Hello', text: 'Hi' });
    await connectExpiring(owner);
    const refreshes = fake.count('token.refresh_token');
    const unauthorized = fake.count('unauthorized');

    const release = fake.holdRefreshes();
    const calls = Array.from({ length: 10 }, () => listMail(owner));
    // The first refresh reached Google and is held there while the other nine arrive.
    await fake.waitFor('token.refresh_token', refreshes + 1);
    release();
    const results = await Promise.all(calls);

    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(fake.count('token.refresh_token')).toBe(refreshes + 1);
    // The stale token was never sent to Gmail.
    expect(fake.count('unauthorized')).toBe(unauthorized);
    const row = await t.storage.db.selectFrom('oauth_connections').select(['expires_at', 'refreshed_at', 'token_version']).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(row.refreshed_at).not.toBeNull();
    expect(row.token_version).toBe(2);
  });

  it('uses a fresh token without refreshing', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    const refreshes = fake.count('token.refresh_token');
    for (let i = 0; i < 3; i++) expect((await listMail(owner)).status).toBe(200);
    expect(fake.count('token.refresh_token')).toBe(refreshes);
  });

  it('keeps a refresh token Google rotates, and the old one otherwise', async () => {
    const owner = await t.createOwner();
    await connectExpiring(owner);
    const original = fake.currentRefreshToken()!;

    // Without rotation the same refresh token serves every refresh.
    fake.options.accessTokenTtlSeconds = 30;
    expect((await listMail(owner)).status).toBe(200);
    expect((await listMail(owner)).status).toBe(200);
    const plain = fake.tokenRequests.filter((r) => r.grant_type === 'refresh_token').slice(-2);
    expect(plain.map((r) => r.refresh_token)).toEqual([original, original]);

    // With rotation Google invalidates the old one at each refresh: Hearth must use the new one.
    fake.options.rotateRefreshTokens = true;
    expect((await listMail(owner)).status).toBe(200);
    const rotated = fake.currentRefreshToken()!;
    expect(rotated).not.toBe(original);
    expect((await listMail(owner)).status).toBe(200);
    const last = fake.tokenRequests.filter((r) => r.grant_type === 'refresh_token').at(-1)!;
    expect(last.refresh_token).toBe(rotated);
    const status = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.body.data[0].status).toBe('connected');
  });

  it('a refused refresh token (invalid_grant) marks the connection needs_reauth and says how to reconnect', async () => {
    const owner = await t.createOwner();
    await connectExpiring(owner);
    // The user removed Hearth from their Google account.
    fake.revokeAllGrants();
    const res = await listMail(owner);
    const body = expectError(res, 403, 'PROVIDER_NOT_CONNECTED');
    expect(body.message).toMatch(/renewed.*invalid_grant.*GET \/api\/v1\/oauth\/authorize\/google/);

    const status = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.body.data[0]).toMatchObject({ connected: false, status: 'needs_reauth', lastError: expect.stringMatching(/invalid_grant/) });
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token });
    expect(audit.body.data.find((e: any) => e.action === 'oauth.refresh_failed')).toMatchObject({
      outcome: 'failure',
      details: { provider: 'google' },
    });

    // No more refresh attempts until the owner reconnects; storage answers its 401.
    const refreshes = fake.count('token.refresh_token');
    expectError(await listMail(owner), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('GET', '/api/v1/services/google/storage/files', { token: owner.token }), 401, 'PROVIDER_NOT_CONNECTED');
    expect(fake.count('token.refresh_token')).toBe(refreshes);

    expect((await connectGoogle(t, fake, owner)).status).toBe(200);
    expect((await listMail(owner)).status).toBe(200);
    const after = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(after.body.data[0]).toMatchObject({ status: 'connected', lastError: null });
  });

  it('a token Google refuses before its time (401) is refreshed once and the call retried', async () => {
    const owner = await t.createOwner();
    fake.addMessage({ from: 'a@example.org', to: 'owner@gmail.test', subject: 'Retry', text: 'x' });
    await connectGoogle(t, fake, owner);
    const refreshes = fake.count('token.refresh_token');
    const unauthorized = fake.count('unauthorized');
    fake.expireAccessTokens();
    const results = await Promise.all(Array.from({ length: 5 }, () => listMail(owner)));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(fake.count('token.refresh_token')).toBe(refreshes + 1);
    expect(fake.count('unauthorized')).toBeGreaterThan(unauthorized);
  });

  it('Google failing to refresh (5xx) answers 502 and leaves the connection as it was', async () => {
    const owner = await t.createOwner();
    await connectExpiring(owner);
    fake.failNext('token', 503, { error: 'temporarily_unavailable', error_description: 'Try again' });
    expectError(await listMail(owner), 502, 'UPSTREAM_ERROR');
    const status = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.body.data[0].status).toBe('connected');
    expect((await listMail(owner)).status).toBe(200);
  });

  it('disconnecting while a refresh is in flight leaves nothing behind', async () => {
    const owner = await t.createOwner();
    await connectExpiring(owner);
    const refreshes = fake.count('token.refresh_token');
    const release = fake.holdRefreshes();
    const call = listMail(owner);
    await fake.waitFor('token.refresh_token', refreshes + 1);
    // The delete lands while Google is still answering; the refresh's result then fits no row.
    const revokes = fake.count('revoke');
    const disconnect = t.request('POST', '/api/v1/oauth/disconnect/google', { token: owner.token });
    await fake.waitFor('revoke', revokes + 1);
    release();
    expect((await disconnect).status).toBe(200);
    expectError(await call, 403, 'PROVIDER_NOT_CONNECTED');
    const rows = await t.storage.db.selectFrom('oauth_connections').select('id').where('owner_id', '=', owner.id).execute();
    expect(rows).toEqual([]);
  });

  it.skipIf(ENGINE !== 'postgres')('two API nodes refreshing the same connection call Google once (refresh lease)', async () => {
    const owner = await t.createOwner();
    await connectExpiring(owner);
    // A second node: its own services (and its own in-process refresh map) and connection pool on the same database.
    const node2 = createContainer(t.config, await t.openStorage());
    try {
      const refreshes = fake.count('token.refresh_token');
      fake.options.rotateRefreshTokens = true;
      const release = fake.holdRefreshes();
      const one = t.container.oauth.accessToken(owner.id, 'google');
      const two = node2.oauth.accessToken(owner.id, 'google');
      await fake.waitFor('token.refresh_token', refreshes + 1);
      release();
      const [a, b] = await Promise.all([one, two]);
      expect(fake.count('token.refresh_token')).toBe(refreshes + 1);
      expect(a.accessToken).toBe(b.accessToken);
      // The rotated refresh token was stored: the next refresh works.
      fake.options.accessTokenTtlSeconds = 30;
      await t.storage.db.updateTable('oauth_connections').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('owner_id', '=', owner.id).execute();
      expect((await node2.oauth.accessToken(owner.id, 'google')).accessToken).toMatch(/^ya29\./);
    } finally {
      await node2.close();
    }
  });
});

describe('no lock across the provider call', () => {
  it.skipIf(ENGINE !== 'postgres')('while Google answers a refresh, the connection row is not locked and no transaction is open', async () => {
    const owner = await connectedExpiring();
    const refreshes = fake.count('token.refresh_token');
    const release = fake.holdRefreshes();
    const call = t.container.oauth.accessToken(owner.id, 'google');
    await fake.waitFor('token.refresh_token', refreshes + 1);
    try {
      // From another connection: taking the row lock without waiting succeeds only if no open
      // transaction of the refresh holds it.
      const locked = await t.storage.db.transaction().execute(async (trx) =>
        (await sql<{ id: string }>`select id from oauth_connections where owner_id = ${owner.id} for update nowait`.execute(trx)).rows,
      );
      expect(locked).toHaveLength(1);
      // The claim is visible to every node: whose it is and until when.
      const row = await t.storage.db.selectFrom('oauth_connections').select(['refresh_lease', 'refresh_lease_until']).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
      expect(row.refresh_lease).not.toBeNull();
      expect(Date.parse(row.refresh_lease_until!)).toBeGreaterThan(Date.now());
    } finally {
      release();
    }
    expect((await call).accessToken).toMatch(/^ya29\./);
    const after = await t.storage.db.selectFrom('oauth_connections').select(['refresh_lease', 'token_version']).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    expect(after).toEqual({ refresh_lease: null, token_version: 2 });
  });

  it('a claim left by a node that died mid-refresh runs out, and the next request refreshes', async () => {
    const owner = await connectedExpiring();
    const refreshes = fake.count('token.refresh_token');
    await t.storage.db
      .updateTable('oauth_connections')
      .set({ refresh_lease: 'a-node-that-died', refresh_lease_until: new Date(Date.now() - 1000).toISOString() })
      .where('owner_id', '=', owner.id)
      .execute();
    expect((await t.container.oauth.accessToken(owner.id, 'google')).accessToken).toMatch(/^ya29\./);
    expect(fake.count('token.refresh_token')).toBe(refreshes + 1);
  });

  it('a refresh Google fails gives its claim up: the next request refreshes at once', async () => {
    const owner = await connectedExpiring();
    fake.failNext('token', 503, { error: 'temporarily_unavailable', error_description: 'Try again' });
    await expect(t.container.oauth.accessToken(owner.id, 'google')).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    const row = await t.storage.db.selectFrom('oauth_connections').select(['refresh_lease', 'status']).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ refresh_lease: null, status: 'connected' });
    expect((await t.container.oauth.accessToken(owner.id, 'google')).accessToken).toMatch(/^ya29\./);
  });
});

async function connectedExpiring(): Promise<Owner> {
  const owner = await t.createOwner();
  await connectExpiring(owner);
  return owner;
}

describe('accessToken for other modules', () => {
  it('answers the token, the granted scopes and the account', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    const result = await t.container.oauth.accessToken(owner.id, 'google');
    expect(result.accessToken).toMatch(/^ya29\./);
    expect(result.account).toBe('owner@gmail.test');
    expect(result.scopes).toContain('https://www.googleapis.com/auth/gmail.modify');
    expect(await t.container.oauth.connections(owner.id)).toEqual([
      expect.objectContaining({ provider: 'google', account: 'owner@gmail.test', status: 'connected' }),
    ]);
  });

  it('throws PROVIDER_NOT_CONNECTED for an owner without a connection, and NOT_FOUND for an unknown provider', async () => {
    const owner = await t.createOwner();
    await expect(t.container.oauth.accessToken(owner.id, 'google')).rejects.toMatchObject({ code: 'PROVIDER_NOT_CONNECTED', status: 403 });
    await expect(t.container.oauth.accessToken(owner.id, 'dropbox')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
