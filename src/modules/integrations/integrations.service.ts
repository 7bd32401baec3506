/**
 * The services an owner can call with stored credentials (the catalogue, connectors and
 * discovered APIs): listing them, and calling them by named method, proxy or pass-through.
 * Resolving a name is integrations.resolve.ts, the credential integrations.credentials.ts, the
 * call itself integrations.call.ts.
 */
import { InputError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { ConnectorsService } from '../connectors/connectors.service.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { VaultService } from '../vault/vault.service.js';
import { createSender } from './integrations.call.js';
import { methodTakesBody, paramsErrors, type Catalogue, type HttpMethod, type MethodSpec } from './integrations.catalogue.js';
import { createCredentials } from './integrations.credentials.js';
import { callerHeaders, methodCall, queryPairs, type ShapedResponse, type UpstreamCall } from './integrations.engine.js';
import { isReadCall, readVerb } from './integrations.reads.js';
import type { MethodSummary, ProxyInput, ServiceCategory, ServiceDetail, ServiceSummary } from './integrations.schemas.js';
import {
  CONNECTOR_CATEGORY,
  createResolver,
  credentialHeaderName,
  credentialQueryParam,
  DISCOVERED_CATEGORY,
  type ResolvedService,
  type ServiceSource,
} from './integrations.resolve.js';

export { DISCOVERED_VALIDATORS_MAX, type ServiceSource } from './integrations.resolve.js';

export interface IntegrationsServiceDeps {
  catalogue: Catalogue;
  outbound: Pick<OutboundClient, 'request'>;
  connectors: Pick<ConnectorsService, 'findByName' | 'all'>;
  vault: Pick<VaultService, 'secretFor' | 'findByService' | 'discoveredServices' | 'list'>;
  oauth: Pick<OAuthService, 'accessToken' | 'connections' | 'providerIds'>;
  audit: Pick<AuditService, 'record'>;
  /** Per OAuth provider, an origin replacing the real one (the provider's ENDPOINT_OVERRIDE). */
  providerOrigins?: Record<string, string | undefined>;
  /** The most compiled validators of discovered operations kept (DISCOVERED_VALIDATORS_MAX). */
  discoveredValidatorsMax?: number;
}

export function createIntegrationsService(deps: IntegrationsServiceDeps) {
  const { catalogue, connectors, vault, oauth } = deps;
  const resolver = createResolver(deps);
  const { requestMethod, fromCatalogue, fromConnector, fromDiscovered, usableDiscovered, resolve } = resolver;
  const { connectHow, credentialFor } = createCredentials(deps);
  const send = createSender({ outbound: deps.outbound, audit: deps.audit, credentialFor });

  /** All the owner's vault tokens, for the connected flags (owners keep a handful). */
  async function vaultTokens(ownerId: string): Promise<Array<{ id: string; service: string }>> {
    const out: Array<{ id: string; service: string }> = [];
    let cursor: string | undefined;
    do {
      const page = await vault.list(ownerId, { limit: 200, cursor });
      out.push(...page.tokens.map((t) => ({ id: t.id, service: t.service })));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return out;
  }

  /** Everything the owner can call, with whether a credential for it exists. */
  async function inventory(ownerId: string): Promise<Array<{ service: ResolvedService; connected: boolean }>> {
    const [connections, tokens, owned, discovered] = await Promise.all([
      oauth.connections(ownerId),
      vaultTokens(ownerId),
      connectors.all(ownerId),
      vault.discoveredServices(ownerId),
    ]);
    const oauthConnected = new Set(connections.filter((c) => c.status === 'connected').map((c) => c.provider));
    const tokenServices = new Set(tokens.map((t) => t.service.toLowerCase()));
    const tokenIds = new Set(tokens.map((t) => t.id));
    const out: Array<{ service: ResolvedService; connected: boolean }> = catalogue.services.map((s) => ({
      service: fromCatalogue(s),
      connected: (s.auth.kind === 'oauth' && oauthConnected.has(s.auth.provider)) || tokenServices.has(s.id),
    }));
    for (const connector of owned) {
      out.push({ service: fromConnector(connector), connected: connector.vaultTokenId === null || tokenIds.has(connector.vaultTokenId) });
    }
    const connectorNames = new Set(owned.map((c) => c.name.toLowerCase()));
    for (const api of usableDiscovered(discovered, connectorNames)) out.push({ service: fromDiscovered(api), connected: true });
    return out;
  }

  function summary(service: ResolvedService, connected: boolean): ServiceSummary {
    return {
      id: service.id,
      name: service.name,
      description: service.description,
      category: service.category,
      source: service.source,
      authKind: service.authKind,
      connected,
      methodsCount: service.methods.length + 1,
    };
  }

  function findMethod(service: ResolvedService, name: string): MethodSpec {
    if (name === 'request') return requestMethod;
    const method = service.methods.find((m) => m.name === name);
    if (!method) {
      throw new InputError(
        'method',
        `must be one of: ${['request', ...service.methods.map((m) => m.name)].join(', ')}`,
        `${service.name} has no method ${name}; GET /api/v1/services/${encodeURIComponent(service.id)}/methods lists them`,
      );
    }
    return method;
  }

  function bodyOf(method: string, body: unknown, field: string): string | undefined {
    if (body === undefined) return undefined;
    if (!methodTakesBody(method)) {
      throw new InputError(field, `is not allowed with ${method}`, `A ${method} request has no body; send the values in the query`);
    }
    return JSON.stringify(body);
  }

  return {
    /** How many validators of discovered operations are compiled and kept (for tests). */
    discoveredValidatorsKept(): number {
      return resolver.discoveredValidatorsKept();
    },

    /** The categories, each with how many of the owner's services are in it. */
    async categories(ownerId: string): Promise<ServiceCategory[]> {
      const counts = new Map<string, number>();
      for (const { service } of await inventory(ownerId)) counts.set(service.category, (counts.get(service.category) ?? 0) + 1);
      return [...catalogue.categories, CONNECTOR_CATEGORY, DISCOVERED_CATEGORY]
        .map((c) => ({ ...c, count: counts.get(c.id) ?? 0 }))
        .filter((c) => c.count > 0 || catalogue.categories.some((k) => k.id === c.id));
    },

    async list(ownerId: string, filter: { category?: string | undefined; source?: ServiceSource | undefined; connected?: boolean | undefined } = {}): Promise<ServiceSummary[]> {
      return (await inventory(ownerId))
        .filter(({ service, connected }) =>
          (filter.category === undefined || service.category === filter.category.toLowerCase()) &&
          (filter.source === undefined || service.source === filter.source) &&
          (filter.connected === undefined || connected === filter.connected),
        )
        .map(({ service, connected }) => summary(service, connected));
    },

    async get(ownerId: string, name: string): Promise<ServiceDetail> {
      const service = await resolve(ownerId, name);
      const connected = (await inventory(ownerId)).find((s) => s.service.source === service.source && s.service.id === service.id)?.connected ?? false;
      const auth: ServiceDetail['auth'] = { kind: service.authKind };
      if (service.catalogue?.auth.kind === 'oauth') auth.provider = service.catalogue.auth.provider;
      const headerName = credentialHeaderName(service);
      if (headerName) auth.headerName = headerName;
      const param = credentialQueryParam(service);
      if (param) auth.param = param;
      return {
        ...summary(service, connected),
        baseUrl: service.baseUrl,
        docsUrl: service.docsUrl,
        auth,
        connect: connectHow(service),
        apiStyle: service.reads.apiStyle,
        readMethods: [...service.reads.readMethods],
        methods: [requestMethod, ...service.methods].map((m) => ({
          name: m.name,
          description: m.description,
          httpMethod: m === requestMethod ? null : m.httpMethod,
          path: m === requestMethod ? null : m.path,
        })),
      };
    },

    async methods(ownerId: string, name: string): Promise<MethodSummary[]> {
      const service = await resolve(ownerId, name);
      return [...service.methods, requestMethod].map((m) => ({
        name: m.name,
        description: m.description,
        httpMethod: m === requestMethod ? null : m.httpMethod,
        path: m === requestMethod ? null : m.path,
        params: m.params,
      }));
    },

    /**
     * Whether the call `httpMethod path` to the service `name` only reads (integrations.reads.ts):
     * what decides between services:read and services:write, and whether a call is in the
     * services.write class. Only a GET or HEAD needs the service looked up.
     */
    async isRead(ownerId: string, name: string, httpMethod: string, path: string): Promise<boolean> {
      if (!readVerb(httpMethod)) return false;
      return isReadCall((await resolve(ownerId, name)).reads, httpMethod, path);
    },

    /** Runs a named method (or `request`) with params validated against its schema. */
    async execute(ownerId: string, name: string, input: { method: string; params?: Record<string, unknown> | undefined }, actor: AuditActor): Promise<ShapedResponse> {
      const service = await resolve(ownerId, name);
      const method = findMethod(service, input.method);
      const params = input.params ?? {};
      if (!method.validate(params)) {
        const details = paramsErrors(method.validate.errors);
        throw new InputError(details, `Invalid params for ${service.id}.${method.name}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`);
      }
      let call: UpstreamCall;
      if (method === requestMethod) {
        const p = params as { httpMethod: HttpMethod; path: string; query?: Record<string, unknown>; body?: unknown };
        const body = bodyOf(p.httpMethod, p.body, 'params.body');
        call = {
          method: p.httpMethod,
          path: p.path,
          inputPrefix: 'params.',
          query: queryPairs(p.query),
          headers: body !== undefined ? { 'content-type': 'application/json' } : {},
          body,
        };
      } else if (service.discovered) {
        const { query, body: rawBody, ...pathParams } = params as { query?: Record<string, unknown>; body?: unknown };
        const base = methodCall({ httpMethod: method.httpMethod, path: method.path }, pathParams);
        const body = bodyOf(method.httpMethod, rawBody, 'params.body');
        call = { ...base, query: queryPairs(query), headers: body !== undefined ? { 'content-type': 'application/json' } : {}, body, inputPrefix: 'params.' };
      } else {
        call = { ...methodCall(method, params), inputPrefix: 'params.' };
      }
      return send(ownerId, service, call, { actor, via: 'execute', method: method.name });
    },

    /** A raw call the caller shapes, within the proxy's rules. */
    async proxy(ownerId: string, name: string, input: ProxyInput, actor: AuditActor): Promise<ShapedResponse> {
      const service = await resolve(ownerId, name);
      const headers = callerHeaders(input.headers, credentialHeaderName(service));
      if (input.body !== undefined && !methodTakesBody(input.method)) {
        throw new InputError('body', `is not allowed with ${input.method}`, `A ${input.method} request has no body`);
      }
      let body: string | undefined;
      if (input.body !== undefined) {
        const type = headers['content-type'];
        // A string body with a non-JSON type is sent as it is (forms, XML, plain text).
        if (typeof input.body === 'string' && type !== undefined && !/json/i.test(type)) body = input.body;
        else {
          body = JSON.stringify(input.body);
          headers['content-type'] ??= 'application/json';
        }
      }
      const call: UpstreamCall = { method: input.method, path: input.path, query: queryPairs(input.query), headers, body };
      return send(ownerId, service, call, { actor, via: 'proxy' });
    },

    /** GET /services/{service}/*: a read passed through with its query string. */
    async passthrough(ownerId: string, name: string, path: string, search: string, actor: AuditActor): Promise<ShapedResponse> {
      const service = await resolve(ownerId, name);
      const call: UpstreamCall = { method: 'GET', path: search ? `${path}?${search}` : path, query: [], headers: {} };
      return send(ownerId, service, call, { actor, via: 'passthrough' });
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;