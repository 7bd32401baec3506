import { Type } from '@sinclair/typebox';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { DiscoveryService } from './discovery.service.js';

const EndpointsContextSchema = Type.Array(Type.String(), { description: 'Every non-public route this token may call, as `METHOD /path`' });

/**
 * The endpoints this token may call: the same list as GET /api/v1/tokens/me/capabilities. Under a
 * token budget it comes last, whole or not at all (a partial list would tell an agent it cannot
 * do what it can): an agent working on a task needs the owner's data more than the route list,
 * which the capabilities route answers whenever it is wanted.
 */
export function createEndpointsContextSection(discovery: Pick<DiscoveryService, 'endpointsFor'>): ContextSection<typeof EndpointsContextSchema> {
  return {
    name: 'endpoints',
    schema: EndpointsContextSchema,
    always: true,
    tables: [],
    visibleTo: () => true,
    load: async (_ownerId, principal) => discovery.endpointsFor(principal),
    budget: { tier: 2, fit: () => [] },
  };
}
