import { randomBytes } from 'node:crypto';
import type { Scope } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { constantTimeEqual } from '../../lib/crypto.js';
import { isoIn, isoNow, isPast } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { AuthorizationClientsTable, AuthorizationTables } from './authorization.tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { ClientDirectory } from './authorization.clients.js';
import { redirectUrisOf, requestedScopesOf } from './authorization.repo.js';
import { AuthorizationPageError, OAuthProtocolError } from './authorization.errors.js';
import { ConsentRetry, DEFAULT_SCOPES, EXPIRED_OR_ANSWERED, parseScopes, REQUEST_TTL_MS, sha256, randomValue, type AuthorizationProtocol } from './authorization.protocol.js';
import type { AuthorizationRepo } from './authorization.repo.js';

/** A client registered this recently is pointed out on the consent page. */
const NEW_CLIENT_MS = 24 * 3_600_000;

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** What the consent page shows the owner. */
export interface ConsentView {
  requestId: string;
  csrf: string;
  /** Where the approved browser goes: the consent page's policy lets its form lead there and nowhere else. */
  redirectOrigin: string;
  client: {
    id: string;
    name: string;
    redirectHost: string;
    registeredAt: string;
    newlyRegistered: boolean;
    knownBy: 'registration' | 'metadata document';
    /** Where a metadata document client's description is published (its client_id's host). */
    documentHost: string | null;
  };
  requestedScopes: Scope[];
}

/**
 * A redirect URI's origin as a policy source: `https://host:port`, or the scheme of an app's
 * own URI (`cursor:`). A policy cannot name an IPv6 address, so `http://[::1]:port` is allowed
 * as `http:` (for this one page of this one request).
 */
function originOf(uri: string): string {
  const url = new URL(uri);
  if (url.hostname.startsWith('[')) return url.protocol;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/** What the consent page shows of a request: the client, where the browser goes, the scopes asked for. */
function consentView(requestId: string, csrf: string, client: AuthorizationClientsTable, redirectUri: string, requestedScopes: Scope[]): ConsentView {
  const redirect = new URL(redirectUri);
  return {
    requestId,
    csrf,
    client: {
      id: client.id,
      name: client.name,
      redirectHost: redirect.host || redirect.protocol,
      registeredAt: client.created_at,
      newlyRegistered: Date.now() - Date.parse(client.created_at) < NEW_CLIENT_MS,
      knownBy: client.kind === 'registered' ? 'registration' : 'metadata document',
      documentHost: client.kind === 'metadata_document' ? new URL(client.id).host : null,
    },
    requestedScopes,
    redirectOrigin: originOf(redirectUri),
  };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether a requested redirect URI is one the client registered: exactly, or (RFC 8252 §7.3,
 * OAuth 2.1 §8.4.2) an http loopback URI that differs only in its port, which a native app
 * picks when it starts listening.
 */
export function redirectMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (asked.protocol !== 'http:' || !LOOPBACK_HOSTS.has(asked.hostname)) return false;
  return registered.some((uri) => {
    const known = new URL(uri);
    return known.protocol === 'http:' && known.hostname === asked.hostname && known.pathname === asked.pathname && known.search === asked.search;
  });
}

export interface ConsentDeps {
  db: Executor<AuthorizationTables>;
  repo: Pick<AuthorizationRepo, 'getClient' | 'getRequest' | 'useRequest' | 'insertRequest' | 'purgeExpired'>;
  clients: Pick<ClientDirectory, 'resolve'>;
  accounts: Pick<AccountsService, 'verifyCredentials'>;
  audit: Pick<AuditService, 'record'>;
  protocol: AuthorizationProtocol;
}

/** The consent page: an authorization request checked and opened, shown again, and the owner's answer on it. */
export function createConsent(deps: ConsentDeps) {
  const { db, repo, clients, audit, protocol } = deps;
  const { redirectWith } = protocol;
  // Annotated so that TypeScript knows a call to it does not return (it narrows after `never` only then).
  const refuse: AuthorizationProtocol['refuse'] = protocol.refuse;

  return {
    /**
     * Checks an authorization request and opens it for the owner's consent. Until the client and
     * its redirect URI are verified, errors are pages (sending the browser to an unverified
     * address would be an open redirect); after that they go back to the client.
     */
    async begin(query: Record<string, string | undefined>): Promise<ConsentView> {
      const clientId = query.client_id;
      if (!clientId) throw new AuthorizationPageError('The request names no client (client_id is missing). Start again from the app that sent you here.');
      let client: AuthorizationClientsTable | undefined;
      try {
        client = await clients.resolve(clientId);
      } catch (error) {
        throw new AuthorizationPageError(error instanceof OAuthProtocolError ? error.description : `The client ${clientId} could not be checked`);
      }
      if (!client) throw new AuthorizationPageError(`No client ${clientId} is registered here. Start again from the app that sent you here.`);
      const registered = redirectUrisOf(client);
      const redirectUri = query.redirect_uri ?? (registered.length === 1 ? registered[0] : undefined);
      if (!redirectUri || !redirectMatches(registered, redirectUri)) {
        throw new AuthorizationPageError(`The address this request wants to return to is not one ${client.name} registered, so Hearth will not send you there.`);
      }
      const state = query.state;
      if (state !== undefined && state.length > 1000) refuse(redirectUri, undefined, 'invalid_request', 'state is longer than 1000 characters');
      if (query.response_type !== 'code') refuse(redirectUri, state, 'unsupported_response_type', 'Only response_type=code is supported');
      if (!query.code_challenge) refuse(redirectUri, state, 'invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256');
      if (query.code_challenge_method !== 'S256') refuse(redirectUri, state, 'invalid_request', 'Only code_challenge_method=S256 is supported');
      if (!PKCE_CHALLENGE.test(query.code_challenge)) refuse(redirectUri, state, 'invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
      const resource = protocol.canonicalResource(query.resource);
      if (!resource) refuse(redirectUri, state, 'invalid_target', `This server issues tokens for ${protocol.mcpResource} only, not ${query.resource}`);
      const requested = parseScopes(query.scope);
      // What expired a day ago can no longer be used: each new request clears it away.
      await repo.purgeExpired(new Date(Date.now() - 24 * 3_600_000).toISOString());
      const csrf = randomValue('');
      const requestId = `azr_${randomBytes(16).toString('base64url')}`;
      await repo.insertRequest({
        id: requestId,
        client_id: client.id,
        redirect_uri: redirectUri,
        state: state ?? null,
        code_challenge: query.code_challenge,
        scopes: JSON.stringify(requested.length > 0 ? requested : DEFAULT_SCOPES),
        resource,
        csrf_hash: sha256(csrf),
        created_at: isoNow(),
        expires_at: isoIn(REQUEST_TTL_MS),
        used_at: null,
        console_email_hash: null,
        owner_id: null,
        wait_hash: null,
        decision: null,
        granted_scopes: null,
        decided_at: null,
      });
      return consentView(requestId, csrf, client, redirectUri, requested.length > 0 ? requested : DEFAULT_SCOPES);
    },

    /** The view of a request still open, to show the consent page again (after a wrong password). */
    async reopen(requestId: string, csrf: string): Promise<ConsentView> {
      const request = await repo.getRequest(requestId);
      if (!request || request.used_at || isPast(request.expires_at) || !constantTimeEqual(sha256(csrf), request.csrf_hash)) {
        throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
      }
      const client = await repo.getClient(request.client_id);
      if (!client) throw new AuthorizationPageError('The client of this request is gone.');
      return consentView(requestId, csrf, client, request.redirect_uri, requestedScopesOf(request));
    },

    /**
     * The owner's answer on the consent page. Answers where the browser goes next (the client's
     * redirect URI with a code, or with access_denied); throws a page error for a form that is
     * not this request's (CSRF), and `ConsentRetry` for a wrong password or no scope chosen.
     */
    async decide(
      form: { requestId: string; csrf: string; decision: string; email?: string | undefined; password?: string | undefined; scopes: string[] },
      actor: AuditActor,
    ): Promise<string> {
      const request = await repo.getRequest(form.requestId);
      if (!request || !constantTimeEqual(sha256(form.csrf), request.csrf_hash)) {
        throw new AuthorizationPageError('This form does not belong to a consent page Hearth showed you; nothing was approved.');
      }
      if (request.used_at || isPast(request.expires_at)) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
      const client = await repo.getClient(request.client_id);
      if (!client) throw new AuthorizationPageError('The client of this request is gone.');
      const state = request.state ?? undefined;
      if (form.decision !== 'approve') {
        if (!(await repo.useRequest(request.id, isoNow()))) throw new AuthorizationPageError('This authorization request was already answered.');
        await audit.record(actor, { action: 'oauth.authorize', outcome: 'denied', targetType: 'oauth_client', targetId: client.id, details: { clientName: client.name } });
        return redirectWith(request.redirect_uri, { error: 'access_denied', error_description: 'The owner denied the request', state });
      }
      const scopes = parseScopes(form.scopes.join(' '));
      if (scopes.length === 0) throw new ConsentRetry('Choose at least one thing the app may do.');
      if (!form.email || !form.password) throw new ConsentRetry('Sign in with your Hearth email and password to approve.');
      const ownerId = await deps.accounts.verifyCredentials({ email: form.email, password: form.password }, actor, 'oauth.consent_sign_in').catch((error: unknown) => {
        // The right password of a disabled account: the page says why, in its own words.
        throw error instanceof AppError && error.code === 'ACCOUNT_DISABLED' ? new ConsentRetry(error.message) : error;
      });
      if (!ownerId) throw new ConsentRetry('Wrong email or password.');
      return db.transaction().execute(async (trx) => {
        const location = await protocol.grantCode(request, ownerId, scopes, trx);
        if (!location) throw new AuthorizationPageError('This authorization request was already answered.');
        await audit.record(
          { ...actor, ownerId },
          { action: 'oauth.authorize', outcome: 'success', targetType: 'oauth_client', targetId: client.id, details: { clientName: client.name, scopes, requestedScopes: requestedScopesOf(request) } },
          trx,
        );
        return location;
      });
    },
  };
}
