import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { access, hasScope, principalOf, type ActionClass } from '../../http/access.js';
import { AppError, inRequestPart } from '../../http/errors.js';
import { decodeQueryName } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import {
  CallResultResponse,
  CategoryList,
  ExecuteBody,
  ListServicesQuery,
  MethodList,
  PassthroughParams,
  ProxyBody,
  ServiceDetailResponse,
  ServiceList,
  ServiceParams,
} from './integrations.schemas.js';
import { readVerb, rpcMethodOf } from './integrations.reads.js';
import type { IntegrationsService } from './integrations.service.js';

const tags = ['services'];
const PREFIX = '/api/v1/services/';

const CALL_NOTE =
  'The answer is 200 whenever the service answered: its status, safe headers and body are in data (a 404 or 500 of the service is data.status). Redirects are handed back, never followed. 502 UPSTREAM_ERROR when the service cannot be reached; 403 PROVIDER_NOT_CONNECTED when the owner has no credential for it.';

/**
 * The service's path and query exactly as the client encoded them, from the raw address (the
 * wildcard parameter arrives decoded, which would turn %2F into a separator). `?token=` is
 * Hearth's own credential when it authenticated the request, and is not passed on.
 */
function rawPassthroughTarget(request: FastifyRequest): { path: string; search: string } {
  const url = request.url;
  const cut = url.indexOf('?');
  const pathPart = cut === -1 ? url : url.slice(0, cut);
  const afterPrefix = pathPart.slice(pathPart.indexOf(PREFIX) + PREFIX.length);
  const slash = afterPrefix.indexOf('/');
  const path = slash === -1 ? '/' : afterPrefix.slice(slash);
  let pairs = cut === -1 ? [] : url.slice(cut + 1).split('&').filter((p) => p !== '');
  // Names compared decoded, as the query parser that found the token read them (`%74oken`).
  if (!request.headers.authorization) pairs = pairs.filter((p) => decodeQueryName(p.split('=')[0]!) !== 'token');
  return { path, search: pairs.join('&') };
}

export function integrationsRoutes(deps: { integrations: IntegrationsService }): FastifyPluginAsyncTypebox {
  const { integrations } = deps;

  /**
   * Whether a call only reads (integrations.reads.ts), asked once per request: the scope check
   * of the pass-through and the policy hook both need it, and for a connector or a discovered
   * API it takes a look-up.
   */
  const reads = new WeakMap<FastifyRequest, Promise<boolean>>();
  function callReads(request: FastifyRequest, service: string, httpMethod: unknown, path: unknown): Promise<boolean> {
    let answer = reads.get(request);
    if (!answer) {
      answer =
        readVerb(httpMethod) && typeof path === 'string'
          ? integrations.isRead(principalOf(request).ownerId, service, httpMethod as string, path)
          : Promise.resolve(false);
      reads.set(request, answer);
    }
    return answer;
  }
  const writeUnlessRead = async (read: Promise<boolean>): Promise<ActionClass | null> => ((await read) ? null : 'services.write');

  /**
   * A proxied request is a write (`services.write`) unless it reads: a GET or HEAD, and for an
   * RPC-style service a GET or HEAD of a method it declares a read. A named method of execute is
   * treated as a write whatever its HTTP method; the generic `request` is a read only as a proxy
   * call with the same method and path would be.
   */
  function proxyClass(request: FastifyRequest): Promise<ActionClass | null> {
    const body = request.body as { method?: unknown; path?: unknown } | undefined;
    return writeUnlessRead(callReads(request, (request.params as { service: string }).service, body?.method, body?.path));
  }
  function executeClass(request: FastifyRequest): Promise<ActionClass | null> | ActionClass {
    const body = request.body as { method?: unknown; params?: { httpMethod?: unknown; path?: unknown } } | undefined;
    if (body?.method !== 'request') return 'services.write';
    return writeUnlessRead(callReads(request, (request.params as { service: string }).service, body.params?.httpMethod, body.params?.path));
  }
  function passthroughClass(request: FastifyRequest): Promise<ActionClass | null> {
    return writeUnlessRead(callReads(request, (request.params as { service: string }).service, 'GET', rawPassthroughTarget(request).path));
  }

  return async (app) => {
    const read = { access: access.scope('services:read') };
    const write = { access: access.scope('services:write') };

    app.get(
      '/api/v1/services/categories',
      {
        config: read,
        schema: {
          operationId: 'listServiceCategories',
          summary: 'Service categories, with how many of the services are in each',
          tags,
          response: { 200: CategoryList },
        },
      },
      async (request) => ({ data: await integrations.categories(principalOf(request).ownerId) }),
    );

    app.get(
      '/api/v1/services',
      {
        config: read,
        schema: {
          operationId: 'listServices',
          summary: "Every service the owner can call: the built-in catalogue, the owner's connectors and discovered APIs",
          tags,
          querystring: ListServicesQuery,
          response: { 200: ServiceList },
        },
      },
      async (request) => ({ data: await integrations.list(principalOf(request).ownerId, request.query) }),
    );

    app.get(
      '/api/v1/services/:service',
      {
        config: read,
        schema: {
          operationId: 'getService',
          summary: 'One service: how it authenticates, how to connect it, and its methods',
          description: 'The specification names this parameter {name}; it is the same value as {service} in the other service routes.',
          tags,
          params: ServiceParams,
          response: { 200: ServiceDetailResponse },
        },
      },
      async (request) => ({ data: await integrations.get(principalOf(request).ownerId, request.params.service) }),
    );

    app.get(
      '/api/v1/services/:service/methods',
      {
        config: read,
        schema: {
          operationId: 'listServiceMethods',
          summary: "A service's methods with the JSON Schema of their params, and the generic `request`",
          description: 'The specification names this parameter {serviceId}; it is the same value as {service} in the other service routes.',
          tags,
          params: ServiceParams,
          response: { 200: MethodList },
        },
      },
      async (request) => ({ data: await integrations.methods(principalOf(request).ownerId, request.params.service) }),
    );

    app.post(
      '/api/v1/services/:service/execute',
      {
        config: { ...write, actionClass: executeClass },
        schema: {
          operationId: 'executeServiceMethod',
          summary: "Run one of a service's methods with the owner's credential",
          description: `params are checked against the method's schema (400 with details). ${CALL_NOTE} The specification names this parameter {serviceName}.`,
          tags,
          params: ServiceParams,
          body: ExecuteBody,
          response: { 200: CallResultResponse },
        },
      },
      async (request) => ({
        data: await inRequestPart('body', integrations.execute(principalOf(request).ownerId, request.params.service, request.body, actorOf(request))),
      }),
    );

    app.post(
      '/api/v1/services/:service/proxy',
      {
        config: { ...write, actionClass: proxyClass },
        schema: {
          operationId: 'proxyServiceRequest',
          summary: 'Send a raw request to a service, relative to its base address, with the owner\'s credential',
          description: `The path cannot leave the service's base address (absolute addresses, //host, backslashes and dot segments are refused). The caller never sets nor sees the credential. ${CALL_NOTE} The specification names this parameter {serviceName}.`,
          tags,
          params: ServiceParams,
          body: ProxyBody,
          response: { 200: CallResultResponse },
        },
      },
      async (request) => ({
        data: await inRequestPart('body', integrations.proxy(principalOf(request).ownerId, request.params.service, request.body, actorOf(request))),
      }),
    );

    app.get(
      '/api/v1/services/:service/*',
      {
        config: { ...read, actionClass: passthroughClass, forwardsQuery: true },
        schema: {
          operationId: 'callConnectedService',
          summary: "Pass a GET through to a service, with its query string and the owner's stored credential",
          description: `GET /api/v1/services/github/user/repos?per_page=5 calls GET https://api.github.com/user/repos?per_page=5. ?token= is not passed on when it carried Hearth's token. Fixed routes under /services (methods, the mail and storage routes) take precedence. Some services are RPC-style and act on a GET (Slack's chat.postMessage posts): for those (apiStyle rpc in GET /services/{service}), only a GET of one of their readMethods is a read; any other needs services:write (403 INSUFFICIENT_SCOPE without it) and is services.write under the token's policy. ${CALL_NOTE}`,
          tags,
          params: PassthroughParams,
          response: { 200: CallResultResponse },
        },
        // The route's access is services:read; a GET an RPC-style service takes as a write needs
        // services:write too. Checked before the policy hook, so a token lacking it is refused, not held.
        preHandler: async (request) => {
          const principal = principalOf(request);
          if (hasScope(principal, 'services:write')) return;
          const { service } = request.params;
          const { path } = rawPassthroughTarget(request);
          if (await callReads(request, service, 'GET', path)) return;
          throw new AppError(
            'INSUFFICIENT_SCOPE',
            `${service} is an RPC-style API that may act on a GET, and ${rpcMethodOf(path) || '/'} is not one of the methods it declares reads (GET /api/v1/services/${encodeURIComponent(service)} lists them), so this call needs the services:write scope, which this token lacks. Call a read method, or ask the owner for a token with services:write`,
            { details: { requiredScopes: ['services:write'] } },
          );
        },
      },
      async (request) => {
        const { path, search } = rawPassthroughTarget(request);
        // The service path and its query string are the URL's own, not one request part: errors name it `path`.
        return { data: await integrations.passthrough(principalOf(request).ownerId, request.params.service, path, search, actorOf(request)) };
      },
    );
  };
}
