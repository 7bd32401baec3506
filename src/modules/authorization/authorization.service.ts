import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { SCOPE_NAMES, type Scope } from '../../http/access.js';
import { AppError, notFound } from '../../http/errors.js';
import { constantTimeEqual, hashToken } from '../../lib/crypto.js';
import { isoIn, isoNow, isPast } from '../../lib/time.js';
import type { AuthorizationClientsTable, AuthorizationCodesTable, AuthorizationRequestsTable, Database } from '../../storage/tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import type { TokensService } from '../tokens/tokens.service.js';
import { redirectUrisOf, type ClientDirectory } from './authorization.clients.js';
import { AuthorizationPageError, AuthorizationRedirect, OAuthProtocolError } from './authorization.errors.js';
import type { AuthorizationRepo } from './authorization.repo.js';

/** An access token lives an hour; its client renews it with the refresh token. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A refresh token not used for 30 days expires; each use gives a new one. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3_600_000;
/** A code must be exchanged within a minute, once. */
export const CODE_TTL_MS = 60_000;
/** The owner has ten minutes to answer the consent page. */
export const REQUEST_TTL_MS = 10 * 60_000;
/** A client registered this recently is pointed out on the consent page. */
const NEW_CLIENT_MS = 24 * 3_600_000;

/**
 * Requests one email address may keep waiting for a console decision. A newer one ends the
 * oldest (its waiting page then reads expired), counted by email whether or not an account has
 * it, so that the bound says nothing about which emails exist.
 */
export const CONSOLE_WAITING_PER_EMAIL = 10;
/** Requests the owner's list shows at most (each email keeps at most CONSOLE_WAITING_PER_EMAIL). */
const CONSOLE_LIST_LIMIT = 100;
/** How often the waiting page refreshes itself, in seconds. */
export const WAIT_REFRESH_SECONDS = 3;

/** The scopes the protected resource suggests when a client asks for none. */
export const DEFAULT_SCOPES: Scope[] = ['read'];

const sha256 = (value: string) => hashToken(value);
const randomValue = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
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

export interface AuthorizationServerDeps {
  db: Kysely<Database>;
  repo: AuthorizationRepo;
  clients: ClientDirectory;
  tokens: Pick<TokensService, 'createForClient' | 'renewForClient' | 'revoke' | 'authenticate' | 'get'>;
  accounts: Pick<AccountsService, 'verifyCredentials' | 'findIdByEmail' | 'normaliseEmail'>;
  audit: Pick<AuditService, 'record'>;
  publicBaseUrl: string;
  /** Told, after each commit, of requests sent to a console and of the owner's decisions there. */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/** A request waiting in the owner's console, as the owner's API shows it. */
export interface ConsoleRequestView {
  id: string;
  client: { id: string; name: string; redirectHost: string };
  requestedScopes: Scope[];
  status: 'pending' | 'approved' | 'denied';
  grantedScopes: Scope[] | null;
  createdAt: string;
  expiresAt: string;
}

/** What the waiting page shows while the owner has not decided yet. */
export interface WaitingView {
  clientName: string;
  redirectHost: string;
  /** The page's own address (with its wait secret), which it refreshes to. */
  refreshPath: string;
  expiresAt: string;
}

/** The waiting page's next step: show it again, or send the browser on (to the client, with a code or a denial). */
export type WaitOutcome = { kind: 'waiting'; view: WaitingView } | { kind: 'redirect'; location: string };

/** Client credentials as sent: HTTP Basic, or client_id (and client_secret) in the form. */
export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
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

function redirectHostOf(redirectUri: string): string {
  const redirect = new URL(redirectUri);
  return redirect.host || redirect.protocol;
}

function waitPath(requestId: string, secret: string): string {
  return `/authorize/wait?${new URLSearchParams({ request_id: requestId, wait: secret }).toString()}`;
}

const EXPIRED_OR_ANSWERED = 'This authorization request expired or was already answered. Start again from the app that sent you here.';

function parseScopes(value: string | undefined): Scope[] {
  const known = new Set<string>(SCOPE_NAMES);
  // Names this server does not have (openid, offline_access, …) are left out, not refused:
  // the owner picks the scopes on the consent page anyway.
  return [...new Set((value ?? '').split(/\s+/).filter((name) => known.has(name)))] as Scope[];
}

export function createAuthorizationServer(deps: AuthorizationServerDeps) {
  const { db, repo, clients, tokens, audit } = deps;
  const publish = (ownerId: string, event: Parameters<EventsBus['publish']>[1]) => deps.events?.publish(ownerId, event);
  const issuer = deps.publicBaseUrl;
  const mcpResource = `${issuer}/mcp`;

  /** The resources a token may be bound to: the MCP endpoint, or the server as a whole. */
  function canonicalResource(value: string | undefined): string | undefined {
    if (value === undefined || value === '') return mcpResource;
    const trimmed = value.replace(/\/+$/, '');
    return trimmed === mcpResource || trimmed === issuer ? trimmed : undefined;
  }

  function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
    const url = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) if (value != null) url.searchParams.set(key, value);
    // RFC 9207: the answer names its issuer, so a client talking to several servers cannot be confused.
    url.searchParams.set('iss', issuer);
    return url.toString();
  }

  function refuse(redirectUri: string, state: string | undefined, error: string, description: string): never {
    throw new AuthorizationRedirect(redirectWith(redirectUri, { error, error_description: description, state }));
  }

  /** Authenticates the client at the token and revocation endpoints. */
  async function authenticateClient(credentials: ClientCredentials): Promise<AuthorizationClientsTable> {
    if (!credentials.clientId) throw new OAuthProtocolError(401, 'invalid_client', 'client_id is required (in the form, or with HTTP Basic authentication)');
    const client = await repo.getClient(credentials.clientId);
    if (!client) throw new OAuthProtocolError(401, 'invalid_client', `No client ${credentials.clientId} is known here; register it first`);
    if (client.auth_method !== 'none') {
      if (!credentials.clientSecret || !client.secret_hash || !constantTimeEqual(sha256(credentials.clientSecret), client.secret_hash)) {
        throw new OAuthProtocolError(401, 'invalid_client', 'The client secret is missing or wrong');
      }
    }
    return client;
  }

  /** Ends a grant: its token is revoked and none of its refresh tokens renews it again. */
  async function endGrant(ownerId: string, tokenId: string, actor: AuditActor): Promise<void> {
    await repo.spendGrant(tokenId, isoNow());
    await tokens.revoke(ownerId, tokenId, actor).catch(() => undefined);
  }

  async function issue(code: AuthorizationCodesTable, client: AuthorizationClientsTable, actor: AuditActor) {
    return db.transaction().execute(async (trx) => {
      if (!(await repo.useCode(code.id, isoNow(), trx))) return undefined;
      const scopes = JSON.parse(code.scopes) as Scope[];
      const issued = await tokens.createForClient(
        code.owner_id,
        { clientId: client.id, clientName: client.name, scopes, expiresAt: isoIn(ACCESS_TOKEN_TTL_SECONDS * 1000) },
        trx,
      );
      await repo.setCodeToken(code.id, issued.record.id, trx);
      const refreshToken = randomValue('hrt_');
      await repo.insertRefreshToken(
        { id: sha256(refreshToken), owner_id: code.owner_id, token_id: issued.record.id, client_id: client.id, created_at: isoNow(), expires_at: isoIn(REFRESH_TOKEN_TTL_MS), used_at: null },
        trx,
      );
      await audit.record(
        actor,
        { action: 'oauth.token_issue', outcome: 'success', targetType: 'token', targetId: issued.record.id, details: { clientId: client.id, clientName: client.name, scopes, resource: code.resource } },
        trx,
      );
      return { access_token: issued.secret, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refreshToken, scope: scopes.join(' ') };
    });
  }

  /**
   * The one way an approval becomes a code, whichever way the owner approved (password on the
   * consent page, or the console): spends the request once, while it is valid, and stores the
   * code. Answers the client's redirect with the code, or undefined when the request was spent
   * or expired meanwhile (the caller's transaction then stores nothing).
   */
  async function grantCode(request: AuthorizationRequestsTable, ownerId: string, scopes: Scope[], trx: Transaction<Database>): Promise<string | undefined> {
    const at = isoNow();
    if (!(await repo.useRequest(request.id, at, trx))) return undefined;
    const code = randomValue('hac_');
    await repo.insertCode(
      {
        id: sha256(code),
        owner_id: ownerId,
        client_id: request.client_id,
        redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge,
        scopes: JSON.stringify(scopes),
        resource: request.resource,
        created_at: at,
        expires_at: isoIn(CODE_TTL_MS),
        used_at: null,
        token_id: null,
      },
      trx,
    );
    return redirectWith(request.redirect_uri, { code, state: request.state ?? undefined });
  }

  function consoleView(request: AuthorizationRequestsTable, client: AuthorizationClientsTable | undefined): ConsoleRequestView {
    return {
      id: request.id,
      client: { id: request.client_id, name: client?.name ?? request.client_id, redirectHost: redirectHostOf(request.redirect_uri) },
      requestedScopes: JSON.parse(request.scopes) as Scope[],
      status: request.decision ?? 'pending',
      grantedScopes: request.granted_scopes ? (JSON.parse(request.granted_scopes) as Scope[]) : null,
      createdAt: request.created_at,
      expiresAt: request.expires_at,
    };
  }

  /**
   * Records the owner's console decision on a request of theirs, once. Another owner's request
   * is not found; one already decided, answered on the consent page or expired is a conflict.
   */
  async function decideInConsole(ownerId: string, id: string, decision: 'approved' | 'denied', scopes: Scope[] | null, actor: AuditActor): Promise<ConsoleRequestView> {
    const request = await repo.getOwned(ownerId, id);
    if (!request) throw notFound('Authorization request', id);
    const client = await repo.getClient(request.client_id);
    const at = isoNow();
    if (!(await repo.decideInConsole(ownerId, id, { decision, grantedScopes: scopes ? JSON.stringify(scopes) : null }, at))) {
      const current = (await repo.getOwned(ownerId, id)) ?? request;
      if (current.decision) throw new AppError('CONFLICT', `Authorization request ${id} was already ${current.decision}`);
      if (current.used_at) throw new AppError('CONFLICT', `Authorization request ${id} was already answered on the consent page`);
      throw new AppError('CONFLICT', `Authorization request ${id} expired without a decision; the app must ask again`);
    }
    const clientName = client?.name ?? request.client_id;
    await audit.record(actor, {
      action: 'oauth.authorize',
      outcome: decision === 'approved' ? 'success' : 'denied',
      targetType: 'oauth_client',
      targetId: request.client_id,
      details: { clientName, requestId: id, via: 'console', requestedScopes: JSON.parse(request.scopes), ...(scopes ? { scopes } : {}) },
    });
    publish(ownerId, { type: 'authorization.decided', data: { requestId: id, clientId: request.client_id, clientName, decision } });
    return consoleView({ ...request, decision, granted_scopes: scopes ? JSON.stringify(scopes) : null, decided_at: at }, client);
  }

  return {
    /** RFC 7591 registration, recorded in the server's log (no owner is known yet). */
    async registerClient(body: Record<string, unknown>, actor: AuditActor) {
      const registered = await clients.register(body);
      await audit.record(
        { ...actor, ownerId: null, tokenId: null },
        { action: 'oauth.client_register', outcome: 'success', targetType: 'oauth_client', targetId: registered.client_id, details: { clientName: registered.client_name, redirectUris: registered.redirect_uris } },
      );
      return registered;
    },

    /** RFC 8414 authorization-server metadata. */
    metadata() {
      return {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        revocation_endpoint: `${issuer}/revoke`,
        scopes_supported: [...SCOPE_NAMES],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        service_documentation: `${issuer}/llms.txt`,
      };
    },

    /** RFC 9728 protected-resource metadata of the MCP endpoint. */
    protectedResource() {
      return {
        resource: mcpResource,
        authorization_servers: [issuer],
        scopes_supported: [...SCOPE_NAMES],
        bearer_methods_supported: ['header'],
        resource_name: 'Hearth',
        resource_documentation: `${issuer}/llms.txt`,
      };
    },

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
      const resource = canonicalResource(query.resource);
      if (!resource) refuse(redirectUri, state, 'invalid_target', `This server issues tokens for ${mcpResource} only, not ${query.resource}`);
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
        throw new AuthorizationPageError('This authorization request expired or was already answered. Start again from the app that sent you here.');
      }
      const client = await repo.getClient(request.client_id);
      if (!client) throw new AuthorizationPageError('The client of this request is gone.');
      return consentView(requestId, csrf, client, request.redirect_uri, JSON.parse(request.scopes) as Scope[]);
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
      if (request.used_at || isPast(request.expires_at)) {
        throw new AuthorizationPageError('This authorization request expired or was already answered. Start again from the app that sent you here.');
      }
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
      const ownerId = await deps.accounts.verifyCredentials({ email: form.email, password: form.password }, actor, 'oauth.consent_sign_in');
      if (!ownerId) throw new ConsentRetry('Wrong email or password.');
      return db.transaction().execute(async (trx) => {
        const location = await grantCode(request, ownerId, scopes, trx);
        if (!location) throw new AuthorizationPageError('This authorization request was already answered.');
        await audit.record(
          { ...actor, ownerId },
          { action: 'oauth.authorize', outcome: 'success', targetType: 'oauth_client', targetId: client.id, details: { clientName: client.name, scopes, requestedScopes: JSON.parse(request.scopes) } },
          trx,
        );
        return location;
      });
    },

    /**
     * "Approve from my Hearth console": the request goes to the console of the account with this
     * email, and the browser waits on a page of its own (answered by its address, with a fresh
     * secret). An email no account has is treated exactly alike, from the outside: the request
     * then simply waits until it expires. Answers the waiting page's address.
     */
    async sendToConsole(form: { requestId: string; csrf: string; email?: string | undefined }): Promise<string> {
      const request = await repo.getRequest(form.requestId);
      if (!request || !constantTimeEqual(sha256(form.csrf), request.csrf_hash)) {
        throw new AuthorizationPageError('This form does not belong to a consent page Hearth showed you; nothing was sent.');
      }
      if (request.used_at || isPast(request.expires_at)) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
      const email = form.email?.trim() ?? '';
      if (!email || email.length > 320 || !email.includes('@')) throw new ConsentRetry('Enter the email of your Hearth account to send this request to your console.');
      const client = await repo.getClient(request.client_id);
      if (!client) throw new AuthorizationPageError('The client of this request is gone.');
      const ownerId = (await deps.accounts.findIdByEmail(email)) ?? null;
      const emailHash = sha256(deps.accounts.normaliseEmail(email));
      const secret = randomValue('');
      const at = isoNow();
      if (!(await repo.sendToConsole(request.id, { consoleEmailHash: emailHash, ownerId, waitHash: sha256(secret) }, at))) {
        throw new AuthorizationPageError('This request was already sent to a console, answered, or it expired. Start again from the app that sent you here.');
      }
      await repo.expireOldestWaiting(emailHash, CONSOLE_WAITING_PER_EMAIL, at);
      // Nothing more is stored or awaited for a known email than for an unknown one, so neither
      // the answer nor its timing tells them apart; the owner's decision is what the log records.
      if (ownerId) {
        const requestedScopes = JSON.parse(request.scopes) as Scope[];
        publish(ownerId, { type: 'authorization.requested', data: { requestId: request.id, clientId: client.id, clientName: client.name, requestedScopes } });
      }
      return waitPath(request.id, secret);
    },

    /**
     * The waiting page's refresh: still waiting, or the owner's console decision carried out now.
     * An approval becomes a code here, through the same path as the consent page's approval,
     * exactly once however many refreshes arrive together.
     */
    async wait(requestId: string, secret: string): Promise<WaitOutcome> {
      const request = await repo.getRequest(requestId);
      if (!request || !request.wait_hash || !constantTimeEqual(sha256(secret), request.wait_hash)) {
        throw new AuthorizationPageError('This waiting page is not one Hearth showed you. Start again from the app that sent you here.');
      }
      if (request.used_at) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
      if (request.decision === 'approved' && request.owner_id && request.granted_scopes) {
        const { owner_id: ownerId, granted_scopes: granted } = request;
        const location = await db.transaction().execute(async (trx) => grantCode(request, ownerId, JSON.parse(granted) as Scope[], trx));
        if (!location) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
        return { kind: 'redirect', location };
      }
      if (request.decision === 'denied') {
        if (!(await repo.useRequest(request.id, isoNow()))) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
        return { kind: 'redirect', location: redirectWith(request.redirect_uri, { error: 'access_denied', error_description: 'The owner denied the request', state: request.state ?? undefined }) };
      }
      if (isPast(request.expires_at)) throw new AuthorizationPageError('Nobody answered this request in the Hearth console in time, so it expired. Start again from the app that sent you here.');
      const client = await repo.getClient(request.client_id);
      return {
        kind: 'waiting',
        view: { clientName: client?.name ?? request.client_id, redirectHost: redirectHostOf(request.redirect_uri), refreshPath: waitPath(request.id, secret), expiresAt: request.expires_at },
      };
    },

    /** The owner's requests waiting in the console for a decision, oldest first. */
    async listConsoleRequests(ownerId: string): Promise<ConsoleRequestView[]> {
      const rows = await repo.listWaiting(ownerId, isoNow(), CONSOLE_LIST_LIMIT);
      const known = new Map((await repo.getClients([...new Set(rows.map((row) => row.client_id))])).map((client) => [client.id, client]));
      return rows.map((row) => consoleView(row, known.get(row.client_id)));
    },

    /** Approves in the console, with the requested scopes or those the owner chose (more or fewer). */
    async approveConsoleRequest(ownerId: string, id: string, input: { scopes?: Scope[] | undefined }, actor: AuditActor): Promise<ConsoleRequestView> {
      const request = await repo.getOwned(ownerId, id);
      if (!request) throw notFound('Authorization request', id);
      const scopes = input.scopes ? [...new Set(input.scopes)] : (JSON.parse(request.scopes) as Scope[]);
      return decideInConsole(ownerId, id, 'approved', scopes, actor);
    },

    async denyConsoleRequest(ownerId: string, id: string, actor: AuditActor): Promise<ConsoleRequestView> {
      return decideInConsole(ownerId, id, 'denied', null, actor);
    },

    /** The token endpoint: a code for a grant, or a refresh token for the grant's next access token. */
    async token(form: Record<string, string | undefined>, credentials: ClientCredentials, actor: AuditActor) {
      const client = await authenticateClient(credentials);
      if (form.grant_type === 'authorization_code') {
        if (!form.code || !form.code_verifier || !form.redirect_uri) {
          throw new OAuthProtocolError(400, 'invalid_request', 'code, code_verifier and redirect_uri are required');
        }
        const code = await repo.getCode(sha256(form.code));
        if (!code || code.client_id !== client.id) throw new OAuthProtocolError(400, 'invalid_grant', 'The code is unknown or was issued to another client');
        if (code.used_at) {
          // A code presented twice was seen by someone else: the grant it made is ended (RFC 6749 §4.1.2).
          if (code.token_id) await endGrant(code.owner_id, code.token_id, { ...actor, ownerId: code.owner_id });
          await audit.record({ ...actor, ownerId: code.owner_id }, { action: 'oauth.code_replay', outcome: 'denied', targetType: 'oauth_client', targetId: client.id, details: { tokenId: code.token_id } });
          throw new OAuthProtocolError(400, 'invalid_grant', 'The code was already used; the token it gave is revoked');
        }
        if (isPast(code.expires_at)) throw new OAuthProtocolError(400, 'invalid_grant', 'The code expired; codes must be exchanged within a minute');
        if (form.redirect_uri !== code.redirect_uri) throw new OAuthProtocolError(400, 'invalid_grant', 'redirect_uri differs from the one the code was issued for');
        if (!PKCE_VERIFIER.test(form.code_verifier) || createHash('sha256').update(form.code_verifier).digest('base64url') !== code.code_challenge) {
          throw new OAuthProtocolError(400, 'invalid_grant', 'code_verifier does not match the code_challenge of the authorization request');
        }
        if (form.resource !== undefined && canonicalResource(form.resource) !== code.resource) {
          throw new OAuthProtocolError(400, 'invalid_target', `The code was issued for ${code.resource}, not ${form.resource}`);
        }
        const answer = await issue(code, client, { ...actor, ownerId: code.owner_id });
        if (!answer) throw new OAuthProtocolError(400, 'invalid_grant', 'The code was already used or expired');
        return answer;
      }
      if (form.grant_type === 'refresh_token') {
        if (!form.refresh_token) throw new OAuthProtocolError(400, 'invalid_request', 'refresh_token is required');
        const refresh = await repo.getRefreshToken(sha256(form.refresh_token));
        if (!refresh || refresh.client_id !== client.id) throw new OAuthProtocolError(400, 'invalid_grant', 'The refresh token is unknown or was issued to another client');
        const owner = { ...actor, ownerId: refresh.owner_id };
        const replay = async (): Promise<never> => {
          // A spent refresh token used again: one of the two holders is not the client. End the grant.
          await endGrant(refresh.owner_id, refresh.token_id, owner);
          await audit.record(owner, { action: 'oauth.refresh_replay', outcome: 'denied', targetType: 'token', targetId: refresh.token_id, details: { clientId: client.id } });
          throw new OAuthProtocolError(400, 'invalid_grant', 'The refresh token was already used; the grant is revoked. Authorize again');
        };
        if (refresh.used_at) return replay();
        if (isPast(refresh.expires_at)) throw new OAuthProtocolError(400, 'invalid_grant', 'The refresh token expired; authorize again');
        const grant = await tokens.get(refresh.owner_id, refresh.token_id).catch(() => undefined);
        if (!grant || grant.status === 'revoked') throw new OAuthProtocolError(400, 'invalid_grant', 'The grant was revoked; authorize again');
        if (form.scope !== undefined) {
          const extra = parseScopes(form.scope).filter((scope) => !grant.scopes.includes(scope));
          if (extra.length > 0) throw new OAuthProtocolError(400, 'invalid_scope', `The grant does not include ${extra.join(', ')}`);
        }
        const answer = await db.transaction().execute(async (trx) => {
          if (!(await repo.useRefreshToken(refresh.id, isoNow(), trx))) return undefined;
          const renewed = await tokens.renewForClient(refresh.owner_id, refresh.token_id, isoIn(ACCESS_TOKEN_TTL_SECONDS * 1000), trx);
          if (!renewed) return undefined;
          const next = randomValue('hrt_');
          await repo.insertRefreshToken(
            { id: sha256(next), owner_id: refresh.owner_id, token_id: refresh.token_id, client_id: client.id, created_at: isoNow(), expires_at: isoIn(REFRESH_TOKEN_TTL_MS), used_at: null },
            trx,
          );
          return { access_token: renewed.secret, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: next, scope: grant.scopes.join(' ') };
        });
        return answer ?? replay();
      }
      throw new OAuthProtocolError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    },

    /** RFC 7009: revokes a refresh or access token of this client; answers the same whatever it was. */
    async revoke(form: Record<string, string | undefined>, credentials: ClientCredentials, actor: AuditActor): Promise<void> {
      const client = await authenticateClient(credentials);
      const value = form.token;
      if (!value) throw new OAuthProtocolError(400, 'invalid_request', 'token is required');
      const refresh = await repo.getRefreshToken(sha256(value));
      if (refresh) {
        if (refresh.client_id === client.id) await endGrant(refresh.owner_id, refresh.token_id, { ...actor, ownerId: refresh.owner_id });
        return;
      }
      const principal = await tokens.authenticate(value);
      if (principal?.kind !== 'oauth') return;
      const record = await tokens.get(principal.ownerId, principal.tokenId).catch(() => undefined);
      if (record?.clientId === client.id) await endGrant(principal.ownerId, principal.tokenId, { ...actor, ownerId: principal.ownerId });
    },
  };
}

/** A consent form to show again with a message: a wrong password, or no scope chosen. */
export class ConsentRetry extends Error {}

export type AuthorizationServer = ReturnType<typeof createAuthorizationServer>;
