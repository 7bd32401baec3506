import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import { PASSWORD_ATTEMPTS } from '../../http/rate-limit.js';
import { emptyBodyAsObject, IdParams } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import {
  CreateTokenBody,
  IssuedTokenResponse,
  ListTokensQuery,
  MasterProofBody,
  TokenPage,
  TokenResponse,
  UpdateTokenBody,
} from './tokens.schemas.js';
import type { IssuedToken, MasterTokenReplacer, TokensService } from './tokens.service.js';

const tags = ['tokens'];
const issued = ({ record, secret }: IssuedToken) => ({ data: { ...record, token: secret } });

export function tokensRoutes(deps: { tokens: TokensService; masterTokens: MasterTokenReplacer }): FastifyPluginAsyncTypebox {
  const { tokens, masterTokens } = deps;
  return async (app) => {
    const owner = { access: access.owner() };

    app.get(
      '/api/v1/tokens',
      {
        config: owner,
        schema: {
          operationId: 'listTokens',
          summary: 'List the owner\'s tokens (login sessions only with kind=session)',
          tags,
          querystring: ListTokensQuery,
          response: { 200: TokenPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor, kind, includeRevoked } = request.query;
        const page = await tokens.list(principalOf(request).ownerId, { limit, cursor, kind, includeRevoked });
        return { data: page.tokens, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/tokens',
      {
        config: owner,
        schema: {
          operationId: 'createToken',
          summary: 'Create a scoped API token; its secret is shown once',
          tags,
          body: CreateTokenBody,
          response: { 201: IssuedTokenResponse },
        },
      },
      async (request, reply) => {
        const result = await inRequestPart('body', tokens.create(principalOf(request).ownerId, request.body, actorOf(request)));
        return reply.status(201).send(issued(result));
      },
    );

    app.post(
      '/api/v1/tokens/master/regenerate',
      {
        // From a login session, the account's password is the proof.
        config: { ...owner, rateLimit: PASSWORD_ATTEMPTS },
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'regenerateMasterToken',
          summary: 'Replace the master token; the old one stops working at once',
          description:
            'With the master token no body is needed. From a login session (how an owner who lost the master token gets a new one), send the account password: `{ "password": "…" }`.',
          tags,
          body: MasterProofBody,
          response: { 200: IssuedTokenResponse },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const proof = { callerKind: principal.kind, password: request.body.password };
        return issued(await masterTokens.regenerateMaster(principal.ownerId, actorOf(request), proof));
      },
    );

    app.get(
      '/api/v1/tokens/:id',
      {
        config: owner,
        schema: { operationId: 'getToken', summary: 'Get a token (never its secret)', tags, params: IdParams, response: { 200: TokenResponse } },
      },
      async (request) => ({ data: await tokens.get(principalOf(request).ownerId, request.params.id) }),
    );

    app.put(
      '/api/v1/tokens/:id',
      {
        config: owner,
        schema: {
          operationId: 'updateToken',
          summary: 'Rename a token, change its scopes or expiry',
          tags,
          params: IdParams,
          body: UpdateTokenBody,
          response: { 200: TokenResponse },
        },
      },
      async (request) => ({
        data: await inRequestPart('body', tokens.update(principalOf(request).ownerId, request.params.id, request.body, actorOf(request))),
      }),
    );

    app.delete(
      '/api/v1/tokens/:id',
      {
        config: owner,
        schema: { operationId: 'revokeToken', summary: 'Revoke a token', tags, params: IdParams, response: { 200: TokenResponse } },
      },
      async (request) => ({ data: await tokens.revoke(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );

    app.post(
      '/api/v1/tokens/:id/regenerate',
      {
        config: owner,
        schema: {
          operationId: 'regenerateToken',
          summary: 'Give a token a new secret; the old secret stops working at once',
          description: 'Regenerating the master token from a login session needs the account password, as on /tokens/master/regenerate.',
          tags,
          params: IdParams,
          body: MasterProofBody,
          response: { 200: IssuedTokenResponse },
        },
        preValidation: emptyBodyAsObject,
      },
      async (request) => {
        const principal = principalOf(request);
        const proof = { callerKind: principal.kind, password: request.body.password };
        const token = await tokens.get(principal.ownerId, request.params.id);
        return issued(
          token.kind === 'master'
            ? await masterTokens.regenerateMaster(principal.ownerId, actorOf(request), proof)
            : await tokens.regenerate(principal.ownerId, request.params.id, actorOf(request)),
        );
      },
    );
  };
}
