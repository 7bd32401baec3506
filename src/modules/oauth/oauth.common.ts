import { createHash } from 'node:crypto';
import { AppError } from '../../http/errors.js';
import type { AuditActor } from '../audit/audit.service.js';
import { isConfigured, type OAuthProviderDefinition, type OAuthProviderRegistry } from './oauth.providers.js';

/** What the parts of the OAuth service share: provider lookup and the errors that name the way out. */

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

export function parseScopes(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** Work the server does on its own (a refresh), recorded for the owner with no request behind it. */
export function systemActor(ownerId: string): AuditActor {
  return { ownerId, tokenId: null, ip: null, userAgent: null };
}

export const authorizePath = (provider: string) => `GET /api/v1/oauth/authorize/${provider}`;

export function knownProvider(providers: OAuthProviderRegistry, service: string): OAuthProviderDefinition {
  const provider = providers.get(service.toLowerCase());
  if (!provider) {
    throw new AppError('NOT_FOUND', `No OAuth provider named ${service}; the providers are: ${[...providers.keys()].join(', ')}`);
  }
  return provider;
}

export function configuredProvider(providers: OAuthProviderRegistry, service: string): OAuthProviderDefinition {
  const provider = knownProvider(providers, service);
  if (!isConfigured(provider)) {
    const prefix = provider.id.toUpperCase();
    throw new AppError(
      'PROVIDER_NOT_CONFIGURED',
      `${provider.label} is not configured on this server: the operator sets ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET (see the README)`,
    );
  }
  return provider;
}

export function notConnected(provider: OAuthProviderDefinition): AppError {
  return new AppError(
    'PROVIDER_NOT_CONNECTED',
    `${provider.label} is not connected: the owner connects an account with ${authorizePath(provider.id)} and opens the answered url`,
  );
}

export function needsReauth(provider: OAuthProviderDefinition, reason: string | null): AppError {
  return new AppError(
    'PROVIDER_NOT_CONNECTED',
    `The ${provider.label} connection must be renewed${reason ? ` (${provider.label} said: ${reason})` : ''}: the owner reconnects with ${authorizePath(provider.id)} and opens the answered url`,
    { details: { provider: provider.id, status: 'needs_reauth' } },
  );
}
