import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import type { CountedRateLimit } from '../../http/rate-limit.js';
import { IdParams } from '../../http/schemas.js';
import {
  CreatedWebhookResponse,
  CreateWebhookBody,
  DeletedWebhookResponse,
  DeliveryPage,
  DeliveryResponse,
  ListDeliveriesQuery,
  UpdateWebhookBody,
  WebhookList,
  WebhookResponse,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

/**
 * Each test call stores a delivery that takes a lane to send: counted exactly, per owner (so that
 * 20 webhooks do not make 200), across every node, before anything else is done.
 */
const testLimit: CountedRateLimit = {
  name: 'webhook-tests',
  key: 'owner',
  max: (config) => config.webhooks.testPerMinute,
  windowMs: 60_000,
  what: 'webhook test events from this account',
};

export function webhooksRoutes(deps: { webhooks: WebhooksService }): FastifyPluginAsyncTypebox {
  const { webhooks } = deps;
  return async (app) => {
    // Where the account's events go, signed with a secret: the owner's decision alone, like tokens.
    const config = { access: access.owner() };
    const tags = ['webhooks'];

    app.post(
      '/api/v1/webhooks',
      {
        config,
        schema: {
          operationId: 'createWebhook',
          summary: 'Subscribe an address to account events; the answer holds the signing secret, shown this once',
          tags,
          body: CreateWebhookBody,
          response: { 201: CreatedWebhookResponse },
        },
      },
      async (request, reply) => {
        const created = await inRequestPart('body', webhooks.create(principalOf(request).ownerId, request.body));
        return reply.status(201).send({ data: created });
      },
    );

    app.get(
      '/api/v1/webhooks',
      {
        config,
        schema: { operationId: 'listWebhooks', summary: "The account's webhooks (never their secrets)", tags, response: { 200: WebhookList } },
      },
      async (request) => ({ data: await webhooks.list(principalOf(request).ownerId) }),
    );

    app.get(
      '/api/v1/webhooks/:id',
      {
        config,
        schema: { operationId: 'getWebhook', summary: 'One webhook (never its secret)', tags, params: IdParams, response: { 200: WebhookResponse } },
      },
      async (request) => ({ data: await webhooks.get(principalOf(request).ownerId, request.params.id) }),
    );

    app.patch(
      '/api/v1/webhooks/:id',
      {
        config,
        schema: {
          operationId: 'updateWebhook',
          summary: "Change a webhook's address, events or whether it is enabled (disabling gives up its pending deliveries)",
          tags,
          params: IdParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', webhooks.update(principalOf(request).ownerId, request.params.id, request.body)) }),
    );

    app.delete(
      '/api/v1/webhooks/:id',
      {
        config,
        schema: {
          operationId: 'deleteWebhook',
          summary: 'Delete a webhook with its deliveries (pending ones are never sent)',
          tags,
          params: IdParams,
          response: { 200: DeletedWebhookResponse },
        },
      },
      async (request) => ({ data: await webhooks.remove(principalOf(request).ownerId, request.params.id) }),
    );

    app.post(
      '/api/v1/webhooks/:id/test',
      {
        config: { ...config, rateLimit: testLimit },
        schema: {
          operationId: 'testWebhook',
          summary: 'Send a `webhook.test` event to this webhook now; the answer is the new delivery, still pending',
          description:
            'At most WEBHOOK_TEST_RATE_LIMIT calls per owner per minute (10 by default), and none while the webhook already has the most deliveries waiting it may hold: 429 `RATE_LIMITED` with `Retry-After` then. 409 when the webhook is disabled',
          tags,
          params: IdParams,
          response: { 201: DeliveryResponse },
        },
      },
      async (request, reply) => {
        const { ownerId } = principalOf(request);
        return reply.status(201).send({ data: await webhooks.sendTest(ownerId, request.params.id) });
      },
    );

    app.post(
      '/api/v1/webhooks/:id/resume',
      {
        config,
        schema: {
          operationId: 'resumeWebhook',
          summary: 'Resume a webhook the circuit breaker paused: its waiting deliveries are sent now',
          description:
            'A webhook whose endpoint kept failing is paused (`status: "paused"`, event `webhook.paused`) and tried again by one probe delivery after a cool-down. This resumes it at once and clears its failures; a webhook that is not paused is answered as it is. 409 when it is disabled',
          tags,
          params: IdParams,
          response: { 200: WebhookResponse },
        },
      },
      async (request) => ({ data: await webhooks.resume(principalOf(request).ownerId, request.params.id) }),
    );

    app.get(
      '/api/v1/webhooks/:id/deliveries',
      {
        config,
        schema: {
          operationId: 'listWebhookDeliveries',
          summary: "A webhook's deliveries, newest first, each with its attempts",
          tags,
          params: IdParams,
          querystring: ListDeliveriesQuery,
          response: { 200: DeliveryPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor } = request.query;
        const page = await inRequestPart('querystring', webhooks.listDeliveries(principalOf(request).ownerId, request.params.id, { limit, cursor }));
        return { data: page.deliveries, nextCursor: page.nextCursor };
      },
    );
  };
}
