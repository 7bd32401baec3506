import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { InputError } from '../../http/errors.js';
import { GatewayContextQuerySchema } from './gateway.schemas.js';
import type { GatewayService } from './gateway.service.js';

export function gatewayRoutes(deps: { gateway: GatewayService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/v1/gateway/context',
      {
        config: {
          access: access.scope('read'),
          // The whole context, asked for without a query, is answered at the front door from the
          // gateway's cache while it holds (see http/front-door.ts).
          prepared: (principal) => (principal ? deps.gateway.cachedContext(principal) : undefined),
        },
        schema: {
          operationId: 'getGatewayContext',
          summary: 'Call first: the persona, the user, memory, connected services and the endpoints this token may call; with task, what serves it; with maxTokens, within that budget',
          tags: ['gateway'],
          querystring: GatewayContextQuerySchema,
          response: { 200: deps.gateway.contextSchema },
        },
      },
      async (request, reply) => {
        const task = request.query.task?.trim() || undefined;
        const omit = request.query.omit;
        const unknown = omit?.filter((name) => !deps.gateway.omittable().includes(name)) ?? [];
        if (unknown.length > 0) {
          throw new InputError('querystring.omit', 'names a section that cannot be left out', `omit: ${unknown.join(', ')} cannot be left out; these can: ${deps.gateway.omittable().join(', ')}`);
        }
        // Rendered with the route's own response serializer, so the schema still shapes the
        // answer; the rendered JSON is what the gateway caches.
        const body = await deps.gateway.renderedContext(principalOf(request), (data) => String(reply.serialize({ data })), {
          task,
          maxTokens: request.query.maxTokens,
          omit,
        });
        // Already serialized: sent as is, past the typed reply.
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
      },
    );
  };
}
