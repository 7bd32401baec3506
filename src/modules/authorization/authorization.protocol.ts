import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import { type Scope } from '../../http/access.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { hashToken } from '../../lib/crypto.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { AuthorizationRequestsTable, Database } from '../../storage/tables.js';
import { AuthorizationRedirect } from './authorization.errors.js';
import type { AuthorizationRepo } from './authorization.repo.js';

/**
 * What the parts of the authorization server share (consent, console requests, the token
 * endpoint): lifetimes, secrets and their hashes, scope names, answers sent to a client's
 * redirect URI, and the one way an approval becomes a code. Kept in one place so that the two
 * ways of approving cannot drift apart.
 */

/** An access token lives an hour; its client renews it with the refresh token. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A refresh token not used for 30 days expires; each use gives a new one. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3_600_000;
/** A code must be exchanged within a minute, once. */
export const CODE_TTL_MS = 60_000;
/** The owner has ten minutes to answer the consent page. */
export const REQUEST_TTL_MS = 10 * 60_000;

/** The scopes the protected resource suggests when a client asks for none. */
export const DEFAULT_SCOPES: Scope[] = ['read'];

export const EXPIRED_OR_ANSWERED = 'This authorization request expired or was already answered. Start again from the app that sent you here.';

export const sha256 = (value: string) => hashToken(value);
export const randomValue = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export function parseScopes(value: string | undefined): Scope[] {
  const known = new Set<string>(SCOPE_NAMES);
  // Names this server does not have (openid, offline_access, …) are left out, not refused:
  // the owner picks the scopes on the consent page anyway.
  return [...new Set((value ?? '').split(/\s+/).filter((name) => known.has(name)))] as Scope[];
}

export function redirectHostOf(redirectUri: string): string {
  const redirect = new URL(redirectUri);
  return redirect.host || redirect.protocol;
}

/** A consent form to show again with a message: a wrong password, or no scope chosen. */
export class ConsentRetry extends Error {}

export interface AuthorizationProtocolDeps {
  repo: Pick<AuthorizationRepo, 'useRequest' | 'insertCode'>;
  publicBaseUrl: string;
}

/** The server's own addresses, its answers to a client's redirect URI, and codes made from approvals. */
export function createAuthorizationProtocol(deps: AuthorizationProtocolDeps) {
  const { repo } = deps;
  const issuer = deps.publicBaseUrl;
  const mcpResource = `${issuer}/mcp`;

  function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
    const url = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) if (value != null) url.searchParams.set(key, value);
    // RFC 9207: the answer names its issuer, so a client talking to several servers cannot be confused.
    url.searchParams.set('iss', issuer);
    return url.toString();
  }

  return {
    issuer,
    mcpResource,
    redirectWith,

    /** The resources a token may be bound to: the MCP endpoint, or the server as a whole. */
    canonicalResource(value: string | undefined): string | undefined {
      if (value === undefined || value === '') return mcpResource;
      const trimmed = value.replace(/\/+$/, '');
      return trimmed === mcpResource || trimmed === issuer ? trimmed : undefined;
    },

    refuse(redirectUri: string, state: string | undefined, error: string, description: string): never {
      throw new AuthorizationRedirect(redirectWith(redirectUri, { error, error_description: description, state }));
    },

    /**
     * The one way an approval becomes a code, whichever way the owner approved (password on the
     * consent page, or the console): spends the request once, while it is valid, and stores the
     * code. Answers the client's redirect with the code, or undefined when the request was spent
     * or expired meanwhile (the caller's transaction then stores nothing).
     */
    async grantCode(request: AuthorizationRequestsTable, ownerId: string, scopes: Scope[], trx: Transaction<Database>): Promise<string | undefined> {
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
    },
  };
}

export type AuthorizationProtocol = ReturnType<typeof createAuthorizationProtocol>;
