import { AppError } from '../../http/errors.js';
import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { constantTimeEqual } from '../../lib/crypto.js';
import { isoIn, isoNow, isPast } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { AuthorizationClientsTable, AuthorizationCodesTable, AuthorizationTables } from './authorization.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import { OAuthProtocolError } from './authorization.errors.js';
import { ACCESS_TOKEN_TTL_SECONDS, parseScopes, randomValue, REFRESH_TOKEN_TTL_MS, sha256, type AuthorizationProtocol } from './authorization.protocol.js';
import { codeScopesOf, type AuthorizationRepo } from './authorization.repo.js';
import type { TokenAnswer } from './authorization.schemas.js';

const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Client credentials as sent: HTTP Basic, or client_id (and client_secret) in the form. */
export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
}

type TokenEndpointAnswer = Static<typeof TokenAnswer>;

export interface TokenEndpointDeps {
  db: Executor<AuthorizationTables>;
  repo: Pick<AuthorizationRepo, 'getClient' | 'getCode' | 'useCode' | 'setCodeToken' | 'insertRefreshToken' | 'getRefreshToken' | 'useRefreshToken' | 'spendGrant'>;
  tokens: Pick<TokensService, 'createForClient' | 'renewForClient' | 'revoke' | 'authenticate' | 'get'>;
  /** Whether the administrator disabled the account a grant belongs to: its grants issue nothing meanwhile. */
  accounts: Pick<AccountsService, 'isDisabled'>;
  audit: Pick<AuditService, 'record'>;
  protocol: Pick<AuthorizationProtocol, 'canonicalResource'>;
}

/**
 * A grant's token the owner already deleted is no grant: `undefined`. Any other failure (the
 * database out of reach) is not an answer about the grant and reaches the caller.
 */
async function unlessGone<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return undefined;
    throw error;
  }
}

/** The token endpoint (codes and refresh tokens exchanged for access tokens) and revocation (RFC 7009). */
export function createTokenEndpoint(deps: TokenEndpointDeps) {
  const { db, repo, tokens, audit, protocol } = deps;

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
    await unlessGone(tokens.revoke(ownerId, tokenId, actor));
  }

  /** Spends the code and makes its grant: an access token and the first refresh token, in one transaction. */
  async function issue(code: AuthorizationCodesTable, client: AuthorizationClientsTable, actor: AuditActor): Promise<TokenEndpointAnswer | undefined> {
    return db.transaction().execute(async (trx) => {
      if (!(await repo.useCode(code.id, isoNow(), trx))) return undefined;
      const scopes = codeScopesOf(code);
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

  async function exchangeCode(form: Record<string, string | undefined>, client: AuthorizationClientsTable, actor: AuditActor): Promise<TokenEndpointAnswer> {
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
    if (form.resource !== undefined && protocol.canonicalResource(form.resource) !== code.resource) {
      throw new OAuthProtocolError(400, 'invalid_target', `The code was issued for ${code.resource}, not ${form.resource}`);
    }
    const answer = await issue(code, client, { ...actor, ownerId: code.owner_id });
    if (!answer) throw new OAuthProtocolError(400, 'invalid_grant', 'The code was already used or expired');
    return answer;
  }

  async function refresh(form: Record<string, string | undefined>, client: AuthorizationClientsTable, actor: AuditActor): Promise<TokenEndpointAnswer> {
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
    const grant = await unlessGone(tokens.get(refresh.owner_id, refresh.token_id));
    if (!grant || grant.status === 'revoked') throw new OAuthProtocolError(400, 'invalid_grant', 'The grant was revoked; authorize again');
    // Refused without spending the refresh token: once the account is enabled again it renews as before.
    if (await deps.accounts.isDisabled(refresh.owner_id)) {
      throw new OAuthProtocolError(400, 'invalid_grant', "The server's administrator disabled the account this grant belongs to; it works again once the account is enabled");
    }
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
    // Spent by a concurrent use since the check, or its grant ended: treated as a replay.
    return answer ?? replay();
  }

  return {
    /** The token endpoint: a code for a grant, or a refresh token for the grant's next access token. */
    async token(form: Record<string, string | undefined>, credentials: ClientCredentials, actor: AuditActor): Promise<TokenEndpointAnswer> {
      const client = await authenticateClient(credentials);
      if (form.grant_type === 'authorization_code') return exchangeCode(form, client, actor);
      if (form.grant_type === 'refresh_token') return refresh(form, client, actor);
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
      const record = await unlessGone(tokens.get(principal.ownerId, principal.tokenId));
      if (record?.clientId === client.id) await endGrant(principal.ownerId, principal.tokenId, { ...actor, ownerId: principal.ownerId });
    },
  };
}
