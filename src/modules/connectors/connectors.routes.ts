import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import { PASSWORD_ATTEMPTS } from '../../http/rate-limit.js';
import { actorOf } from '../audit/audit.service.js';
import {
  ConnectorPage,
  ConnectorParams,
  ConnectorResponse,
  CreateConnectorBody,
  DeletedConnectorResponse,
  ListConnectorsQuery,
  UpdateConnectorBody,
} from './connectors.schemas.js';
import type { ConnectorCaller, ConnectorsService } from './connectors.service.js';

const tags = ['connectors'];

const BINDING_NOTE =
  'A vault token is attached freely to an address on the site it was stored for (its websiteUrl, or a subdomain of it). Attaching it anywhere else (on create, or when baseUrl or vaultTokenId changes) needs the master token, or a login session that sends the account password in `password` (403 FORBIDDEN without it or when it is wrong; wrong passwords count towards the login slowdown, 429 RATE_LIMITED); a token with only services:write never may. Each such binding and each refusal is audited (`connector.bind`).';

export function connectorsRoutes(deps: { connectors: ConnectorsService }): FastifyPluginAsyncTypebox {
  const { connectors } = deps;
  const caller = (request: FastifyRequest, body: { password?: string | undefined }): ConnectorCaller => ({
    actor: actorOf(request),
    tokenKind: principalOf(request).kind,
    password: body.password,
  });

  return async (app) => {
    const read = { access: access.scope('services:read') };
    const write = { access: access.scope('services:write') };

    app.get(
      '/api/v1/connectors',
      {
        config: read,
        schema: {
          operationId: 'listConnectors',
          summary: "The owner's connectors, newest first",
          tags,
          querystring: ListConnectorsQuery,
          response: { 200: ConnectorPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor } = request.query;
        const page = await connectors.list(principalOf(request).ownerId, { limit, cursor });
        return { data: page.connectors, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/connectors',
      {
        // An off-site binding from a login session checks the account's password.
        config: { ...write, actionClass: 'services.write', rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'createConnector',
          summary: 'Define a service by base address and credential, callable through execute and proxy by its name',
          description: `The credential is one of the owner's vault tokens (POST /vault/tokens), never given here. ${BINDING_NOTE}`,
          tags,
          body: CreateConnectorBody,
          response: { 201: ConnectorResponse },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await inRequestPart('body', connectors.create(principalOf(request).ownerId, request.body, caller(request, request.body))) }),
    );

    app.get(
      '/api/v1/connectors/:id',
      {
        config: read,
        schema: { operationId: 'getConnector', summary: 'Read a connector', tags, params: ConnectorParams, response: { 200: ConnectorResponse } },
      },
      async (request) => ({ data: await connectors.get(principalOf(request).ownerId, request.params.id) }),
    );

    app.put(
      '/api/v1/connectors/:id',
      {
        config: { ...write, actionClass: 'services.write', rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'updateConnector',
          summary: "Change some of a connector's fields",
          description: BINDING_NOTE,
          tags,
          params: ConnectorParams,
          body: UpdateConnectorBody,
          response: { 200: ConnectorResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', connectors.update(principalOf(request).ownerId, request.params.id, request.body, caller(request, request.body))) }),
    );

    app.delete(
      '/api/v1/connectors/:id',
      {
        config: { ...write, actionClass: 'services.write' },
        schema: {
          operationId: 'deleteConnector',
          summary: 'Delete a connector (its vault token stays in the vault)',
          tags,
          params: ConnectorParams,
          response: { 200: DeletedConnectorResponse },
        },
      },
      async (request) => ({ data: await connectors.delete(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );
  };
}
