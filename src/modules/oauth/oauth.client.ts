import { AppError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';
import { authorizePath } from './oauth.common.js';
import type { OAuthProviderDefinition } from './oauth.providers.js';

/** The provider's side of OAuth over HTTP: token endpoint, profile and revocation. */

export interface TokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
  id_token?: string;
}

/** An OAuth error answer of a token endpoint (RFC 6749 section 5.2). */
export class TokenEndpointError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
  ) {
    super(`${code}${description ? `: ${description}` : ''}`);
  }
}

/** Used when a token answer has no expires_in (RFC 6749 makes it only recommended). */
const DEFAULT_TOKEN_LIFETIME_S = 3600;

export function grantedScopes(tokens: TokenResponse, fallback: string[]): string[] {
  if (typeof tokens.scope !== 'string') return fallback;
  return [...new Set(tokens.scope.split(/\s+/).filter(Boolean))];
}

export function lifetimeSeconds(tokens: TokenResponse): number {
  const value = Number(tokens.expires_in);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_TOKEN_LIFETIME_S;
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

export function createOAuthClient(deps: { outbound: Pick<OutboundClient, 'request'>; publicBaseUrl: string }) {
  const { outbound } = deps;
  const redirectUri = (provider: OAuthProviderDefinition) => `${deps.publicBaseUrl}/api/v1/oauth/callback/${provider.id}`;

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

  return {
    redirectUri,

    /** Exchanges an authorization code with its PKCE verifier (RFC 7636). */
    exchangeCode: (provider: OAuthProviderDefinition, code: string, redirect: string, verifier: string) =>
      tokenRequest(provider, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
        client_id: provider.clientId!,
        client_secret: provider.clientSecret!,
        code_verifier: verifier,
      }),

    refreshTokens: (provider: OAuthProviderDefinition, refreshToken: string) =>
      tokenRequest(provider, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: provider.clientId!,
        client_secret: provider.clientSecret!,
      }),

    /** Maps a token endpoint refusal during the code exchange to the caller's answer. */
    exchangeFailure(provider: OAuthProviderDefinition, error: unknown): AppError {
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
    },

    /** The account's address: from the ID token, else from the provider's profile endpoint. */
    async accountOf(provider: OAuthProviderDefinition, tokens: TokenResponse): Promise<{ email: string | null; id: string | null }> {
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
    },

    /**
     * Revokes a grant at the provider (RFC 7009). Answers null when the provider confirmed, or
     * already had nothing to revoke; else why it failed.
     */
    async revoke(provider: OAuthProviderDefinition & { revokeUrl: string }, token: string): Promise<string | null> {
      try {
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
        if (response.status === 200) return null;
        // invalid_token: the grant was already revoked or expired, so nothing remains to revoke.
        if (response.status === 400 && code === 'invalid_token') return null;
        return `${provider.label} answered ${response.status}${code ? ` (${code})` : ''} to the revocation`;
      } catch (error) {
        return `${provider.label} could not be reached to revoke the grant (${error instanceof Error ? error.message : String(error)})`;
      }
    },
  };
}

export type OAuthClient = ReturnType<typeof createOAuthClient>;
