import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, APPROVAL_REPLAY_HEADER, principalOf, reachableActionClasses } from '../../http/access.js';
import { IdParams } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import { ApprovalDetailResponse, ApprovalPage, ApprovalResponse, ListApprovalsQuery, PolicyBody, PolicyResponse } from './approvals.schemas.js';
import type { ApprovalsService, RunReplay } from './approvals.service.js';

export function approvalsRoutes(deps: { approvals: ApprovalsService }): FastifyPluginAsyncTypebox {
  const { approvals } = deps;
  return async (app) => {
    const owner = { access: access.owner() };
    const tags = ['approvals'];

    /**
     * An approved request runs in-process, as MCP tool calls do, so it passes through exactly the
     * route, validation and access checks it would have met; the one-time replay value stands for
     * the token (whose secret is not kept).
     */
    const run: RunReplay = async (replay) => {
      const answer = await app.inject({
        method: replay.method as 'POST',
        url: replay.url,
        headers: {
          [APPROVAL_REPLAY_HEADER]: replay.replayValue,
          accept: 'application/json',
          ...(replay.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(replay.body !== undefined ? { payload: JSON.stringify(replay.body) } : {}),
      });
      return { status: answer.statusCode, contentType: String(answer.headers['content-type'] ?? ''), body: answer.body };
    };

    app.get(
      '/api/v1/tokens/:id/policy',
      {
        config: owner,
        schema: {
          operationId: 'getTokenPolicy',
          summary: "A token's policy: for each action class, allow, ask or deny",
          tags: ['tokens'],
          params: IdParams,
          response: { 200: PolicyResponse },
        },
      },
      async (request) => ({ data: await approvals.getPolicy(principalOf(request).ownerId, request.params.id, (scopes) => reachableActionClasses(request.server.routeCatalog, scopes)) }),
    );

    app.put(
      '/api/v1/tokens/:id/policy',
      {
        config: owner,
        schema: {
          operationId: 'setTokenPolicy',
          summary: "Replace a token's policy (classes left out are allow); not for master or session tokens",
          tags: ['tokens'],
          params: IdParams,
          body: PolicyBody,
          response: { 200: PolicyResponse },
        },
      },
      async (request) => ({
        data: await approvals.setPolicy(principalOf(request).ownerId, request.params.id, request.body.rules, actorOf(request), (scopes) =>
          reachableActionClasses(request.server.routeCatalog, scopes),
        ),
      }),
    );

    app.get(
      '/api/v1/approvals',
      {
        config: owner,
        schema: {
          operationId: 'listApprovals',
          summary: 'Requests held for the owner by token policies, newest first; filter by status',
          tags,
          querystring: ListApprovalsQuery,
          response: { 200: ApprovalPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor, status } = request.query;
        const page = await approvals.list(principalOf(request).ownerId, { limit, cursor, status });
        return { data: page.approvals, nextCursor: page.nextCursor };
      },
    );

    app.get(
      '/api/v1/approvals/:id',
      {
        config: { access: access.anyToken() },
        schema: {
          operationId: 'getApproval',
          summary: 'One approval: for the owner, with the exact held request, or for the token whose request it holds (which alone sees the answer once it ran)',
          tags,
          params: IdParams,
          response: { 200: ApprovalDetailResponse },
        },
      },
      async (request) => ({ data: await approvals.get(principalOf(request), request.params.id) }),
    );

    app.post(
      '/api/v1/approvals/:id/approve',
      {
        config: owner,
        schema: {
          operationId: 'approveApproval',
          summary: 'Approve a pending request: it runs once, as the token that made it, and the approval answers how it ended',
          tags,
          params: IdParams,
          response: { 200: ApprovalResponse },
        },
      },
      async (request) => ({ data: await approvals.approve(principalOf(request).ownerId, request.params.id, actorOf(request), run) }),
    );

    app.post(
      '/api/v1/approvals/:id/deny',
      {
        config: owner,
        schema: {
          operationId: 'denyApproval',
          summary: 'Deny a pending request: it never runs',
          tags,
          params: IdParams,
          response: { 200: ApprovalResponse },
        },
      },
      async (request) => ({ data: await approvals.deny(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );
  };
}
