import { hasScope, type Principal } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.service.js';
import type { OAuthService } from './oauth.service.js';

/**
 * `services` in the gateway context: the accounts the owner connected through OAuth, for
 * tokens holding `services:read`. Tokens never appear, only which
 * provider, which account, whether it works and what it may do.
 */
export function createServicesContextSection(oauth: Pick<OAuthService, 'connections'>): ContextSection {
  return {
    name: 'services',
    tables: ['oauth_connections'],
    visibleTo: (principal: Principal) => hasScope(principal, 'services:read'),
    load: async (ownerId) =>
      (await oauth.connections(ownerId)).map(({ provider, account, status, scopes }) => ({ provider, account, status, scopes })),
  };
}
