import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { hasOwnerRight } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { actorOf } from '../audit/audit.service.js';
import type { ApprovalsService } from './approvals.service.js';

/** The request's path and query without a `token` query parameter: a secret is never recorded. */
export function recordedUrl(url: string): string {
  const parsed = new URL(url, 'http://local');
  parsed.searchParams.delete('token');
  return parsed.pathname + parsed.search;
}

/**
 * The one place policies are enforced: a preHandler, after access control and validation, so
 * that only a request that would run is held, and no route can forget it. It is attached to
 * each route that declares `config.actionClass` as the route is added (the hot routes, which
 * declare none, run no hook for it); the owner's own tokens (master, session) are never held;
 * an approved replay passes, since its approval was the decision. Call before any route is added.
 */
export function registerApprovalPolicies(app: FastifyInstance, approvals: Pick<ApprovalsService, 'ruleFor' | 'hold'>): void {
  const decide = async (request: FastifyRequest, reply: FastifyReply) => {
    const declared = request.routeOptions.config?.actionClass;
    const principal = request.principal;
    if (!declared || !principal) return;
    const actionClass = typeof declared === 'string' ? declared : await declared(request);
    if (!actionClass) return;
    const rule = await approvals.ruleFor(principal, actionClass);
    if (rule === 'allow') return;
    if (rule === 'deny') {
      throw new AppError('POLICY_DENIED', `The owner's policy for this token denies ${actionClass}. Ask the owner to change the token's policy (PUT /api/v1/tokens/{id}/policy)`, {
        details: { actionClass },
      });
    }
    // A held request is kept as JSON and run again as JSON: a body of another type (a file
    // upload, a raw SKILL.md) cannot be held, so `ask` refuses it rather than hold what would fail.
    const type = request.headers['content-type'];
    if (type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      throw new AppError(
        'POLICY_DENIED',
        `The owner's policy for this token asks before ${actionClass}, and a ${type.split(';')[0]} body cannot be held for approval. Send the same change as JSON where the API takes it, or ask the owner to allow ${actionClass} for this token (PUT /api/v1/tokens/{id}/policy)`,
        { details: { actionClass } },
      );
    }
    const url = recordedUrl(request.url);
    const held = await approvals.hold(
      principal,
      {
        actionClass,
        method: request.method,
        url,
        operationId: (request.routeOptions.schema?.operationId as string | undefined) ?? null,
        params: (request.params ?? {}) as Record<string, string>,
        body: request.body,
      },
      actorOf(request),
    );
    const location = `/api/v1/approvals/${held.id}`;
    reply.code(202).header('location', location).send({ data: { approvalId: held.id, status: 'pending', expiresAt: held.expiresAt } });
  };
  // A callback hook, not an async one: most requests on these routes (memory writes among them)
  // come from the owner's own tokens, which pass without a promise.
  const enforce = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const principal = request.principal;
    if (!principal || hasOwnerRight(principal) || request.approvalReplay) {
      done();
      return;
    }
    decide(request, reply).then(() => {
      // A held request is answered (202): the route does not run.
      if (!reply.sent) done();
    }, done);
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.actionClass) return;
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...existing, enforce];
  });
}
