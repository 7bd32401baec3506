import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { GatewayContextSchema, type GatewayContext } from './gateway.schemas.js';
import type { GatewayService } from './gateway.service.js';

export function gatewayRoutes(deps: { gateway: GatewayService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/v1/gateway/context',
      {
        config: { access: access.scope('read') },
        schema: {
          operationId: 'getGatewayContext',
          summary: 'Call first: the persona, the user, memory, connected services and the endpoints this token may call',
          tags: ['gateway'],
          response: { 200: GatewayContextSchema },
        },
      },
      async (request) => {
        // Sections are contributed by modules at wiring time, so their types are only known to the schema.
        const data = (await deps.gateway.context(principalOf(request))) as GatewayContext;
        return { data };
      },
    );
  };
}
