import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { AuditListQuery, AuditPageSchema } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

export function auditRoutes(deps: { audit: AuditService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/v1/audit/log',
      {
        config: { access: access.owner() },
        schema: {
          operationId: 'listAuditLog',
          summary: 'Security events, newest first',
          tags: ['audit'],
          querystring: AuditListQuery,
          response: { 200: AuditPageSchema },
        },
      },
      async (request) => {
        const { ownerId } = principalOf(request);
        const { limit = 50, cursor, action, from, to } = request.query;
        const page = await deps.audit.list(ownerId, {
          limit,
          cursor,
          action,
          from: from && new Date(from).toISOString(),
          to: to && new Date(to).toISOString(),
          tokenId: request.query.tokenId,
        });
        return { data: page.entries, nextCursor: page.nextCursor };
      },
    );
  };
}
