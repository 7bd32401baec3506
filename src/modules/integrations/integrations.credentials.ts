/**
 * The owner's credential for a call: the OAuth connection, a vault token, or what a connector
 * or a discovered API names; and, when there is none, how to connect the service.
 */
import { AppError } from '../../http/errors.js';
import { siteBindingRefusal } from '../../lib/same-site.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { VaultService } from '../vault/vault.service.js';
import type { Credential } from './integrations.engine.js';
import { discoveredScheme, type ResolvedService } from './integrations.resolve.js';

/** A credential for one call, with a way to get a fresh one when the upstream refuses it. */
export interface CallCredential extends Credential {
  source: 'oauth' | 'vault' | 'none';
  vaultTokenId?: string;
  /** OAuth only: a new access token after the upstream answered 401 to `rejected`. */
  renew?: (rejected: string) => Promise<string | undefined>;
}

/** How to give Hearth a credential for a service. */
export interface ConnectHow {
  how: string;
  oauthAuthorize: string | null;
  vaultService: string | null;
}

export interface CredentialsDeps {
  vault: Pick<VaultService, 'secretFor' | 'findByService'>;
  oauth: Pick<OAuthService, 'accessToken' | 'providerIds'>;
}

export function createCredentials(deps: CredentialsDeps) {
  const { vault, oauth } = deps;

  function connectHow(service: ResolvedService): ConnectHow {
    if (service.catalogue) {
      const auth = service.catalogue.auth;
      if (auth.kind === 'oauth' && !oauth.providerIds().includes(auth.provider)) {
        // This server has no OAuth flow for the provider: a stored access token is the way.
        return {
          how: `Store an access token with POST /api/v1/vault/tokens (service "${service.catalogue.id}"); this server offers no OAuth connection for ${service.name}`,
          oauthAuthorize: null,
          vaultService: service.catalogue.id,
        };
      }
      return {
        how: service.catalogue.credentialHelp,
        oauthAuthorize: auth.kind === 'oauth' ? `GET /api/v1/oauth/authorize/${auth.provider}` : null,
        vaultService: service.catalogue.id,
      };
    }
    if (service.connector) {
      return {
        how:
          service.connector.authType === 'none'
            ? 'This connector sends no credential'
            : `Store the secret with POST /api/v1/vault/tokens and set its id with PUT /api/v1/connectors/${service.connector.id}`,
        oauthAuthorize: null,
        vaultService: null,
      };
    }
    return { how: `Uses the vault token ${service.discovered!.vaultTokenId} the API was discovered with`, oauthAuthorize: null, vaultService: null };
  }

  function notConnected(service: ResolvedService, reason?: string): AppError {
    const connect = connectHow(service);
    return new AppError('PROVIDER_NOT_CONNECTED', `${service.name} is not connected${reason ? ` (${reason})` : ''}: ${connect.how}`, {
      details: { service: service.id, ...connect },
    });
  }

  /** From a vault token's id; a deleted token means the service is no longer connected. */
  async function vaultCredential(ownerId: string, service: ResolvedService, vaultTokenId: string, placement: Pick<Credential, 'placement' | 'name'>): Promise<CallCredential> {
    try {
      const { secret } = await vault.secretFor(ownerId, vaultTokenId);
      return { ...placement, secret, source: 'vault', vaultTokenId };
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') throw notConnected(service, `vault token ${vaultTokenId} no longer exists`);
      throw error;
    }
  }

  /**
   * The owner's credential for a service: the OAuth connection for OAuth services, else the
   * newest vault token stored for the service's id; a connector's or discovered API's own token.
   */
  async function credentialFor(ownerId: string, service: ResolvedService): Promise<CallCredential> {
    if (service.connector) {
      const c = service.connector;
      if (c.authType === 'none') return { placement: 'none', source: 'none' };
      if (!c.vaultTokenId) throw notConnected(service);
      return vaultCredential(ownerId, service, c.vaultTokenId, { placement: c.authType, name: c.headerName ?? c.queryParam ?? undefined });
    }
    if (service.discovered) {
      const api = service.discovered;
      // Discovery keeps only a base address on the token's own site; metadata stored before that
      // rule (or otherwise) is checked again here, before the secret is read.
      const refusal = siteBindingRefusal(api.baseUrl, api.websiteUrl);
      if (refusal) {
        throw new AppError(
          'FORBIDDEN',
          `The API discovered on ${api.websiteUrl} names ${api.baseUrl} as its address; vault token ${api.vaultTokenId} was stored for ${api.websiteUrl} and is not sent there (${refusal}). Store the token again with discoverApi: true, or have the owner create a connector`,
          { details: { service: service.id, baseUrl: api.baseUrl, websiteUrl: api.websiteUrl } },
        );
      }
      return vaultCredential(ownerId, service, api.vaultTokenId, discoveredScheme(api));
    }

    const auth = service.catalogue!.auth;
    let oauthRefusal: AppError | undefined;
    if (auth.kind === 'oauth') {
      try {
        const { accessToken } = await oauth.accessToken(ownerId, auth.provider);
        return {
          placement: 'bearer',
          secret: accessToken,
          source: 'oauth',
          renew: async (rejected) => {
            try {
              const next = await oauth.accessToken(ownerId, auth.provider, { rejected });
              return next.accessToken !== rejected ? next.accessToken : undefined;
            } catch {
              return undefined;
            }
          },
        };
      } catch (error) {
        if (!(error instanceof AppError) || !['PROVIDER_NOT_CONNECTED', 'PROVIDER_NOT_CONFIGURED', 'NOT_FOUND'].includes(error.code)) throw error;
        oauthRefusal = error;
      }
    }
    const token = await vault.findByService(ownerId, service.catalogue!.id);
    if (!token) {
      // A connection that needs the owner's consent again says so in its own words.
      if (oauthRefusal?.code === 'PROVIDER_NOT_CONNECTED' && (oauthRefusal.details as { status?: string } | undefined)?.status === 'needs_reauth') {
        throw oauthRefusal;
      }
      throw notConnected(service, oauthRefusal?.code === 'PROVIDER_NOT_CONFIGURED' ? 'OAuth is not configured on this server' : undefined);
    }
    const placement: Pick<Credential, 'placement' | 'name'> =
      auth.kind === 'header' ? { placement: 'header', name: auth.headerName } : auth.kind === 'query' ? { placement: 'query', name: auth.param } : { placement: 'bearer' };
    return vaultCredential(ownerId, service, token.id, placement);
  }

  return { connectHow, credentialFor };
}
