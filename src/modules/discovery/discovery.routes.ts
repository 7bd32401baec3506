import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { preparedBody } from '../../http/prepared.js';
import { createSerializedBodies } from '../../http/serialized.js';
import {
  CapabilityManifestSchema,
  DiscoveryDocumentSchema,
  HealthSchema,
  OpenApiDocumentSchema,
  QuickStartSchema,
  ScopeListSchema,
  TokenCapabilitiesSchema,
} from './discovery.schemas.js';
import type { HealthService } from './discovery.health.js';
import type { DiscoveryService } from './discovery.service.js';

const tags = ['discovery'];

export function discoveryRoutes(deps: { discovery: DiscoveryService; health: Pick<HealthService, 'check'> }): FastifyPluginAsyncTypebox {
  const { discovery, health } = deps;
  return async (app) => {
    // Every module's routes are registered by now, wherever they sit in app.ts. The OpenAPI
    // document is not needed for this: it is built on its first request (GET /openapi.json).
    app.addHook('onReady', async () => {
      discovery.useCatalog(app.routeCatalog);
    });

    // A token's capabilities, made from the route's 200 schema once per token (the door sends them too).
    const capabilitiesBody = preparedBody(TokenCapabilitiesSchema);
    const publicAccess = { access: access.public() };
    const anyToken = { access: access.anyToken() };

    // The document is fixed once the app is ready: serialized on the first request, then sent as
    // bytes, by this route or, once made, by the front door.
    const discoveryBodies = createSerializedBodies();
    // ignoreTrailingSlash serves /api/v1 from this same route, without a redirect.
    app.get(
      '/api/v1/',
      {
        config: { ...publicAccess, prepared: () => discoveryBodies.made(discovery.discoveryDocument()) },
        schema: {
          operationId: 'getDiscovery',
          summary: 'The discovery document: what Hearth is, where its docs are, how to authenticate, every endpoint',
          tags,
          response: { 200: DiscoveryDocumentSchema },
        },
      },
      async (_request, reply) => discoveryBodies.send(reply as FastifyReply, discovery.discoveryDocument(), (document) => document),
    );

    app.get(
      '/api/v1/quick-start',
      {
        config: publicAccess,
        schema: {
          operationId: 'getQuickStart',
          summary: 'Step-by-step start for an agent; `authenticated` tells whether the request carried a valid token',
          tags,
          response: { 200: QuickStartSchema },
        },
      },
      async (request) => discovery.quickStart(request.principal !== null),
    );

    app.get(
      '/openapi.json',
      {
        config: publicAccess,
        schema: {
          operationId: 'getOpenApiDocument',
          summary: 'This API as an OpenAPI 3.1 document',
          tags,
          response: { 200: OpenApiDocumentSchema },
        },
      },
      // @fastify/swagger builds the document once and caches it.
      async () => app.swagger() as Record<string, unknown>,
    );

    app.get(
      '/llms.txt',
      {
        config: publicAccess,
        schema: {
          operationId: 'getLlmsTxt',
          summary: 'A plain-text guide for language-model clients',
          tags,
          // Only the success is text; errors stay JSON like everywhere else.
          response: { 200: { description: 'Markdown-style text', content: { 'text/plain': { schema: Type.String() } } } },
        },
      },
      async (_request, reply) => reply.type('text/plain; charset=utf-8').send(discovery.llmsText()),
    );

    // For load balancers (and the benchmarks' minimal route): the database is asked at most once
    // a second, so a check costs about what a route without a query costs.
    app.get(
      '/api/v1/health',
      {
        config: publicAccess,
        schema: {
          operationId: 'getHealth',
          summary: "Health: 200 while this node serves and its database answers; 503 while it drains (shutting down) or when its database does not answer",
          tags,
          response: { 200: HealthSchema, 503: HealthSchema },
        },
      },
      async (_request, reply) => {
        const report = await health.check();
        return reply.status(report.status === 'ok' ? 200 : 503).send(report);
      },
    );

    app.get(
      '/api/v1/scopes',
      {
        config: anyToken,
        schema: {
          operationId: 'listScopes',
          summary: 'Every scope a token can hold and the routes it opens',
          tags,
          response: { 200: ScopeListSchema },
        },
      },
      async () => ({ data: discovery.scopes() }),
    );

    // A static segment: find-my-way prefers it to /api/v1/tokens/:id, so `me` is never a token id here.
    app.get(
      '/api/v1/tokens/me/capabilities',
      {
        config: { ...anyToken, prepared: (principal) => (principal ? capabilitiesBody.kept(discovery.tokenCapabilities(principal)) : undefined) },
        schema: {
          operationId: 'getTokenCapabilities',
          summary: 'The calling token: its kind, scopes, rights and every endpoint it may call',
          tags,
          response: { 200: TokenCapabilitiesSchema },
        },
      },
      // Serialized once per token by the schema above (see http/prepared.ts); bytes are sent as they are.
      async (request, reply) =>
        (reply as FastifyReply).type('application/json; charset=utf-8').send(capabilitiesBody.kept(discovery.tokenCapabilities(principalOf(request)))),
    );

    app.get(
      '/api/v1/capabilities',
      {
        config: anyToken,
        schema: {
          operationId: 'getCapabilities',
          summary: "Capabilities grouped by area, with each endpoint marked allowed or not for the calling token",
          tags,
          response: { 200: CapabilityManifestSchema },
        },
      },
      async (request) => ({ data: discovery.capabilities(principalOf(request)) }),
    );
  };
}
