import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import type { CountedRateLimit } from '../../http/rate-limit.js';
import { emptyBodyAsObject, IdParams } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import {
  ApprovedHandshakeResponse,
  ApproveHandshakeBody,
  ClaimedHandshakeResponse,
  ClaimHandshakeBody,
  CreatedHandshakeResponse,
  CreateHandshakeBody,
  HandshakePage,
  HandshakeResponse,
  HandshakeStatusResponse,
  ListHandshakesQuery,
} from './handshakes.schemas.js';
import type { HandshakesService } from './handshakes.service.js';

const tags = ['handshakes'];

/**
 * The public routes are the only ones an agent calls without a token, so they are always limited
 * per client address, whatever the general per-token limit says: one setting, each route
 * counted apart (creating, polling and claiming do not eat into each other).
 */
function handshakeLimit(route: 'create' | 'status' | 'claim'): CountedRateLimit {
  return {
    name: 'handshakes',
    key: 'ip',
    keyPrefix: `${route}:`,
    max: (config) => config.handshakeRateLimitPerMinute,
    windowMs: 60_000,
    what: 'handshake requests from this address',
  };
}

export function handshakesRoutes(deps: { handshakes: HandshakesService }): FastifyPluginAsyncTypebox {
  const { handshakes } = deps;

  return async (app) => {
    const owner = { access: access.owner() };

    app.post(
      '/api/v1/handshakes',
      {
        config: { access: access.public(), rateLimit: handshakeLimit('create') },
        schema: {
          operationId: 'createHandshake',
          summary: 'Ask the owner for a token (agents without one); poll statusUrl for the answer',
          tags,
          body: CreateHandshakeBody,
          response: { 201: CreatedHandshakeResponse },
        },
      },
      async (request, reply) => {
        const { handshake, claimSecret } = await handshakes.create(request.body, actorOf(request));
        return reply.status(201).send({
          data: {
            handshakeId: handshake.handshakeId,
            status: 'pending' as const,
            expiresAt: handshake.expiresAt,
            statusUrl: `/api/v1/handshakes/${handshake.handshakeId}/status`,
            claimSecret,
            claimUrl: `/api/v1/handshakes/${handshake.handshakeId}/claim`,
          },
        });
      },
    );

    app.get(
      '/api/v1/handshakes/:id/status',
      {
        config: { access: access.public(), rateLimit: handshakeLimit('status') },
        schema: {
          operationId: 'getHandshakeStatus',
          summary: "A handshake's status: pending, approved or denied. Never the token, which the owner passes on",
          tags,
          params: IdParams,
          response: { 200: HandshakeStatusResponse },
        },
      },
      async (request) => ({ data: await handshakes.status(request.params.id) }),
    );

    app.post(
      '/api/v1/handshakes/:id/claim',
      {
        config: { access: access.public(), rateLimit: handshakeLimit('claim') },
        schema: {
          operationId: 'claimHandshakeToken',
          summary: 'Collect the token of an approved handshake with its claimSecret, once (agents without a token)',
          tags,
          params: IdParams,
          body: ClaimHandshakeBody,
          response: { 200: ClaimedHandshakeResponse },
        },
      },
      async (request) => ({ data: await handshakes.claim(request.params.id, request.body.claimSecret, actorOf(request)) }),
    );

    app.get(
      '/api/v1/handshakes',
      {
        config: owner,
        schema: {
          operationId: 'listHandshakes',
          summary: "The owner's handshakes, newest first",
          tags,
          querystring: ListHandshakesQuery,
          response: { 200: HandshakePage },
        },
      },
      async (request) => {
        const { limit = 50, cursor, status } = request.query;
        const page = await handshakes.list(principalOf(request).ownerId, { limit, cursor, status });
        return { data: page.handshakes, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/handshakes/:id/approve',
      {
        config: owner,
        // The body is optional: approving as asked needs none.
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'approveHandshake',
          summary: "Approve a pending handshake; answers the agent's new token once, to pass on out of band",
          tags,
          params: IdParams,
          body: ApproveHandshakeBody,
          response: { 200: ApprovedHandshakeResponse },
        },
      },
      async (request) => ({
        data: await inRequestPart('body', handshakes.approve(principalOf(request).ownerId, request.params.id, request.body, actorOf(request))),
      }),
    );

    app.post(
      '/api/v1/handshakes/:id/deny',
      {
        config: owner,
        schema: { operationId: 'denyHandshake', summary: 'Deny a pending handshake', tags, params: IdParams, response: { 200: HandshakeResponse } },
      },
      async (request) => ({ data: await handshakes.deny(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );

    app.delete(
      '/api/v1/handshakes/:id',
      {
        config: owner,
        schema: {
          operationId: 'revokeHandshake',
          summary: 'Revoke a handshake; the token it produced stops working at once. It then reads denied',
          tags,
          params: IdParams,
          response: { 200: HandshakeResponse },
        },
      },
      async (request) => ({ data: await handshakes.revoke(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );
  };
}
