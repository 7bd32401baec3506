import { hasScope } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.service.js';
import type { ConnectorsService } from './connectors.service.js';

/**
 * `connectors` in the gateway context, for tokens holding `services:read`: the owner's own
 * services, callable by name through /services/{name}/execute and /proxy. `connected` is false
 * when the vault token a connector uses was deleted, hence `vault_tokens` among the tables.
 * (The OAuth module's `services` section lists the OAuth connections; GET /services lists all.)
 */
export function createConnectorsContextSection(connectors: Pick<ConnectorsService, 'list'>): ContextSection {
  return {
    name: 'connectors',
    tables: ['connectors', 'vault_tokens'],
    visibleTo: (principal) => hasScope(principal, 'services:read'),
    async load(ownerId) {
      const { connectors: items } = await connectors.list(ownerId, { limit: 200 });
      return items.map(({ id, name, baseUrl, authType, connected }) => ({ id, name, baseUrl, authType, connected }));
    },
  };
}
