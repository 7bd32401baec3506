import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart, toAppError } from '../../http/errors.js';
import { IdParams } from '../../http/schemas.js';
import { actorOf, type AuditService } from '../audit/audit.service.js';
import {
  DeletedVaultTokenResponse,
  DiscoveryRequest,
  DiscoveryResponse,
  ListVaultTokensQuery,
  RevealedVaultTokenResponse,
  VaultTokenCreateRequest,
  VaultTokenPage,
  VaultTokenResponse,
} from './vault.schemas.js';
import type { VaultService } from './vault.service.js';

const tags = ['vault'];

export function vaultRoutes(deps: { vault: VaultService; audit: Pick<AuditService, 'record'> }): FastifyPluginAsyncTypebox {
  const { vault, audit } = deps;
  return async (app) => {
    const config = { access: access.scope('vault') };

    app.post(
      '/api/v1/vault/tokens',
      {
        config: { ...config, actionClass: 'vault.write' },
        schema: {
          operationId: 'createVaultToken',
          summary: 'Store a third-party token, encrypted; optionally discover the API of its website',
          tags,
          body: VaultTokenCreateRequest,
          response: { 201: VaultTokenResponse },
        },
      },
      async (request, reply) => {
        const record = await inRequestPart('body', vault.create(principalOf(request).ownerId, request.body, actorOf(request)));
        return reply.status(201).send({ data: record });
      },
    );

    app.get(
      '/api/v1/vault/tokens',
      {
        config,
        schema: {
          operationId: 'listVaultTokens',
          summary: 'List stored vault tokens, newest first (never their secrets)',
          tags,
          querystring: ListVaultTokensQuery,
          response: { 200: VaultTokenPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor, service } = request.query;
        const page = await vault.list(principalOf(request).ownerId, { limit, cursor, service });
        return { data: page.tokens, nextCursor: page.nextCursor };
      },
    );

    app.delete(
      '/api/v1/vault/tokens/:id',
      {
        config: { ...config, actionClass: 'vault.write' },
        schema: {
          operationId: 'deleteVaultToken',
          summary: 'Delete a vault token and its encrypted secret',
          tags,
          params: IdParams,
          response: { 200: DeletedVaultTokenResponse },
        },
      },
      async (request) => ({ data: await vault.remove(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );

    /**
     * Reveal: the master token alone, enforced by the access hook before the handler. Every
     * attempt is audited: the handler records the grant before the secret leaves; this route's
     * onError hook records every refusal or failure wherever it was raised (the access hook's
     * 403, validation, an unknown id's 404, a decryption failure's 500). A request without a
     * valid token names no owner, so it has no audit log to go to.
     */
    app.get(
      '/api/v1/vault/tokens/:id/reveal',
      {
        config: { access: access.master() },
        schema: {
          operationId: 'revealVaultToken',
          summary: 'Decrypt a vault token: the secret is in data.token (master token only; audited)',
          tags,
          params: IdParams,
          response: { 200: RevealedVaultTokenResponse },
        },
        onError: async (request: FastifyRequest, _reply, error) => {
          const principal = request.principal;
          if (!principal) return;
          const appError = toAppError(error);
          const rawId = (request.params as { id?: unknown } | undefined)?.id;
          await audit.record(actorOf(request), {
            action: 'vault.reveal',
            outcome: appError.status === 401 || appError.status === 403 ? 'denied' : 'failure',
            targetType: 'vault_token',
            ...(typeof rawId === 'string' ? { targetId: rawId.slice(0, 100) } : {}),
            details: { status: appError.status, error: appError.code, tokenKind: principal.kind },
          });
        },
      },
      async (request) => ({ data: await vault.reveal(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );

    app.post(
      '/api/v1/vault/discover-api',
      {
        config,
        schema: {
          operationId: 'discoverApi',
          summary: 'Discover what a website publishes for machines: OpenAPI, llms.txt, AI plugin manifest',
          tags,
          body: DiscoveryRequest,
          response: { 200: DiscoveryResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', vault.discover(principalOf(request).ownerId, request.body.websiteUrl)) }),
    );
  };
}
