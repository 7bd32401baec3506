import { Type } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { ConnectorsService } from './connectors.service.js';

const ConnectorsContextSchema = Type.Array(
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    baseUrl: Type.String(),
    authType: Type.String(),
    connected: Type.Boolean(),
  }),
  { description: "The owner's own services, callable by name through /services/{name}/execute and /proxy (scope `services:read`)" },
);

/**
 * `connectors` in the gateway context, for tokens holding `services:read`: the owner's own
 * services, callable by name through /services/{name}/execute and /proxy. `connected` is false
 * when the vault token a connector uses was deleted, hence `vault_tokens` among the tables.
 * (The OAuth module's `services` section lists the OAuth connections; GET /services lists all.)
 */
export function createConnectorsContextSection(connectors: Pick<ConnectorsService, 'list'>): ContextSection<typeof ConnectorsContextSchema> {
  return {
    name: 'connectors',
    schema: ConnectorsContextSchema,
    tables: ['connectors', 'vault_tokens'],
    visibleTo: (principal) => hasScope(principal, 'services:read'),
    async load(ownerId) {
      const { connectors: items } = await connectors.list(ownerId, { limit: 200 });
      return items.map(({ id, name, baseUrl, authType, connected }) => ({ id, name, baseUrl, authType, connected }));
    },
  };
}
