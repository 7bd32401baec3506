import { Type } from '@sinclair/typebox';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { DiscoveryService } from './discovery.service.js';

const EndpointsContextSchema = Type.Array(Type.String(), { description: 'Every non-public route this token may call, as `METHOD /path`' });

/** The endpoints this token may call: the same list as GET /api/v1/tokens/me/capabilities. */
export function createEndpointsContextSection(discovery: Pick<DiscoveryService, 'endpointsFor'>): ContextSection<typeof EndpointsContextSchema> {
  return {
    name: 'endpoints',
    schema: EndpointsContextSchema,
    always: true,
    tables: [],
    visibleTo: () => true,
    load: async (_ownerId, principal) => discovery.endpointsFor(principal),
  };
}
