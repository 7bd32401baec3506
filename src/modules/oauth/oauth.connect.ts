import { createHash, randomBytes } from 'node:crypto';
import { AppError, InputError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import { TokenEndpointError, grantedScopes, lifetimeSeconds, type OAuthClient, type TokenResponse } from './oauth.client.js';
import { authorizePath, base64url, configuredProvider, knownProvider, parseScopes, sha256Hex } from './oauth.common.js';
import type { OAuthProviderDefinition, OAuthProviderRegistry } from './oauth.providers.js';
import type { OAuthRepo, StateRow } from './oauth.repo.js';
import type { Authorization } from './oauth.schemas.js';
import type { OAuthSealing } from './oauth.sealing.js';

/**
 * What the provider sent the browser back with. Errors about it name these fields; the route
 * says where in the request they were.
 */
export interface ProviderAnswer {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  errorDescription?: string | undefined;
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

export interface ConnectFlowDeps {
  repo: Pick<OAuthRepo, 'deleteExpiredStates' | 'insertState' | 'findPendingState' | 'bindState' | 'consumeState' | 'getConnection' | 'upsertConnection'>;
  providers: OAuthProviderRegistry;
  sealing: OAuthSealing;
  client: Pick<OAuthClient, 'redirectUri' | 'exchangeCode' | 'exchangeFailure' | 'accountOf'>;
  audit: Pick<AuditService, 'record'>;
  publicBaseUrl: string;
  /** The account behind a flow: its address (shown where the owner signs in) and its password check. */
  owners: {
    emailOf(ownerId: string): Promise<string | null>;
    confirmPassword(ownerId: string, password: string, actor: AuditActor): Promise<boolean>;
  };
  stateTtlMs: number;
}

/**
 * The connect flow: an authorization link, Hearth's connect page where the flow's owner signs
 * in (binding the flow to that browser), the provider's consent, and the callback that spends
 * the state and stores the tokens sealed.
 */
export function createConnectFlow(deps: ConnectFlowDeps) {
  const { repo, providers, sealing, client, audit, stateTtlMs } = deps;
  const configured = (service: string) => configuredProvider(providers, service);
  const connectPath = (provider: string) => `/api/v1/oauth/connect/${provider}`;
  // One cookie per flow (named after its state's hash), so flows in two tabs do not collide.
  const bindingCookieName = (stateId: string) => `hearth_oauth_${stateId.slice(0, 16)}`;
  // The browser sends the cookie only to the callback's path as the browser sees it, so under a
  // PUBLIC_BASE_URL with a path (behind a proxy) that path leads.
  const secureCookies = deps.publicBaseUrl.startsWith('https:');
  function bindingCookie(provider: OAuthProviderDefinition, stateId: string, value: string, maxAgeSeconds: number): BrowserBindingCookie {
    return { name: bindingCookieName(stateId), value, path: new URL(client.redirectUri(provider)).pathname, maxAgeSeconds, secure: secureCookies };
  }

  function unusableState(provider: OAuthProviderDefinition): AppError {
    return new InputError(
      'state',
      'is unknown, used or expired',
      `This authorization link is unknown, already used or expired (links last ${Math.round(stateTtlMs / 60_000)} minutes and work once): start again with ${authorizePath(provider.id)}`,
    );
  }

  /** The provider's consent address for a flow; the PKCE challenge is derived from its sealed verifier. */
  async function providerAuthorizeUrl(provider: OAuthProviderDefinition, state: string, row: Pick<StateRow, 'id' | 'owner_id' | 'verifier_sealed' | 'redirect_uri'>): Promise<string> {
    const verifier = await sealing.openVerifier(row.owner_id, row.id, row.verifier_sealed);
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

  async function recordConnect(actor: AuditActor, provider: OAuthProviderDefinition, outcome: 'success' | 'failure' | 'denied', details: Record<string, unknown>) {
    await audit.record(actor, { action: 'oauth.connect', outcome, targetType: 'oauth_connection', targetId: provider.id, details: { provider: provider.id, ...details } });
  }

  /** Stores a connection's tokens sealed; a reconnection replaces the tokens it had. */
  async function storeConnection(provider: OAuthProviderDefinition, ownerId: string, tokens: TokenResponse, scopes: string[], account: { email: string | null; id: string | null }) {
    const existing = await repo.getConnection(ownerId, provider.id);
    const now = isoNow();
    await repo.upsertConnection({
      id: existing?.id ?? newId('oac'),
      owner_id: ownerId,
      provider: provider.id,
      account_email: account.email,
      account_id: account.id,
      scopes: JSON.stringify(scopes),
      access_token_sealed: await sealing.sealToken(ownerId, provider.id, 'access_token', tokens.access_token),
      // Without a new refresh token a reconnection of the same account keeps the one it had.
      refresh_token_sealed: tokens.refresh_token
        ? await sealing.sealToken(ownerId, provider.id, 'refresh_token', tokens.refresh_token)
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
      refresh_lease: null,
      refresh_lease_until: null,
    });
  }

  return {
    /**
     * Starts a flow: a single-use state bound to the owner, valid for the state lifetime. The
     * answered url is Hearth's connect page, where the owner signs in before going on to the
     * provider, which binds the flow to that browser.
     */
    async authorize(ownerId: string, service: string): Promise<Authorization> {
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
        verifier_sealed: await sealing.sealVerifier(ownerId, stateId, verifier),
        redirect_uri: client.redirectUri(provider),
        scopes: JSON.stringify(provider.scopes),
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
        browser_binding: null,
      });
      const url = new URL(`${deps.publicBaseUrl}${connectPath(provider.id)}`);
      url.searchParams.set('state', state);
      return { url: url.toString(), provider: provider.id, redirectUri: client.redirectUri(provider), expiresAt };
    },

    /** What the connect page shows before the owner signs in: the provider and the Hearth account. */
    async connectPage(service: string, state: string): Promise<{ provider: string; label: string; account: string | null; formAction: string }> {
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
      return bindingCookie(knownProvider(providers, service), sha256Hex(state), '', 0);
    },

    /**
     * The provider's redirect: checks and spends the state, exchanges the code with the PKCE
     * verifier, and stores the tokens sealed. `actor` is the request's (the browser carries no token).
     */
    async callback(
      service: string,
      answer: ProviderAnswer,
      cookies: Record<string, string>,
      actorOf: (ownerId: string) => AuditActor,
    ): Promise<{ provider: string; label: string; account: string | null; scopes: string[] }> {
      const provider = configured(service);
      if (!answer.state) {
        throw new InputError('state', 'is required', `The callback has no state: open the url answered by ${authorizePath(provider.id)} to connect`);
      }
      const stateId = sha256Hex(answer.state);
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
      if (answer.error) {
        await recordConnect(actor, provider, 'denied', { error: answer.error });
        const declined = answer.error === 'access_denied';
        throw new AppError(
          'VALIDATION_ERROR',
          declined
            ? `${provider.label} access was not granted (the consent screen was declined): nothing was connected. To connect, start again with ${authorizePath(provider.id)}`
            : `${provider.label} answered an error instead of a code (${answer.error}${answer.errorDescription ? `: ${answer.errorDescription}` : ''}): nothing was connected. Start again with ${authorizePath(provider.id)}`,
          { details: { provider: provider.id, error: answer.error } },
        );
      }
      if (!answer.code) {
        throw new InputError('code', 'is required', `The callback has no code: start again with ${authorizePath(provider.id)}`);
      }
      const verifier = await sealing.openVerifier(state.owner_id, state.id, state.verifier_sealed);
      let tokens: TokenResponse;
      try {
        tokens = await client.exchangeCode(provider, answer.code, state.redirect_uri, verifier);
      } catch (error) {
        const failure = client.exchangeFailure(provider, error);
        await recordConnect(actor, provider, 'failure', { error: error instanceof TokenEndpointError ? error.code : failure.code });
        throw failure;
      }
      const scopes = grantedScopes(tokens, parseScopes(state.scopes));
      const account = await client.accountOf(provider, tokens);
      await storeConnection(provider, state.owner_id, tokens, scopes, account);
      await recordConnect(actor, provider, 'success', { account: account.email, scopes });
      return { provider: provider.id, label: provider.label, account: account.email, scopes };
    },
  };
}
