import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { hasOwnerRight } from '../../http/access.js';
import { requestChannel } from '../../http/channel.js';
import { AppError } from '../../http/errors.js';
import { decodeQueryName } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import type { ApprovalsService } from './approvals.service.js';

/**
 * The request's path and query as received, without a `token` query parameter (a secret is
 * never recorded). Nothing is re-encoded or normalized: this is the address the replay runs.
 */
export function recordedUrl(url: string): string {
  const cut = url.indexOf('?');
  if (cut === -1) return url;
  // Names compared decoded, as the query parser that found the token read them (`%74oken`).
  const pairs = url
    .slice(cut + 1)
    .split('&')
    .filter((pair) => pair !== '' && decodeQueryName(pair.split('=')[0]!) !== 'token');
  return pairs.length > 0 ? `${url.slice(0, cut)}?${pairs.join('&')}` : url.slice(0, cut);
}

/**
 * Why a held request's address could run as another one, or null when it cannot. The replay
 * runs in-process through a URL parser, which rewrites `\` to `/` and resolves `.` and `..`
 * segments (also written `%2e`), while the router matched the address as it came:
 * `/services/weather\..\github/proxy` is routed to a service named `weather\..\github` and would
 * be replayed as `/services/github/proxy`. So only an address every parser reads the same is
 * held: no backslash (nor `%5c`, which some proxies decode into one) and nothing the URL parser
 * would change.
 */
export function ambiguousAddress(url: string): { reason: string; readAs: string | null } | null {
  const cut = url.indexOf('?');
  const path = cut === -1 ? url : url.slice(0, cut);
  if (/\\|%5c/i.test(path)) return { reason: 'it holds a backslash (\\ or %5C), which is read as a / by some and as part of a name by others', readAs: null };
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://hearth.invalid');
  } catch {
    return { reason: 'it is not a valid address', readAs: null };
  }
  // The path alone decides the route; the query string (which the parser re-encodes: `'` as
  // %27) means the same decoded, as every route reads it.
  const normal = parsed.pathname + parsed.search;
  if (parsed.origin !== 'http://hearth.invalid' || parsed.pathname !== path) {
    return { reason: 'it holds `.` or `..` segments (or their encoded forms, %2E), or characters a URL parser rewrites', readAs: parsed.origin === 'http://hearth.invalid' ? normal : null };
  }
  return null;
}

/**
 * A route whose requests may be held takes no query parameter it does not declare (besides the
 * `token` that authenticates): what the owner approves is described from what the route reads,
 * and an undeclared `?path=` next to a body's `path` would let the two disagree.
 */
function refuseUndeclaredQuery(declared: ReadonlySet<string>) {
  // A callback hook, not an async one: it runs on every request of routes as hot as POST /memory,
  // and almost always finds nothing, which should cost no promise.
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const query = request.query as Record<string, unknown> | undefined;
    const unknown = query ? Object.keys(query).filter((name) => !declared.has(name)) : [];
    if (unknown.length === 0) return done();
    const takes = declared.size > 1 ? `it takes only ${[...declared].filter((n) => n !== 'token').map((n) => `\`${n}\``).join(', ')} (and \`token\`)` : 'it reads its input from the path and the JSON body only (the query string may carry only `token`)';
    done(
      new AppError(
        'VALIDATION_ERROR',
        `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `\`${n}\``).join(', ')}: ${takes}. Remove ${unknown.length > 1 ? 'them' : 'it'}, and send the route's fields in the body`,
        { details: unknown.map((name) => ({ field: `querystring.${name}`, message: 'is not a parameter of this route' })) },
      ),
    );
  };
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
    const ambiguous = ambiguousAddress(url);
    if (ambiguous) {
      throw new AppError(
        'VALIDATION_ERROR',
        `This request cannot be held for the owner's approval: its address ${JSON.stringify(url)} could run as another one, since ${ambiguous.reason}${ambiguous.readAs ? ` (it reads as ${JSON.stringify(ambiguous.readAs)})` : ''}. Send it to the route's own address, with plain / between segments`,
        { details: [{ field: 'path', message: `could run as another address: ${ambiguous.reason}` }] },
      );
    }
    const held = await approvals.hold(
      principal,
      {
        actionClass,
        method: request.method,
        url,
        operationId: (request.routeOptions.schema?.operationId as string | undefined) ?? null,
        params: (request.params ?? {}) as Record<string, string>,
        body: request.body,
        channel: requestChannel(request),
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
    // Its query string is what it calls: described from the address, and replayed with it.
    if (route.config.forwardsQuery) return;
    const querystring = (route.schema as { querystring?: { properties?: Record<string, unknown> } } | undefined)?.querystring;
    const names = new Set(['token', ...Object.keys(querystring?.properties ?? {})]);
    const validation = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
    route.preValidation = [...validation, refuseUndeclaredQuery(names)];
  });
}
