import type { ConnectionRow } from './oauth.repo.js';

/**
 * The vault keyring's two operations: AES-256-GCM bound to the owner and a context string, so
 * a sealed value only opens for the same owner and the same purpose.
 */
export interface OAuthKeyring {
  seal(ownerId: string, context: string, plaintext: string): Promise<string> | string;
  open(ownerId: string, context: string, sealed: string): Promise<string> | string;
}

export type TokenKind = 'access_token' | 'refresh_token';

/**
 * Sealed values are bound to their record: a connection's tokens to (owner, provider), a
 * verifier to its state. A value copied into another row or owner does not open.
 */
export function createOAuthSealing(keyring: OAuthKeyring) {
  const tokenContext = (provider: string, what: TokenKind) => `oauth_connections:${provider}:${what}`;
  const verifierContext = (stateId: string) => `oauth_states:${stateId}:pkce_verifier`;
  return {
    sealToken: async (ownerId: string, provider: string, what: TokenKind, token: string) => keyring.seal(ownerId, tokenContext(provider, what), token),
    async openToken(row: Pick<ConnectionRow, 'id' | 'owner_id' | 'provider' | 'access_token_sealed' | 'refresh_token_sealed'>, what: TokenKind): Promise<string> {
      const sealed = what === 'access_token' ? row.access_token_sealed : row.refresh_token_sealed;
      if (!sealed) throw new Error(`connection ${row.id} has no ${what}`);
      return keyring.open(row.owner_id, tokenContext(row.provider, what), sealed);
    },
    sealVerifier: async (ownerId: string, stateId: string, verifier: string) => keyring.seal(ownerId, verifierContext(stateId), verifier),
    openVerifier: async (ownerId: string, stateId: string, sealed: string) => keyring.open(ownerId, verifierContext(stateId), sealed),
  };
}

export type OAuthSealing = ReturnType<typeof createOAuthSealing>;
