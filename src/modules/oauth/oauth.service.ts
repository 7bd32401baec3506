import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';
import { newId } from '../../lib/ids.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { Dialect } from '../../storage/dialect.js';
import type { Database } from '../../storage/tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import { isConfigured, type OAuthProviderDefinition, type OAuthProviderRegistry } from './oauth.providers.js';
import type { ConnectionRow, OAuthRepo, StateRow } from './oauth.repo.js';

/**
 * The vault keyring's two operations: AES-256-GCM bound to the owner and a context string, so
 * a sealed value only opens for the same owner and the same purpose.
 */
export interface OAuthKeyring {
  seal(ownerId: string, context: string, plaintext: string): Promise<string> | string;
  open(ownerId: string, context: string, sealed: string): Promise<string> | string;
}

export interface OAuthServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  repo: OAuthRepo;
  providers: OAuthProviderRegistry;
  keyring: OAuthKeyring;
  outbound: Pick<OutboundClient, 'request'>;
  audit: Pick<AuditService, 'record'>;
  publicBaseUrl: string;
  /** The account behind a flow: its address (shown where the owner signs in) and its password check. */
  owners: {
    emailOf(ownerId: string): Promise<string | null>;
    confirmPassword(ownerId: string, password: string, actor: AuditActor): Promise<boolean>;
  };
  /** How long an authorization link stays usable (default 10 minutes). */
  stateTtlMs?: number;
  /** An access token this close to its expiry is refreshed before use (default 60 s). */
  refreshMarginMs?: number;
}

export type ConnectionStatus = 'connected' | 'needs_reauth' | 'not_connected';

export interface ProviderStatus {
  provider: string;
  configured: boolean;
  connected: boolean;
  status: ConnectionStatus;
  account: string | null;
  scopes: string[];
  expiresAt: string | null;
  connectedAt: string | null;
  /** Why the connection needs the owner's consent again; null otherwise. */
  lastError: string | null;
}

export interface ConnectionSummary {
  provider: string;
  account: string | null;
  status: 'connected' | 'needs_reauth';
  scopes: string[];
  expiresAt: string;
  connectedAt: string;
}

export interface AccessTokenResult {
  accessToken: string;
  scopes: string[];
  account: string | null;
}

export interface AccessTokenOptions {
  /**
   * The access token the provider just refused (401): refresh now, unless the stored token has
   * already been replaced by another request's refresh.
   */
  rejected?: string;
}

export interface CallbackQuery {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/** The cookie that binds a flow to the browser where its owner signed in. */
export interface BrowserBindingCookie {
  name: string;
  value: string;
  /** Sent back only to the provider's callback. */
  path: string;
  maxAgeSeconds: number;
  secure: boolean;
}

export interface DisconnectResult {
  provider: string;
  disconnected: true;
  /** Whether the provider confirmed the grant is gone (or already was). */
  revoked: boolean;
  /** Why revocation at the provider failed; the tokens are deleted here all the same. */
  revokeError: string | null;
}

interface TokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
  id_token?: string;
}

/** An OAuth error answer of a token endpoint (RFC 6749 section 5.2). */
class TokenEndpointError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
  ) {
    super(`${code}${description ? `: ${description}` : ''}`);
  }
}

const DEFAULT_STATE_TTL_MS = 10 * 60_000;
const DEFAULT_REFRESH_MARGIN_MS = 60_000;
/** Used when a token answer has no expires_in (RFC 6749 makes it only recommended). */
const DEFAULT_TOKEN_LIFETIME_S = 3600;

function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function parseScopes(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

function systemActor(ownerId: string): AuditActor {
  return { ownerId, tokenId: null, ip: null, userAgent: null };
}

/** The claims of an ID token received straight from the token endpoint over TLS (OIDC core 3.1.3.7). */
function idTokenClaims(idToken: string | undefined, provider: OAuthProviderDefinition): { email: string | null; sub: string | null } {
  if (!idToken) return { email: null, sub: null };
  const parts = idToken.split('.');
  if (parts.length !== 3) return { email: null, sub: null };
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!provider.idTokenIssuers.includes(String(claims.iss)) || !audience.includes(provider.clientId)) {
      return { email: null, sub: null };
    }
    const email = typeof claims.email === 'string' && claims.email_verified !== false ? claims.email : null;
    const sub = typeof claims.sub === 'string' ? claims.sub : null;
    return { email, sub };
  } catch {
    return { email: null, sub: null };
  }
}

export function createOAuthService(deps: OAuthServiceDeps) {
  const { repo, providers, keyring, outbound, audit } = deps;
  const stateTtlMs = deps.stateTtlMs ?? DEFAULT_STATE_TTL_MS;
  const refreshMarginMs = deps.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  /** One refresh in flight per connection in this process; concurrent callers share it. */
  const refreshes = new Map<string, Promise<AccessTokenResult>>();

  // Sealed values are bound to their record: a connection's tokens to (owner, provider), a
  // verifier to its state. A value copied into another row or owner does not open.
  const context = (provider: string, what: 'access_token' | 'refresh_token') => `oauth_connections:${provider}:${what}`;
  const verifierContext = (stateId: string) => `oauth_states:${stateId}:pkce_verifier`;
  const redirectUri = (provider: OAuthProviderDefinition) => `${deps.publicBaseUrl}/api/v1/oauth/callback/${provider.id}`;
  const authorizePath = (provider: string) => `GET /api/v1/oauth/authorize/${provider}`;
  const connectPath = (provider: string) => `/api/v1/oauth/connect/${provider}`;
  // One cookie per flow (named after its state's hash), so flows in two tabs do not collide.
  const bindingCookieName = (stateId: string) => `hearth_oauth_${stateId.slice(0, 16)}`;
  // The browser sends the cookie only to the callback's path as the browser sees it, so under a
  // PUBLIC_BASE_URL with a path (behind a proxy) that path leads.
  const secureCookies = deps.publicBaseUrl.startsWith('https:');
  function bindingCookie(provider: OAuthProviderDefinition, stateId: string, value: string, maxAgeSeconds: number): BrowserBindingCookie {
    return { name: bindingCookieName(stateId), value, path: new URL(redirectUri(provider)).pathname, maxAgeSeconds, secure: secureCookies };
  }

  function unusableState(provider: OAuthProviderDefinition): AppError {
    return new AppError(
      'VALIDATION_ERROR',
      `This authorization link is unknown, already used or expired (links last ${Math.round(stateTtlMs / 60_000)} minutes and work once): start again with ${authorizePath(provider.id)}`,
      { details: [{ field: 'querystring.state', message: 'is unknown, used or expired' }] },
    );
  }

  /** The provider's consent address for a flow; the PKCE challenge is derived from its sealed verifier. */
  async function providerAuthorizeUrl(provider: OAuthProviderDefinition, state: string, row: Pick<StateRow, 'id' | 'owner_id' | 'verifier_sealed' | 'redirect_uri'>): Promise<string> {
    const verifier = await keyring.open(row.owner_id, verifierContext(row.id), row.verifier_sealed);
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const url = new URL(provider.authorizeUrl);
    const params = {
      client_id: provider.clientId!,
      redirect_uri: row.redirect_uri,
      response_type: 'code',
      scope: provider.scopes.join(' '),
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...provider.authorizeParams,
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.toString();
  }

  function known(service: string): OAuthProviderDefinition {
    const provider = providers.get(service.toLowerCase());
    if (!provider) {
      throw new AppError('NOT_FOUND', `No OAuth provider named ${service}; the providers are: ${[...providers.keys()].join(', ')}`);
    }
    return provider;
  }

  function configured(service: string): OAuthProviderDefinition {
    const provider = known(service);
    if (!isConfigured(provider)) {
      const prefix = provider.id.toUpperCase();
      throw new AppError(
        'PROVIDER_NOT_CONFIGURED',
        `${provider.label} is not configured on this server: the operator sets ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET (see the README)`,
      );
    }
    return provider;
  }

  function notConnected(provider: OAuthProviderDefinition): AppError {
    return new AppError(
      'PROVIDER_NOT_CONNECTED',
      `${provider.label} is not connected: the owner connects an account with ${authorizePath(provider.id)} and opens the answered url`,
    );
  }

  function needsReauth(provider: OAuthProviderDefinition, reason: string | null): AppError {
    return new AppError(
      'PROVIDER_NOT_CONNECTED',
      `The ${provider.label} connection must be renewed${reason ? ` (${provider.label} said: ${reason})` : ''}: the owner reconnects with ${authorizePath(provider.id)} and opens the answered url`,
      { details: { provider: provider.id, status: 'needs_reauth' } },
    );
  }

  async function tokenRequest(provider: OAuthProviderDefinition, params: Record<string, string>): Promise<TokenResponse> {
    const response = await outbound.request({
      method: 'POST',
      url: provider.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params).toString(),
    });
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(response.text()) as Record<string, unknown>;
    } catch {
      // A non-JSON answer (an HTML error page) is judged by its status below.
    }
    if (response.status >= 200 && response.status < 300) {
      if (typeof body.access_token !== 'string' || body.access_token === '') {
        throw new AppError('UPSTREAM_ERROR', `${provider.label}'s token endpoint answered without an access token`);
      }
      if (typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
        throw new AppError('UPSTREAM_ERROR', `${provider.label} issued a ${body.token_type} token; only Bearer tokens are supported`);
      }
      return body as unknown as TokenResponse;
    }
    if (typeof body.error === 'string') {
      throw new TokenEndpointError(response.status, body.error, typeof body.error_description === 'string' ? body.error_description : '');
    }
    throw new AppError('UPSTREAM_ERROR', `${provider.label}'s token endpoint answered ${response.status}`);
  }

  /** Maps a token endpoint refusal during the code exchange to the caller's answer. */
  function exchangeFailure(provider: OAuthProviderDefinition, error: unknown): AppError {
    if (!(error instanceof TokenEndpointError)) return error instanceof AppError ? error : new AppError('UPSTREAM_ERROR', String(error));
    const prefix = provider.id.toUpperCase();
    switch (error.code) {
      case 'invalid_grant':
        return new AppError(
          'VALIDATION_ERROR',
          `${provider.label} refused the authorization code (${error.message}). Codes are single-use and short-lived: start again with ${authorizePath(provider.id)}`,
        );
      case 'invalid_client':
      case 'unauthorized_client':
        return new AppError(
          'UPSTREAM_ERROR',
          `${provider.label} refused this server's OAuth client (${error.message}): the operator checks ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET`,
        );
      case 'redirect_uri_mismatch':
        return new AppError(
          'UPSTREAM_ERROR',
          `${provider.label} refused the redirect URI (${error.message}): the OAuth client must list ${redirectUri(provider)} as an authorized redirect URI`,
        );
      default:
        return new AppError('UPSTREAM_ERROR', `${provider.label}'s token endpoint refused the request (${error.message})`);
    }
  }

  /** The account's address: from the ID token, else from the provider's profile endpoint. */
  async function accountOf(provider: OAuthProviderDefinition, tokens: TokenResponse): Promise<{ email: string | null; id: string | null }> {
    const claims = idTokenClaims(tokens.id_token, provider);
    if (claims.email || !provider.profile) return { email: claims.email, id: claims.sub };
    try {
      const response = await outbound.request({
        url: provider.profile.url,
        headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' },
      });
      if (response.status !== 200) return { email: null, id: claims.sub };
      const body = response.json<Record<string, unknown>>();
      const email = body[provider.profile.emailField];
      return { email: typeof email === 'string' ? email : null, id: claims.sub };
    } catch {
      return { email: null, id: claims.sub };
    }
  }

  function grantedScopes(tokens: TokenResponse, fallback: string[]): string[] {
    if (typeof tokens.scope !== 'string') return fallback;
    return [...new Set(tokens.scope.split(/\s+/).filter(Boolean))];
  }

  function lifetimeSeconds(tokens: TokenResponse): number {
    const value = Number(tokens.expires_in);
    return Number.isFinite(value) && value >= 0 ? value : DEFAULT_TOKEN_LIFETIME_S;
  }

  function isFresh(row: Pick<ConnectionRow, 'expires_at'>, now = Date.now()): boolean {
    return Date.parse(row.expires_at) - refreshMarginMs > now;
  }

  async function openToken(row: ConnectionRow, what: 'access_token' | 'refresh_token'): Promise<string> {
    const sealed = what === 'access_token' ? row.access_token_sealed : row.refresh_token_sealed;
    if (!sealed) throw new Error(`connection ${row.id} has no ${what}`);
    return keyring.open(row.owner_id, context(row.provider, what), sealed);
  }

  async function resultOf(row: ConnectionRow, accessToken?: string): Promise<AccessTokenResult> {
    return {
      accessToken: accessToken ?? (await openToken(row, 'access_token')),
      scopes: parseScopes(row.scopes),
      account: row.account_email,
    };
  }

  type RefreshOutcome =
    | { kind: 'ok'; result: AccessTokenResult }
    | { kind: 'gone' }
    | { kind: 'reauth'; reason: string | null; recorded: boolean }
    | { kind: 'changed' }
    | { kind: 'error'; error: unknown };

  /**
   * Reads the connection (locked on PostgreSQL until the refresh is stored) and refreshes it,
   * unless another request or node already did since `seenVersion` was read.
   */
  async function refreshLocked(provider: OAuthProviderDefinition, ownerId: string, seenVersion: number): Promise<RefreshOutcome> {
    const run = async (trx: Transaction<Database> | undefined): Promise<RefreshOutcome> => {
      const row = trx ? await repo.getConnectionForUpdate(trx, ownerId, provider.id) : await repo.getConnection(ownerId, provider.id);
      if (!row) return { kind: 'gone' };
      if (row.status === 'needs_reauth') return { kind: 'reauth', reason: row.last_error, recorded: false };
      if (row.token_version !== seenVersion && isFresh(row)) return { kind: 'ok', result: await resultOf(row) };
      const now = isoNow();
      if (!row.refresh_token_sealed) {
        const reason = 'no refresh token was issued for this connection';
        const recorded = await repo.markNeedsReauth(ownerId, provider.id, row.token_version, reason, now, trx);
        return { kind: 'reauth', reason, recorded };
      }
      let tokens: TokenResponse;
      try {
        tokens = await tokenRequest(provider, {
          grant_type: 'refresh_token',
          refresh_token: await openToken(row, 'refresh_token'),
          client_id: provider.clientId!,
          client_secret: provider.clientSecret!,
        });
      } catch (error) {
        if (error instanceof TokenEndpointError && error.code === 'invalid_grant') {
          const reason = error.message;
          const recorded = await repo.markNeedsReauth(ownerId, provider.id, row.token_version, reason, now, trx);
          return recorded ? { kind: 'reauth', reason, recorded } : { kind: 'changed' };
        }
        return { kind: 'error', error };
      }
      const scopes = grantedScopes(tokens, parseScopes(row.scopes));
      const written = await repo.updateTokens(
        ownerId,
        provider.id,
        row.token_version,
        {
          access_token_sealed: await keyring.seal(ownerId, context(provider.id, 'access_token'), tokens.access_token),
          // A rotated refresh token replaces the old one; without one the old stays valid.
          refresh_token_sealed: tokens.refresh_token
            ? await keyring.seal(ownerId, context(provider.id, 'refresh_token'), tokens.refresh_token)
            : row.refresh_token_sealed,
          expires_at: isoIn(lifetimeSeconds(tokens) * 1000),
          scopes: JSON.stringify(scopes),
          refreshed_at: now,
          updated_at: now,
        },
        trx,
      );
      if (!written) return { kind: 'changed' };
      return { kind: 'ok', result: { accessToken: tokens.access_token, scopes, account: row.account_email } };
    };
    if (deps.dialect !== 'postgres') return run(undefined);
    // The keyring reads the owner's data key from the database on first use in this process.
    // Loading it before the transaction keeps a refresh to one pooled connection, so that many
    // refreshes at once (a node just started) cannot take every connection and wait on each other.
    await keyring.seal(ownerId, context(provider.id, 'access_token'), '');
    return deps.db.transaction().execute((trx) => run(trx));
  }

  async function refresh(provider: OAuthProviderDefinition, ownerId: string, seenVersion: number): Promise<AccessTokenResult> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await refreshLocked(provider, ownerId, seenVersion);
      switch (outcome.kind) {
        case 'ok':
          return outcome.result;
        case 'gone':
          throw notConnected(provider);
        case 'reauth':
          if (outcome.recorded) {
            await audit.record(systemActor(ownerId), {
              action: 'oauth.refresh_failed',
              outcome: 'failure',
              targetType: 'oauth_connection',
              targetId: provider.id,
              details: { provider: provider.id, reason: outcome.reason },
            });
          }
          throw needsReauth(provider, outcome.reason);
        case 'error':
          if (outcome.error instanceof TokenEndpointError) {
            throw new AppError('UPSTREAM_ERROR', `${provider.label} did not refresh the access token (${outcome.error.message})`);
          }
          throw outcome.error;
        case 'changed': {
          // A reconnection or another node's refresh landed meanwhile: use what is stored now.
          const row = await repo.getConnection(ownerId, provider.id);
          if (!row) throw notConnected(provider);
          if (row.status === 'needs_reauth') throw needsReauth(provider, row.last_error);
          if (isFresh(row) || attempt >= 2) return resultOf(row);
          seenVersion = row.token_version;
        }
      }
    }
  }

  /** Joins the refresh already in flight for this connection, or starts the one. */
  function refreshOnce(provider: OAuthProviderDefinition, ownerId: string, seenVersion: number): Promise<AccessTokenResult> {
    const key = `${ownerId}\u0000${provider.id}`;
    let pending = refreshes.get(key);
    if (!pending) {
      pending = refresh(provider, ownerId, seenVersion).finally(() => refreshes.delete(key));
      refreshes.set(key, pending);
    }
    return pending;
  }

  function summary(row: ConnectionRow): ConnectionSummary {
    return {
      provider: row.provider,
      account: row.account_email,
      status: row.status,
      scopes: parseScopes(row.scopes),
      expiresAt: row.expires_at,
      connectedAt: row.connected_at,
    };
  }

  return {
    /**
     * Starts a flow: a single-use state bound to the owner, valid for the state lifetime. The
     * answered url is Hearth's connect page, where the owner signs in before going on to the
     * provider, which binds the flow to that browser.
     */
    async authorize(ownerId: string, service: string): Promise<{ url: string; provider: string; redirectUri: string; expiresAt: string }> {
      const provider = configured(service);
      const now = isoNow();
      await repo.deleteExpiredStates(now);
      const state = base64url(randomBytes(32));
      const verifier = base64url(randomBytes(48)); // 64 characters, within RFC 7636's 43..128
      const expiresAt = isoIn(stateTtlMs);
      const stateId = sha256Hex(state);
      await repo.insertState({
        id: stateId,
        owner_id: ownerId,
        provider: provider.id,
        verifier_sealed: await keyring.seal(ownerId, verifierContext(stateId), verifier),
        redirect_uri: redirectUri(provider),
        scopes: JSON.stringify(provider.scopes),
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
        browser_binding: null,
      });
      const url = new URL(`${deps.publicBaseUrl}${connectPath(provider.id)}`);
      url.searchParams.set('state', state);
      return { url: url.toString(), provider: provider.id, redirectUri: redirectUri(provider), expiresAt };
    },

    /** What the connect page shows before the owner signs in: the provider and the Hearth account. */
    async connectPage(
      service: string,
      state: string,
    ): Promise<{ provider: string; label: string; account: string | null; formAction: string }> {
      const provider = configured(service);
      const row = await repo.findPendingState(sha256Hex(state), provider.id, isoNow());
      if (!row) throw unusableState(provider);
      return {
        provider: provider.id,
        label: provider.label,
        account: await deps.owners.emailOf(row.owner_id),
        // The page's own path as the browser sees it (PUBLIC_BASE_URL may have a path).
        formAction: new URL(`${deps.publicBaseUrl}${connectPath(provider.id)}`).pathname,
      };
    },

    /**
     * The owner signed in on the connect page: the flow is bound to this browser (a random
     * binder in a cookie, its hash with the state) and the provider's consent address answered.
     * Only the flow's owner can do this, so a link opened by anyone else goes no further.
     */
    async bindBrowser(
      service: string,
      state: string,
      password: string | undefined,
      actorOf: (ownerId: string) => AuditActor,
    ): Promise<{ label: string; providerUrl: string; cookie: BrowserBindingCookie }> {
      const provider = configured(service);
      const now = isoNow();
      const row = await repo.findPendingState(sha256Hex(state), provider.id, now);
      if (!row) throw unusableState(provider);
      if (!password || !(await deps.owners.confirmPassword(row.owner_id, password, actorOf(row.owner_id)))) {
        throw new AppError(
          'FORBIDDEN',
          `That is not the password of the Hearth account this ${provider.label} connection is for. Only that account's owner can connect an account to it; go back and try again`,
        );
      }
      const binder = base64url(randomBytes(32));
      if (!(await repo.bindState(row.id, sha256Hex(binder), now))) throw unusableState(provider);
      return {
        label: provider.label,
        providerUrl: await providerAuthorizeUrl(provider, state, row),
        cookie: bindingCookie(provider, row.id, binder, Math.max(1, Math.ceil((Date.parse(row.expires_at) - Date.now()) / 1000))),
      };
    },

    /** The Set-Cookie that clears the cookie a callback for `state` read its binder from (once done). */
    clearedBindingCookie(service: string, state: string): BrowserBindingCookie {
      return bindingCookie(known(service), sha256Hex(state), '', 0);
    },

    /**
     * The provider's redirect: checks and spends the state, exchanges the code with the PKCE
     * verifier, and stores the tokens sealed. `actor` is the request's (the browser carries no token).
     */
    async callback(
      service: string,
      query: CallbackQuery,
      cookies: Record<string, string>,
      actorOf: (ownerId: string) => AuditActor,
    ): Promise<{ provider: string; label: string; account: string | null; scopes: string[] }> {
      const provider = configured(service);
      if (!query.state) {
        throw new AppError('VALIDATION_ERROR', `The callback has no state: open the url answered by ${authorizePath(provider.id)} to connect`, {
          details: [{ field: 'querystring.state', message: 'is required' }],
        });
      }
      const stateId = sha256Hex(query.state);
      const checkedAt = isoNow();
      const binder = cookies[bindingCookieName(stateId)];
      const state = binder ? await repo.consumeState(stateId, provider.id, checkedAt, sha256Hex(binder)) : undefined;
      if (!state) {
        // A live flow reached from another browser is refused without being spent: its owner's
        // browser can still finish it.
        if (await repo.findPendingState(stateId, provider.id, checkedAt)) {
          throw new AppError(
            'FORBIDDEN',
            `This ${provider.label} consent did not come back to the browser where the Hearth account's owner signed in to start it, so nothing was connected. Only that owner, in that browser, can finish it: they open the url answered by ${authorizePath(provider.id)} and sign in there`,
          );
        }
        throw unusableState(provider);
      }
      const actor = actorOf(state.owner_id);
      if (query.error) {
        await audit.record(actor, {
          action: 'oauth.connect',
          outcome: 'denied',
          targetType: 'oauth_connection',
          targetId: provider.id,
          details: { provider: provider.id, error: query.error },
        });
        const declined = query.error === 'access_denied';
        throw new AppError(
          'VALIDATION_ERROR',
          declined
            ? `${provider.label} access was not granted (the consent screen was declined): nothing was connected. To connect, start again with ${authorizePath(provider.id)}`
            : `${provider.label} answered an error instead of a code (${query.error}${query.error_description ? `: ${query.error_description}` : ''}): nothing was connected. Start again with ${authorizePath(provider.id)}`,
          { details: { provider: provider.id, error: query.error } },
        );
      }
      if (!query.code) {
        throw new AppError('VALIDATION_ERROR', `The callback has no code: start again with ${authorizePath(provider.id)}`, {
          details: [{ field: 'querystring.code', message: 'is required' }],
        });
      }
      const verifier = await keyring.open(state.owner_id, verifierContext(state.id), state.verifier_sealed);
      let tokens: TokenResponse;
      try {
        tokens = await tokenRequest(provider, {
          grant_type: 'authorization_code',
          code: query.code,
          redirect_uri: state.redirect_uri,
          client_id: provider.clientId!,
          client_secret: provider.clientSecret!,
          code_verifier: verifier,
        });
      } catch (error) {
        const failure = exchangeFailure(provider, error);
        await audit.record(actor, {
          action: 'oauth.connect',
          outcome: 'failure',
          targetType: 'oauth_connection',
          targetId: provider.id,
          details: { provider: provider.id, error: error instanceof TokenEndpointError ? error.code : failure.code },
        });
        throw failure;
      }
      const ownerId = state.owner_id;
      const scopes = grantedScopes(tokens, parseScopes(state.scopes));
      const account = await accountOf(provider, tokens);
      const existing = await repo.getConnection(ownerId, provider.id);
      const now = isoNow();
      await repo.upsertConnection({
        id: existing?.id ?? newId('oac'),
        owner_id: ownerId,
        provider: provider.id,
        account_email: account.email,
        account_id: account.id,
        scopes: JSON.stringify(scopes),
        access_token_sealed: await keyring.seal(ownerId, context(provider.id, 'access_token'), tokens.access_token),
        // Without a new refresh token a reconnection of the same account keeps the one it had.
        refresh_token_sealed: tokens.refresh_token
          ? await keyring.seal(ownerId, context(provider.id, 'refresh_token'), tokens.refresh_token)
          : existing && existing.account_email === account.email
            ? existing.refresh_token_sealed
            : null,
        expires_at: isoIn(lifetimeSeconds(tokens) * 1000),
        status: 'connected',
        token_version: 1,
        last_error: null,
        connected_at: now,
        refreshed_at: null,
        updated_at: now,
      });
      await audit.record(actor, {
        action: 'oauth.connect',
        outcome: 'success',
        targetType: 'oauth_connection',
        targetId: provider.id,
        details: { provider: provider.id, account: account.email, scopes },
      });
      return { provider: provider.id, label: provider.label, account: account.email, scopes };
    },

    /** Every provider Hearth knows, configured or not, with the owner's connection to it. */
    async status(ownerId: string): Promise<ProviderStatus[]> {
      const rows = new Map((await repo.listConnections(ownerId)).map((row) => [row.provider, row]));
      return [...providers.values()].map((provider) => {
        const row = rows.get(provider.id);
        return {
          provider: provider.id,
          configured: isConfigured(provider),
          connected: row?.status === 'connected',
          status: row?.status ?? 'not_connected',
          account: row?.account_email ?? null,
          scopes: row ? parseScopes(row.scopes) : [],
          expiresAt: row?.expires_at ?? null,
          connectedAt: row?.connected_at ?? null,
          lastError: row?.last_error ?? null,
        };
      });
    },

    /** The owner's connections (connected or needing consent again), for the gateway and the services catalogue. */
    async connections(ownerId: string): Promise<ConnectionSummary[]> {
      return (await repo.listConnections(ownerId)).filter((row) => providers.has(row.provider)).map(summary);
    },

    /**
     * Revokes the grant at the provider (best effort) and deletes the tokens here. The answer
     * says whether the provider confirmed; the tokens are gone from Hearth either way.
     */
    async disconnect(ownerId: string, service: string, actor: AuditActor): Promise<DisconnectResult> {
      const provider = known(service);
      const row = await repo.getConnection(ownerId, provider.id);
      if (!row) throw new AppError('NOT_FOUND', `${provider.label} is not connected: there is nothing to disconnect`);
      let revoked = false;
      let revokeError: string | null = null;
      if (!provider.revokeUrl) {
        revokeError = `${provider.label} has no revocation endpoint: remove the app's access in the account's security settings`;
      } else {
        try {
          // Revoking the refresh token ends the whole grant, its access tokens included.
          const token = row.refresh_token_sealed ? await openToken(row, 'refresh_token') : await openToken(row, 'access_token');
          const response = await outbound.request({
            method: 'POST',
            url: provider.revokeUrl,
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
            body: new URLSearchParams({ token }).toString(),
          });
          let code = '';
          try {
            code = String((JSON.parse(response.text()) as { error?: unknown }).error ?? '');
          } catch {
            // judged by the status
          }
          if (response.status === 200) revoked = true;
          // invalid_token: the grant was already revoked or expired, so nothing remains to revoke.
          else if (response.status === 400 && code === 'invalid_token') revoked = true;
          else revokeError = `${provider.label} answered ${response.status}${code ? ` (${code})` : ''} to the revocation`;
        } catch (error) {
          revokeError = `${provider.label} could not be reached to revoke the grant (${error instanceof Error ? error.message : String(error)})`;
        }
      }
      if (revokeError) {
        revokeError += provider.id === 'google' ? '; to be sure, remove Hearth at https://myaccount.google.com/permissions' : '';
      }
      await repo.deleteConnection(ownerId, provider.id);
      await audit.record(actor, {
        action: 'oauth.disconnect',
        outcome: 'success',
        targetType: 'oauth_connection',
        targetId: provider.id,
        details: { provider: provider.id, account: row.account_email, revoked, ...(revokeError ? { revokeError } : {}) },
      });
      return { provider: provider.id, disconnected: true, revoked, revokeError };
    },

    /**
     * A usable access token for the owner's connection, refreshed first when it has expired or
     * expires within the margin. Concurrent callers share one refresh per connection; on
     * PostgreSQL the row lock extends that to every node. A refused refresh token marks the
     * connection `needs_reauth` and answers 403 PROVIDER_NOT_CONNECTED.
     */
    async accessToken(ownerId: string, service: string, options: AccessTokenOptions = {}): Promise<AccessTokenResult> {
      const provider = configured(service);
      const row = await repo.getConnection(ownerId, provider.id);
      if (!row) throw notConnected(provider);
      if (row.status === 'needs_reauth') throw needsReauth(provider, row.last_error);
      if (isFresh(row)) {
        const current = await openToken(row, 'access_token');
        if (options.rejected === undefined || options.rejected !== current) return resultOf(row, current);
        // The provider refused the stored token before its time: refresh it now.
        return refreshOnce(provider, ownerId, row.token_version);
      }
      return refreshOnce(provider, ownerId, row.token_version);
    },

    providerIds(): string[] {
      return [...providers.keys()];
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
