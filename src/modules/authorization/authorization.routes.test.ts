import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkce, startPublicApp } from '../../../test/authorization.helpers.js';
import type { Owner, TestApp } from '../../../test/harness.js';
import { REGISTRATIONS_PER_HOUR } from './authorization.routes.js';

let t: TestApp;
let owner: Owner;
let base: string;
const REDIRECT = 'http://127.0.0.1:33418/callback';

beforeAll(async () => {
  ({ t, base } = await startPublicApp());
  owner = await t.createOwner('Consenting Owner');
});
afterAll(async () => t.close());

/** An MCP client's side of OAuth, as the SDK asks a client application to provide it. */
class TestProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Test Assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** What the owner's browser does on the consent page: read the form, fill it in, send it. */
async function consent(authorizationUrl: string, answer: { decision?: 'approve' | 'deny'; scopes?: string[]; email?: string; password?: string; csrf?: string; headers?: Record<string, string> } = {}) {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const form = new URLSearchParams({ request_id: requestId, csrf: answer.csrf ?? csrf, decision: answer.decision ?? 'approve', email: answer.email ?? owner.email, password: answer.password ?? owner.password });
  const ticked = answer.scopes ?? [...html.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]!);
  for (const scope of ticked) form.append('scope', scope);
  const sent = await fetch(`${base}/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin', ...answer.headers },
    body: form,
  });
  return { page: html, pageHeaders: page.headers, sent, location: sent.headers.get('location') };
}

async function register(metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Raw Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

function authorizeUrl(params: Record<string, string>) {
  const url = new URL(`${base}/authorize`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

async function tokenRequest(params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** A full authorization by hand: register, consent, and exchange the code. */
async function authorizeByHand(scopes = 'read memory') {
  const client = (await register()).body;
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', scope: scopes, resource: `${base}/mcp` }),
  );
  const code = new URL(location!).searchParams.get('code')!;
  const tokens = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource: `${base}/mcp` });
  return { client, code, verifier, tokens };
}

describe('discovery', () => {
  it('points an unauthenticated MCP client to the resource metadata, and that to this authorization server', async () => {
    const refused = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="read memory"`);

    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const resource = await fetch(`${base}${path}`);
      expect(resource.status).toBe(200);
      expect(await resource.json()).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: expect.arrayContaining(['read', 'memory']) });
    }
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      revocation_endpoint: `${base}/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
    });
  });
});

describe('the flow an MCP client performs, with the official SDK', () => {
  it('registers, sends the owner to consent, exchanges the code and calls tools with the token', async () => {
    const provider = new TestProvider();
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^mcpc_/);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${base}/mcp`);

    const { page, pageHeaders, sent, location } = await consent(authorizationUrl.toString(), { scopes: ['read', 'memory'] });
    expect(page).toContain('Test Assistant');
    expect(page).toContain('127.0.0.1:33418');
    expect(page).toContain('registered itself with Hearth in the last 24 hours');
    expect(pageHeaders.get('content-security-policy')).toContain("default-src 'none'");
    expect(pageHeaders.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:33418");
    expect(pageHeaders.get('content-security-policy')).toContain("base-uri 'none'");
    expect(page).not.toContain('<script');
    expect(sent.status).toBe(303);
    const back = new URL(location!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
    expect(back.searchParams.get('iss')).toBe(base);

    await transport.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read memory' });
    expect(provider.saved!.access_token).toMatch(/^hth_oat_/);

    const connected = new Client({ name: 'oauth-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
    const tools = (await connected.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('search_memory');
    expect(tools).toContain('get_context');
    expect(tools).not.toContain('list_skills');
    await connected.close();

    // An ordinary token of the owner's, of kind oauth, naming its client.
    const listed = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'oauth' } });
    const grant = listed.body.data.find((token: { clientId: string }) => token.clientId === provider.info!.client_id);
    expect(grant).toMatchObject({ kind: 'oauth', name: 'Test Assistant', scopes: ['read', 'memory'], status: 'active' });
    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'oauth.*', limit: 50 } });
    expect(log.body.data.map((entry: { action: string }) => entry.action)).toEqual(expect.arrayContaining(['oauth.authorize', 'oauth.token_issue']));
  });

  it('rotates the refresh token on use and, on reuse of a spent one, revokes the whole grant', async () => {
    const { client, tokens } = await authorizeByHand();
    expect(tokens.status).toBe(200);
    const first = tokens.body;
    const renewed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('cache-control')).toBe('no-store');
    expect(renewed.body.refresh_token).not.toBe(first.refresh_token);
    expect(renewed.body.access_token).not.toBe(first.access_token);
    // The old access token stops working; the new one works.
    expect((await t.request('GET', '/api/v1/memory', { token: first.access_token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/memory', { token: renewed.body.access_token })).status).toBe(200);

    const replay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await t.request('GET', '/api/v1/memory', { token: renewed.body.access_token })).status).toBe(401);
    const afterReplay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: renewed.body.refresh_token, client_id: client.client_id });
    expect(afterReplay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('revokes a grant through RFC 7009, and the owner can revoke it in the token list', async () => {
    const first = await authorizeByHand();
    const revoked = await fetch(`${base}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: first.tokens.body.access_token, client_id: first.client.client_id }),
    });
    expect(revoked.status).toBe(200);
    expect((await t.request('GET', '/api/v1/memory', { token: first.tokens.body.access_token })).status).toBe(401);
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.tokens.body.refresh_token, client_id: first.client.client_id })).status).toBe(400);

    const second = await authorizeByHand();
    const listed = await t.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'oauth' } });
    const grant = listed.body.data.find((token: { clientId: string }) => token.clientId === second.client.client_id);
    expect((await t.request('DELETE', `/api/v1/tokens/${grant.id}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/memory', { token: second.tokens.body.access_token })).status).toBe(401);
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: second.tokens.body.refresh_token, client_id: second.client.client_id })).body.error).toBe('invalid_grant');
  });
});

describe('the consent page', () => {
  it('shows itself again on a wrong password, and sends a denial back as access_denied', async () => {
    const client = (await register()).body;
    const { challenge } = pkce();
    const url = authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' });
    const wrong = await consent(url, { password: 'not-the-password' });
    expect(wrong.sent.status).toBe(200);
    expect(await wrong.sent.text()).toContain('Wrong email or password');
    const denied = await consent(url, { decision: 'deny' });
    expect(denied.sent.status).toBe(303);
    const back = new URL(denied.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('xyz');
  });

  it('lets the owner widen the scopes beyond what was asked', async () => {
    const client = (await register()).body;
    const { verifier, challenge } = pkce();
    const { location } = await consent(
      authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', scope: 'read' }),
      { scopes: ['read', 'skills'] },
    );
    const tokens = await tokenRequest({ grant_type: 'authorization_code', code: new URL(location!).searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
    expect(tokens.body.scope).toBe('read skills');
    expect((await t.request('GET', '/api/v1/skills', { token: tokens.body.access_token })).status).toBe(200);
  });
});

describe('an account the administrator disabled', () => {
  it('cannot consent, and its grant is refused and does not renew until the account is enabled again', async () => {
    const user = await t.createOwner('Later Disabled');
    const client = (await register()).body;
    const authorizeAs = async () => {
      const { verifier, challenge } = pkce();
      const url = authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope: 'read memory', resource: `${base}/mcp` });
      return { verifier, ...(await consent(url, { email: user.email, password: user.password })) };
    };
    const first = await authorizeAs();
    const code = new URL(first.location!).searchParams.get('code')!;
    const tokens = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: first.verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource: `${base}/mcp` });
    expect(tokens.status).toBe(200);
    const setDisabled = (disabled: boolean) => t.request('PUT', `/api/v1/users/${user.id}/status`, { token: owner.token, body: { disabled } });
    expect((await setDisabled(true)).status).toBe(200);

    const memory = await fetch(`${base}/api/v1/memory`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    expect(memory.status).toBe(403);
    expect(((await memory.json()) as { error: string }).error).toBe('ACCOUNT_DISABLED');
    const refused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: client.client_id });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringMatching(/administrator disabled the account/) } });
    // Its consent page says why once the password is right, and grants nothing.
    const again = await authorizeAs();
    expect(again.sent.status).toBe(200);
    expect(again.location).toBeNull();
    expect(await again.sent.text()).toMatch(/administrator disabled this account/);

    // Enabled again: the refresh token it kept renews the grant.
    expect((await setDisabled(false)).status).toBe(200);
    const renewed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: client.client_id });
    expect(renewed.status).toBe(200);
    const after = await fetch(`${base}/api/v1/memory`, { headers: { authorization: `Bearer ${renewed.body.access_token}` } });
    expect(after.status).toBe(200);
  });
});

describe('security', () => {
  it('refuses to redirect anywhere a client did not register (no open redirect)', async () => {
    const client = (await register()).body;
    const { challenge } = pkce();
    const res = await fetch(authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://evil.example/steal', code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('not one');
    const unknown = await fetch(authorizeUrl({ response_type: 'code', client_id: 'mcpc_nobody', redirect_uri: 'https://evil.example/steal' }), { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    // Registering a dangerous redirect is refused in the first place.
    expect(await register({ redirect_uris: ['javascript:alert(1)'] })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await register({ redirect_uris: ['http://evil.example/cb'] })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
  });

  it('lets a native app listen on any port of its loopback redirect (RFC 8252), and nothing else vary', async () => {
    const client = (await register()).body;
    const { verifier, challenge } = pkce();
    const otherPort = 'http://127.0.0.1:51234/callback';
    const { location } = await consent(authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: otherPort, code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(location!.startsWith(`${otherPort}?`)).toBe(true);
    const tokens = await tokenRequest({ grant_type: 'authorization_code', code: new URL(location!).searchParams.get('code')!, code_verifier: verifier, redirect_uri: otherPort, client_id: client.client_id });
    expect(tokens.status).toBe(200);
    for (const uri of ['http://127.0.0.1:51234/other', 'http://localhost:33418/callback', 'https://127.0.0.1:33418/callback']) {
      const res = await fetch(authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: uri, code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
      expect(res.status).toBe(400);
    }
  });

  it('answers malformed client credentials with invalid_client, not an error of the server', async () => {
    const bad = Buffer.from('%E0%A4%A:secret').toString('base64');
    expect(await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: `Basic ${bad}` })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('requires PKCE with S256', async () => {
    const client = (await register()).body;
    const variants: Array<Record<string, string>> = [{}, { code_challenge: pkce().challenge, code_challenge_method: 'plain' }];
    for (const params of variants) {
      const res = await fetch(authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, state: 'p', ...params }), { redirect: 'manual' });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('p');
    }
    const { code, client: registered } = await authorizeByHand();
    // A wrong verifier is refused (the code above was already spent, so use a fresh one).
    const fresh = await (async () => {
      const { challenge } = pkce();
      const { location } = await consent(authorizeUrl({ response_type: 'code', client_id: registered.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }));
      return new URL(location!).searchParams.get('code')!;
    })();
    expect((await tokenRequest({ grant_type: 'authorization_code', code: fresh, code_verifier: pkce().verifier, redirect_uri: REDIRECT, client_id: registered.client_id })).body.error).toBe('invalid_grant');
    expect(code).toBeTruthy();
  });

  it('refuses a code used twice, and revokes the token the first use gave', async () => {
    const { client, code, verifier, tokens } = await authorizeByHand();
    expect(tokens.status).toBe(200);
    const again = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await t.request('GET', '/api/v1/memory', { token: tokens.body.access_token })).status).toBe(401);
  });

  it('refuses a token for another resource', async () => {
    const client = (await register()).body;
    const { verifier, challenge } = pkce();
    const res = await fetch(
      authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', resource: 'https://other.example/mcp' }),
      { redirect: 'manual' },
    );
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const { location } = await consent(authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', resource: `${base}/mcp` }));
    const exchanged = await tokenRequest({
      grant_type: 'authorization_code',
      code: new URL(location!).searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      resource: 'https://other.example/mcp',
    });
    expect(exchanged).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('writes what a client and a visitor typed as text, on every page, each page under the one strict policy', async () => {
    const hostile = `<script>alert("name")</script><img src=x onerror='alert(1)'>`;
    const written = '&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;';
    const client = (await register({ client_name: hostile })).body;
    const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' };
    const expectStrict = (headers: Headers, formAction: string) => {
      const policy = headers.get('content-security-policy')!;
      expect(policy).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; /);
      expect(policy.endsWith(`; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`)).toBe(true);
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('referrer-policy')).toBe('no-referrer');
      expect(headers.get('cache-control')).toBe('no-store');
    };

    // The consent page, and again after a wrong password with the email the visitor typed.
    const retried = await consent(authorizeUrl(params), { email: '"><script>alert("email")</script>', password: 'not-the-password' });
    expect(retried.page).toContain(`<h1>${written} wants to use your Hearth</h1>`);
    expectStrict(retried.pageHeaders, "'self' http://127.0.0.1:33418");
    expect(retried.sent.status).toBe(200);
    const again = await retried.sent.text();
    expect(again).toContain('value="&quot;&gt;&lt;script&gt;alert(&quot;email&quot;)&lt;/script&gt;"');
    expectStrict(retried.sent.headers, "'self' http://127.0.0.1:33418");
    // The page that cannot go back to the client names it too, and has no form to post.
    const refused = await fetch(authorizeUrl({ ...params, redirect_uri: 'https://evil.example/steal' }), { redirect: 'manual' });
    expect(refused.status).toBe(400);
    const error = await refused.text();
    expect(error).toContain(`not one ${written} registered`);
    expectStrict(refused.headers, "'none'");
    for (const html of [retried.page, again, error]) {
      expect(html).not.toContain('<script');
      expect(html).not.toContain('<img');
    }
  });

  it('refuses a consent form that is not from its page (CSRF)', async () => {
    const client = (await register()).body;
    const url = authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const forged = await consent(url, { csrf: 'forged' });
    expect(forged.sent.status).toBe(400);
    expect(forged.location).toBeNull();
    const crossSite = await consent(url, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.sent.status).toBe(403);
    expect(crossSite.location).toBeNull();
  });

  it('authenticates confidential clients at the token endpoint', async () => {
    const registered = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    expect(registered.body.client_secret).toMatch(/^mcps_/);
    const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x', client_id: registered.body.client_id });
    expect(res).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const basic = Buffer.from(`${registered.body.client_id}:${registered.body.client_secret}`).toString('base64');
    const authenticated = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: `Basic ${basic}` });
    expect(authenticated).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('never fetches a client metadata document from a private address', async () => {
    const res = await fetch(
      authorizeUrl({ response_type: 'code', client_id: 'https://127.0.0.1:9/client.json', redirect_uri: 'https://127.0.0.1:9/cb', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toMatch(/could not be fetched/);
  });

  it('limits client registrations per address', async () => {
    let status = 201;
    let sent = 0;
    while (status === 201 && sent <= REGISTRATIONS_PER_HOUR) {
      status = (await register()).status;
      sent += 1;
    }
    expect(status).toBe(429);
  });
});
