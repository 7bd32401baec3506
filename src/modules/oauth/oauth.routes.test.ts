import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserConsent, connectGoogle, SCOPE, type FakeGoogle } from '../../../test/fakes/google.js';
import { closeGoogleApp, GOOGLE_CLIENT_ID as CLIENT_ID, GOOGLE_CLIENT_SECRET as CLIENT_SECRET, startGoogleApp } from '../../../test/google-app.js';
import { createTestApp, ENGINE, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { createServicesContextSection } from './oauth.context.js';

let fake: FakeGoogle;
let t: TestApp;

beforeAll(async () => {
  ({ fake, t } = await startGoogleApp());
});
afterAll(async () => closeGoogleApp({ fake, t }));

async function authorizeUrl(owner: Owner): Promise<URL> {
  const res = await t.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token });
  expect(res.status).toBe(200);
  return new URL(res.body.data.url);
}

const browserCookies = new Map<string, string>();

/** The owner's browser through the connect page (signing in) and Google's consent; remembers its cookie for land(). */
async function consent(owner: Owner, url?: URL): Promise<URL> {
  const { callback, cookie } = await browserConsent(t, fake, owner, url?.toString());
  browserCookies.set(callback.toString(), cookie);
  return callback;
}

/** The browser that consented lands on the callback, with its cookie. */
function land(callback: URL, options: { token?: string } = {}) {
  const headers = { cookie: browserCookies.get(callback.toString()) ?? '' };
  return t.request('GET', `${callback.pathname}${callback.search}`, { ...options, headers });
}

async function auditActions(owner: Owner): Promise<Array<{ action: string; outcome: string; details: any }>> {
  const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { limit: 100 } });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('GET /api/v1/oauth/authorize/{service}', () => {
  it('answers a Google consent URL with PKCE S256, a fresh state, offline access and forced consent', async () => {
    const owner = await t.createOwner();
    const res = await t.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      provider: 'google',
      redirectUri: `${t.config.publicBaseUrl}/api/v1/oauth/callback/google`,
    });
    const expiresIn = Date.parse(res.body.data.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
    // The url opens Hearth's connect page, where the owner signs in; it goes on to Google's.
    const connect = new URL(res.body.data.url);
    expect(`${connect.origin}${connect.pathname}`).toBe(`${t.config.publicBaseUrl}/api/v1/oauth/connect/google`);
    expect(connect.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const url = new URL((await browserConsent(t, fake, owner, connect.toString())).providerUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/o/oauth2/v2/auth`);
    const p = Object.fromEntries(url.searchParams);
    expect(p.state).toBe(connect.searchParams.get('state'));
    expect(p).toMatchObject({
      client_id: CLIENT_ID,
      redirect_uri: `${t.config.publicBaseUrl}/api/v1/oauth/callback/google`,
      response_type: 'code',
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
    });
    expect(p.scope!.split(' ').sort()).toEqual(['email', 'openid', SCOPE.driveFile, SCOPE.gmailModify, SCOPE.calendar].sort());
    expect(p.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(p.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = new URL((await browserConsent(t, fake, owner)).providerUrl);
    expect(again.searchParams.get('state')).not.toBe(p.state);
    expect(again.searchParams.get('code_challenge')).not.toBe(p.code_challenge);
  });

  it('answers 404 for a provider Hearth does not know', async () => {
    const owner = await t.createOwner();
    expectError(await t.request('GET', '/api/v1/oauth/authorize/myspace', { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('needs services:write', async () => {
    const owner = await t.createOwner();
    expectError(await t.request('GET', '/api/v1/oauth/authorize/google'), 401, 'UNAUTHORIZED');
    const reader = await t.tokenWithScopes(owner, ['services:read']);
    expectError(await t.request('GET', '/api/v1/oauth/authorize/google', { token: reader }), 403, 'INSUFFICIENT_SCOPE');
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    expect((await t.request('GET', '/api/v1/oauth/authorize/google', { token: writer })).status).toBe(200);
  });
});

describe('the whole flow: authorize, consent, callback, status, disconnect', () => {
  it("writes the provider's account name out as text on the page it lands on", async () => {
    const owner = await t.createOwner();
    const account = fake.options.account;
    fake.options.account = { ...account, email: `<script>alert("x")</script>'@gmail.test` };
    try {
      const callback = await connectGoogle(t, fake, owner);
      expect(callback.status).toBe(200);
      expect(callback.text).toContain('<strong>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;@gmail.test</strong>');
      expect(callback.text).not.toContain('<script');
      expect(callback.headers['content-security-policy']).toContain("base-uri 'none'");
    } finally {
      fake.options.account = account;
    }
  });

  it('connects the account, shows it in the status, and disconnects it with revocation', async () => {
    const owner = await t.createOwner();
    const before = fake.count('token.authorization_code');
    const callback = await connectGoogle(t, fake, owner);
    expect(callback.status).toBe(200);
    expect(String(callback.headers['content-type'])).toMatch(/^text\/html/);
    expect(callback.headers.location).toBeUndefined();
    expect(callback.headers['cache-control']).toBe('no-store');
    expect(callback.headers['referrer-policy']).toBe('no-referrer');
    expect(callback.headers['x-content-type-options']).toBe('nosniff');
    // The page has no form and loads nothing but its own style sheet.
    expect(callback.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'none'; base-uri 'none'; frame-ancestors 'none'$/);
    expect(callback.text).toContain('Google connected');
    expect(callback.text).toContain(fake.options.account.email);
    expect(fake.count('token.authorization_code')).toBe(before + 1);

    // The code went back with the verifier whose S256 the fake checked against the challenge.
    const exchange = fake.tokenRequests.filter((r) => r.grant_type === 'authorization_code').at(-1)!;
    expect(exchange.code_verifier).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(exchange.redirect_uri).toBe(`${t.config.publicBaseUrl}/api/v1/oauth/callback/google`);
    expect(exchange.client_secret).toBe(CLIENT_SECRET);

    const status = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.status).toBe(200);
    const google = status.body.data.find((p: any) => p.provider === 'google');
    expect(google).toMatchObject({
      provider: 'google',
      configured: true,
      connected: true,
      status: 'connected',
      account: fake.options.account.email,
      lastError: null,
    });
    expect(google.scopes).toEqual(expect.arrayContaining([SCOPE.gmailModify, SCOPE.driveFile, 'openid']));
    expect(Date.parse(google.expiresAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(Date.parse(google.connectedAt)).toBeLessThanOrEqual(Date.now());
    expect(JSON.stringify(status.body)).not.toMatch(/ya29\.|1\/\/0/);

    const connect = (await auditActions(owner)).find((e) => e.action === 'oauth.connect');
    expect(connect).toMatchObject({ outcome: 'success', details: { provider: 'google', account: fake.options.account.email } });

    const revokes = fake.count('revoke');
    const disconnected = await t.request('POST', '/api/v1/oauth/disconnect/google', { token: owner.token });
    expect(disconnected.status).toBe(200);
    expect(disconnected.body.data).toEqual({ provider: 'google', disconnected: true, revoked: true, revokeError: null });
    expect(fake.count('revoke')).toBe(revokes + 1);
    const after = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(after.body.data.find((p: any) => p.provider === 'google')).toMatchObject({ connected: false, status: 'not_connected', account: null, scopes: [] });
    expect((await auditActions(owner)).find((e) => e.action === 'oauth.disconnect')).toMatchObject({ outcome: 'success', details: { revoked: true } });

    // Nothing left to disconnect; and the mail routes say so.
    expectError(await t.request('POST', '/api/v1/oauth/disconnect/google', { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/services/google/mail/messages', { token: owner.token }), 403, 'PROVIDER_NOT_CONNECTED');
  });

  it('uses the email and subject of the ID token for the account', async () => {
    const owner = await t.createOwner();
    fake.options.account = { email: 'second.person@gmail.test', sub: '1099999' };
    const profiles = fake.count('gmail.profile');
    try {
      expect((await connectGoogle(t, fake, owner)).status).toBe(200);
    } finally {
      fake.options.account = { email: 'owner@gmail.test', sub: '108234567890123456789' };
    }
    const row = await t.storage.db.selectFrom('oauth_connections').select(['account_email', 'account_id']).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ account_email: 'second.person@gmail.test', account_id: '1099999' });
    // The ID token named the account: no profile call was needed.
    expect(fake.count('gmail.profile')).toBe(profiles);
  });

  it('reads the mailbox address from the Gmail profile when the email scope is withheld', async () => {
    const owner = await t.createOwner();
    fake.options.withheldScopes = ['email', 'openid'];
    const profiles = fake.count('gmail.profile');
    try {
      const res = await connectGoogle(t, fake, owner);
      expect(res.status).toBe(200);
      expect(res.text).toContain('owner@gmail.test');
    } finally {
      fake.options.withheldScopes = [];
    }
    expect(fake.count('gmail.profile')).toBe(profiles + 1);
  });

  it('reconnecting replaces the tokens of the same connection', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    const first = await t.storage.db.selectFrom('oauth_connections').select(['id', 'access_token_sealed']).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    expect((await connectGoogle(t, fake, owner)).status).toBe(200);
    const rows = await t.storage.db.selectFrom('oauth_connections').select(['id', 'access_token_sealed']).where('owner_id', '=', owner.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(first.id);
    expect(rows[0]!.access_token_sealed).not.toBe(first.access_token_sealed);
  });

  it('tells the caller when revocation at Google failed, and deletes the tokens all the same', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    fake.failNext('revoke', 503, { error: 'temporarily_unavailable' });
    const res = await t.request('POST', '/api/v1/oauth/disconnect/google', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data.revoked).toBe(false);
    expect(res.body.data.revokeError).toMatch(/503.*myaccount\.google\.com\/permissions/);
    const count = await t.storage.db.selectFrom('oauth_connections').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('counts a grant Google already revoked as revoked', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    fake.revokeAllGrants();
    const res = await t.request('POST', '/api/v1/oauth/disconnect/google', { token: owner.token });
    expect(res.body.data).toMatchObject({ revoked: true, revokeError: null });
  });
});

describe('GET /api/v1/oauth/callback/{service}: states', () => {
  it('refuses a state used once already (400), and the code is not exchanged twice', async () => {
    const owner = await t.createOwner();
    const callback = await consent(owner);
    const first = await land(callback);
    expect(first.status).toBe(200);
    const exchanges = fake.count('token.authorization_code');
    const replay = await land(callback);
    expect(expectError(replay, 400, 'VALIDATION_ERROR').message).toMatch(/already used or expired/);
    expect(fake.count('token.authorization_code')).toBe(exchanges);
  });

  it('refuses an unknown, missing or altered state', async () => {
    const owner = await t.createOwner();
    const callback = await consent(owner);
    const code = callback.searchParams.get('code')!;
    const missing = expectError(await t.request('GET', `/api/v1/oauth/callback/google?code=${encodeURIComponent(code)}`), 400, 'VALIDATION_ERROR');
    expect(missing.details).toEqual([{ field: 'querystring.state', message: 'is required' }]);
    const unknown = expectError(
      await t.request('GET', `/api/v1/oauth/callback/google?code=${encodeURIComponent(code)}&state=${'A'.repeat(43)}`),
      400,
      'VALIDATION_ERROR',
    );
    expect(unknown.details).toEqual([{ field: 'querystring.state', message: 'is unknown, used or expired' }]);
    const state = callback.searchParams.get('state')!;
    const altered = (state[0] === 'a' ? 'b' : 'a') + state.slice(1);
    expectError(await t.request('GET', `/api/v1/oauth/callback/google?code=${encodeURIComponent(code)}&state=${altered}`), 400, 'VALIDATION_ERROR');
    // The genuine state still works once.
    expect((await land(callback)).status).toBe(200);
  });

  it('refuses an expired state', async () => {
    const owner = await t.createOwner();
    const callback = await consent(owner);
    // Ten minutes pass.
    await t.storage.db.updateTable('oauth_states').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('owner_id', '=', owner.id).execute();
    const res = await land(callback);
    expect(expectError(res, 400, 'VALIDATION_ERROR').message).toMatch(/expired/);
    const status = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.body.data[0].connected).toBe(false);
  });

  it('answers a clear 400 when the owner declines consent (access_denied), and spends the state', async () => {
    const owner = await t.createOwner();
    fake.options.consent = 'deny';
    let callback: URL;
    try {
      callback = await consent(owner);
    } finally {
      fake.options.consent = 'allow';
    }
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const res = await land(callback);
    const body = expectError(res, 400, 'VALIDATION_ERROR');
    expect(body.message).toMatch(/not granted.*nothing was connected.*GET \/api\/v1\/oauth\/authorize\/google/);
    expect((await auditActions(owner)).find((e) => e.action === 'oauth.connect')).toMatchObject({ outcome: 'denied' });
    expectError(await land(callback), 400, 'VALIDATION_ERROR');
  });

  it("answers a provider's error description as JSON, never inside a page", async () => {
    const owner = await t.createOwner();
    const consented = await consent(owner);
    const errored = new URL(consented);
    errored.searchParams.delete('code');
    errored.searchParams.set('error', 'server_error');
    errored.searchParams.set('error_description', '<script>alert(1)</script>');
    browserCookies.set(errored.toString(), browserCookies.get(consented.toString())!);
    const res = await land(errored);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(expectError(res, 400, 'VALIDATION_ERROR').message).toContain('(server_error: <script>alert(1)</script>): nothing was connected');
  });

  it("answers 400 when Google refuses the code (invalid_grant), and 502 when it refuses Hearth's client", async () => {
    const owner = await t.createOwner();
    const first = await consent(owner);
    fake.failNext('token', 400, { error: 'invalid_grant', error_description: 'Bad Request' });
    expect(expectError(await land(first), 400, 'VALIDATION_ERROR').message).toMatch(/invalid_grant/);

    const second = await consent(owner);
    fake.failNext('token', 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    expect(expectError(await land(second), 502, 'UPSTREAM_ERROR').message).toMatch(/GOOGLE_CLIENT_ID/);

    const third = await consent(owner);
    fake.failNext('token', 500, { error: 'internal_failure' });
    expectError(await land(third), 502, 'UPSTREAM_ERROR');
    const status = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.body.data[0].connected).toBe(false);
    expect((await auditActions(owner)).filter((e) => e.action === 'oauth.connect' && e.outcome === 'failure')).toHaveLength(3);
  });

  it('binds the state to the owner who asked: the connection is theirs, not anyone else’s', async () => {
    const alice = await t.createOwner();
    const bob = await t.createOwner();
    const url = await authorizeUrl(alice);
    // Bob's browser (or anyone) finishing Alice's flow connects Alice's account, not Bob's.
    const callback = await consent(alice, url);
    const res = await land(callback, { token: bob.token });
    expect(res.status).toBe(200);
    const aliceStatus = await t.request('GET', '/api/v1/oauth/status', { token: alice.token });
    const bobStatus = await t.request('GET', '/api/v1/oauth/status', { token: bob.token });
    expect(aliceStatus.body.data[0].connected).toBe(true);
    expect(bobStatus.body.data[0].connected).toBe(false);
    expectError(await t.request('GET', '/api/v1/services/google/mail/messages', { token: bob.token }), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('POST', '/api/v1/oauth/disconnect/google', { token: bob.token }), 404, 'NOT_FOUND');
  });
});

describe('GET /api/v1/oauth/status and POST /api/v1/oauth/disconnect/{service}: access', () => {
  it('status needs services:read; disconnect needs services:write', async () => {
    const owner = await t.createOwner();
    expectError(await t.request('GET', '/api/v1/oauth/status'), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/api/v1/oauth/disconnect/google'), 401, 'UNAUTHORIZED');
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    const reader = await t.tokenWithScopes(owner, ['services:read']);
    expectError(await t.request('GET', '/api/v1/oauth/status', { token: writer }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('POST', '/api/v1/oauth/disconnect/google', { token: reader }), 403, 'INSUFFICIENT_SCOPE');
    const status = await t.request('GET', '/api/v1/oauth/status', { token: reader });
    expect(status.status).toBe(200);
    expect(status.body.data).toEqual([
      {
        provider: 'google',
        configured: true,
        connected: false,
        status: 'not_connected',
        account: null,
        scopes: [],
        expiresAt: null,
        connectedAt: null,
        lastError: null,
      },
    ]);
  });
});

describe('the gateway section', () => {
  it('lists the connected providers, without tokens, to services:read tokens only', async () => {
    const owner = await t.createOwner();
    const section = createServicesContextSection(t.container.oauth);
    expect(section.name).toBe('services');
    expect(section.tables).toEqual(['oauth_connections']);
    expect(await section.load(owner.id, null as never)).toEqual([]);
    await connectGoogle(t, fake, owner);
    const loaded = (await section.load(owner.id, null as never)) as any[];
    expect(loaded).toEqual([
      { provider: 'google', account: 'owner@gmail.test', status: 'connected', scopes: expect.arrayContaining([SCOPE.gmailModify]) },
    ]);
    const principal = (scopes: string[]) => ({ allScopes: false, scopes: new Set(scopes) }) as never;
    expect(section.visibleTo(principal(['services:read']))).toBe(true);
    expect(section.visibleTo(principal(['memory', 'services:write']))).toBe(false);
  });
});

describe('tokens at rest', () => {
  function filesUnder(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });
  }

  it('no access token, refresh token or PKCE verifier is stored in plain text', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    // A refresh too, so that refreshed tokens are covered.
    await t.storage.db.updateTable('oauth_connections').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('owner_id', '=', owner.id).execute();
    await t.container.oauth.accessToken(owner.id, 'google');
    // Left unfinished: a state whose verifier is stored.
    const pending = await authorizeUrl(owner);
    const secrets = [
      ...fake.issuedTokens(),
      ...fake.tokenRequests.flatMap((r) => (r.code_verifier ? [r.code_verifier] : [])),
      pending.searchParams.get('state')!,
    ];
    expect(secrets.length).toBeGreaterThan(4);

    if (ENGINE === 'sqlite') {
      // Every byte Hearth keeps: the database, its WAL, and the rest of the data directory.
      await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(t.storage.db);
      const contents = filesUnder(t.config.dataDir).map((file) => readFileSync(file).toString('latin1'));
      expect(contents.length).toBeGreaterThan(0);
      for (const secret of secrets) {
        for (const content of contents) expect(content.includes(secret)).toBe(false);
      }
    } else {
      const connections = await t.storage.db.selectFrom('oauth_connections').selectAll().execute();
      const states = await t.storage.db.selectFrom('oauth_states').selectAll().execute();
      const audit = await t.storage.db.selectFrom('audit_log').selectAll().execute();
      const dump = JSON.stringify([connections, states, audit]);
      expect(connections.length).toBeGreaterThan(0);
      for (const secret of secrets) expect(dump.includes(secret)).toBe(false);
    }
  });

  it('sealed tokens open only for their owner and record', async () => {
    const owner = await t.createOwner();
    await connectGoogle(t, fake, owner);
    const row = await t.storage.db.selectFrom('oauth_connections').selectAll().where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    const other = await t.createOwner();
    await expect(t.container.keyring.open(other.id, 'oauth_connections:google:access_token', row.access_token_sealed)).rejects.toThrow();
    await expect(t.container.keyring.open(owner.id, 'oauth_connections:google:refresh_token', row.access_token_sealed)).rejects.toThrow();
    expect(await t.container.keyring.open(owner.id, 'oauth_connections:google:access_token', row.access_token_sealed)).toMatch(/^ya29\./);
  });
});

describe('a server without Google settings', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await createTestApp();
  });
  afterAll(async () => bare?.close());

  it('answers 503 PROVIDER_NOT_CONFIGURED, and the status says not configured', async () => {
    const owner = await bare.createOwner();
    expect(expectError(await bare.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token }), 503, 'PROVIDER_NOT_CONFIGURED').message).toMatch(
      /GOOGLE_CLIENT_ID/,
    );
    expectError(await bare.request('GET', '/api/v1/oauth/callback/google?code=x&state=y'), 503, 'PROVIDER_NOT_CONFIGURED');
    expectError(await bare.request('GET', '/api/v1/services/google/mail/messages', { token: owner.token }), 503, 'PROVIDER_NOT_CONFIGURED');
    expectError(await bare.request('GET', '/api/v1/services/google/storage/files', { token: owner.token }), 503, 'PROVIDER_NOT_CONFIGURED');
    const status = await bare.request('GET', '/api/v1/oauth/status', { token: owner.token });
    expect(status.body.data).toEqual([expect.objectContaining({ provider: 'google', configured: false, connected: false })]);
  });
});
