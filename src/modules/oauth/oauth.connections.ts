import { AppError } from '../../http/errors.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { OAuthClient } from './oauth.client.js';
import { knownProvider, parseScopes } from './oauth.common.js';
import { isConfigured, type OAuthProviderRegistry } from './oauth.providers.js';
import type { ConnectionRow, OAuthRepo } from './oauth.repo.js';
import type { DisconnectResult, ProviderStatus } from './oauth.schemas.js';
import type { OAuthSealing } from './oauth.sealing.js';

/** A connection as other modules see it (the gateway context, the services catalogue): never its tokens. */
export interface ConnectionSummary {
  provider: string;
  account: string | null;
  status: ConnectionRow['status'];
  scopes: string[];
  expiresAt: string;
  connectedAt: string;
}

export interface ConnectionsDeps {
  repo: Pick<OAuthRepo, 'listConnections' | 'getConnection' | 'deleteConnection'>;
  providers: OAuthProviderRegistry;
  sealing: Pick<OAuthSealing, 'openToken'>;
  client: Pick<OAuthClient, 'revoke'>;
  audit: Pick<AuditService, 'record'>;
}

/** The owner's connections: what is connected, and ending a connection. */
export function createConnections(deps: ConnectionsDeps) {
  const { repo, providers, sealing, client, audit } = deps;

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
      const provider = knownProvider(providers, service);
      const row = await repo.getConnection(ownerId, provider.id);
      if (!row) throw new AppError('NOT_FOUND', `${provider.label} is not connected: there is nothing to disconnect`);
      let revokeError: string | null;
      if (!provider.revokeUrl) {
        revokeError = `${provider.label} has no revocation endpoint: remove the app's access in the account's security settings`;
      } else {
        try {
          // Revoking the refresh token ends the whole grant, its access tokens included.
          const token = await sealing.openToken(row, row.refresh_token_sealed ? 'refresh_token' : 'access_token');
          revokeError = await client.revoke({ ...provider, revokeUrl: provider.revokeUrl }, token);
        } catch (error) {
          revokeError = `${provider.label}'s grant could not be revoked (${error instanceof Error ? error.message : String(error)})`;
        }
      }
      const revoked = revokeError === null;
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
  };
}
