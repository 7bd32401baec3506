import type { ValidateFunction } from 'ajv';
import { AppError } from '../../http/errors.js';
import type { OutboundClient, OutboundResponse } from '../../http/outbound.js';
import { siteBindingRefusal } from '../../lib/same-site.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { ConnectorRecord, ConnectorsService } from '../connectors/connectors.service.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { DiscoveredService, VaultService } from '../vault/vault.service.js';
import {
  createParamsAjv,
  HTTP_METHODS,
  methodTakesBody,
  paramsErrors,
  placeholders,
  type AuthKind,
  type Catalogue,
  type CatalogueService,
  type HttpMethod,
  type MethodSpec,
} from './integrations.catalogue.js';
import {
  callerHeaders,
  methodCall,
  queryPairs,
  refuseHearthTokens,
  secretForms,
  shapeResponse,
  targetUrl,
  withCredential,
  type Credential,
  type ShapedResponse,
  type UpstreamCall,
} from './integrations.engine.js';

export type ServiceSource = 'catalogue' | 'connector' | 'discovered';

/** A callable service, whatever it comes from. */
interface ResolvedService {
  id: string;
  name: string;
  description: string;
  category: string;
  source: ServiceSource;
  authKind: AuthKind;
  baseUrl: string;
  docsUrl: string | null;
  defaultHeaders: Record<string, string>;
  /** Named methods; `request` is added to every service. */
  methods: MethodSpec[];
  catalogue?: CatalogueService;
  connector?: ConnectorRecord;
  discovered?: DiscoveredService;
}

/** A credential for one call, with a way to get a fresh one when the upstream refuses it. */
interface CallCredential extends Credential {
  source: 'oauth' | 'vault' | 'none';
  vaultTokenId?: string;
  /** OAuth only: a new access token after the upstream answered 401 to `rejected`. */
  renew?: (rejected: string) => Promise<string | undefined>;
}

export interface ServiceSummary {
  id: string;
  name: string;
  description: string;
  category: string;
  source: ServiceSource;
  authKind: AuthKind;
  connected: boolean;
  methodsCount: number;
}

export interface MethodSummary {
  name: string;
  description: string;
  httpMethod: HttpMethod | null;
  path: string | null;
  params: Record<string, unknown>;
}

export interface ServiceDetail extends ServiceSummary {
  baseUrl: string;
  docsUrl: string | null;
  auth: { kind: AuthKind; provider?: string; headerName?: string; param?: string };
  connect: { how: string; oauthAuthorize: string | null; vaultService: string | null };
  methods: Array<Omit<MethodSummary, 'params'>>;
}

export interface ProxyInput {
  method: HttpMethod;
  path: string;
  query?: Record<string, unknown> | undefined;
  headers?: Record<string, string> | undefined;
  body?: unknown;
}

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

const CONNECTOR_CATEGORY = { id: 'custom', name: 'Custom connectors', description: "The owner's own connectors" };
const DISCOVERED_CATEGORY = { id: 'discovered', name: 'Discovered APIs', description: 'APIs found on the websites of vault tokens' };

/** The generic method every service has. */
const REQUEST_PARAMS = {
  type: 'object',
  properties: {
    httpMethod: { type: 'string', enum: [...HTTP_METHODS], description: 'The HTTP method' },
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: "A path relative to the service's base address (e.g. /users/me), optionally with ?query",
    },
    query: {
      type: 'object',
      description: 'Query parameters; arrays repeat the parameter',
      additionalProperties: {
        anyOf: [{ type: ['string', 'number', 'boolean'] }, { type: 'array', items: { type: ['string', 'number', 'boolean'] } }],
      },
    },
    body: { description: 'JSON body (not with GET, HEAD, DELETE or OPTIONS)' },
  },
  required: ['httpMethod', 'path'],
  additionalProperties: false,
} as const;
const REQUEST_DESCRIPTION = "Any call to the service: an HTTP method and a path relative to the service's base address";

/** Which headers a service's credential occupies, so a caller can never set it. */
function credentialHeaderName(service: ResolvedService): string | undefined {
  const auth = service.catalogue?.auth;
  if (auth?.kind === 'header') return auth.headerName;
  if (service.connector?.authType === 'header') return service.connector.headerName ?? undefined;
  const scheme = discoveredScheme(service.discovered);
  return service.discovered && scheme.placement === 'header' ? scheme.name : undefined;
}

/** Which query parameter a service's credential occupies. */
function credentialQueryParam(service: ResolvedService): string | undefined {
  const auth = service.catalogue?.auth;
  if (auth?.kind === 'query') return auth.param;
  if (service.connector?.authType === 'query') return service.connector.queryParam ?? undefined;
  const scheme = discoveredScheme(service.discovered);
  return service.discovered && scheme.placement === 'query' ? scheme.name : undefined;
}

/** How a discovered API takes its key: its first scheme Hearth can fill, else a bearer token. */
function discoveredScheme(api: DiscoveredService | undefined): Pick<Credential, 'placement' | 'name'> {
  for (const scheme of api?.authSchemes ?? []) {
    const type = scheme.type.toLowerCase();
    if (type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') return { placement: 'bearer' };
    if (type === 'http' && scheme.scheme?.toLowerCase() === 'basic') return { placement: 'basic' };
    if (type === 'apikey' && scheme.in === 'header' && scheme.paramName) return { placement: 'header', name: scheme.paramName };
    if (type === 'apikey' && scheme.in === 'query' && scheme.paramName) return { placement: 'query', name: scheme.paramName };
    if (type === 'oauth2' || type === 'openidconnect') return { placement: 'bearer' };
  }
  return { placement: 'bearer' };
}

function authKindOf(placement: Credential['placement']): AuthKind {
  return placement === 'basic' ? 'header' : placement;
}

/** The most compiled validators of discovered operations kept at once. */
export const DISCOVERED_VALIDATORS_MAX = 256;

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
  } catch {
    return false;
  }
}

export function createIntegrationsService(deps: IntegrationsServiceDeps) {
  const { catalogue, outbound, connectors, vault, oauth, audit } = deps;
  // Discovered operations have no schemas of their own; one validator per set of placeholders,
  // compiled when a method is first called. The names come from remote documents, so at most
  // DISCOVERED_VALIDATORS_MAX are kept (least recently used first out, and out of Ajv too).
  const discoveredAjv = createParamsAjv();
  const discoveredValidators = new Map<string, { schema: Record<string, unknown>; validate: ValidateFunction }>();
  const validatorsMax = Math.max(1, deps.discoveredValidatorsMax ?? DISCOVERED_VALIDATORS_MAX);
  const requestMethod: MethodSpec = {
    name: 'request',
    description: REQUEST_DESCRIPTION,
    httpMethod: 'GET',
    path: '',
    params: REQUEST_PARAMS as unknown as Record<string, unknown>,
    validate: createParamsAjv().compile(REQUEST_PARAMS),
  };

  function baseUrlOf(service: CatalogueService): string {
    const provider = service.auth.kind === 'oauth' ? service.auth.provider : undefined;
    const origin = provider ? deps.providerOrigins?.[provider] : undefined;
    if (!origin) return service.baseUrl;
    const base = new URL(service.baseUrl);
    return `${origin.replace(/\/+$/, '')}${base.pathname.replace(/\/+$/, '')}`;
  }

  function fromCatalogue(service: CatalogueService): ResolvedService {
    return {
      id: service.id,
      name: service.name,
      description: service.description,
      category: service.category,
      source: 'catalogue',
      authKind: service.auth.kind,
      baseUrl: baseUrlOf(service),
      docsUrl: service.docsUrl,
      defaultHeaders: service.defaultHeaders ?? {},
      methods: service.methods,
      catalogue: service,
    };
  }

  function fromConnector(connector: ConnectorRecord): ResolvedService {
    return {
      id: connector.name,
      name: connector.name,
      description: `The owner's connector to ${connector.baseUrl}`,
      category: CONNECTOR_CATEGORY.id,
      source: 'connector',
      authKind: connector.authType,
      baseUrl: connector.baseUrl,
      docsUrl: null,
      defaultHeaders: {},
      methods: [],
      connector,
    };
  }

  function discoveredValidator(names: string[]): ValidateFunction {
    const key = JSON.stringify(names);
    let entry = discoveredValidators.get(key);
    if (entry) {
      discoveredValidators.delete(key); // to the end: most recently used
    } else {
      const schema = discoveredParams(names);
      entry = { schema, validate: discoveredAjv.compile(schema) };
      for (const [oldKey, old] of discoveredValidators) {
        if (discoveredValidators.size < validatorsMax) break;
        discoveredValidators.delete(oldKey);
        // Ajv keeps every schema it compiled (keyed by the schema object) until told otherwise.
        discoveredAjv.removeSchema(old.schema);
      }
    }
    discoveredValidators.set(key, entry);
    return entry.validate;
  }

  function discoveredParams(names: string[]): Record<string, unknown> {
    return {
      type: 'object',
      properties: {
        ...Object.fromEntries(names.map((n) => [n, { type: ['string', 'integer'], description: `Path parameter {${n}}` }])),
        query: REQUEST_PARAMS.properties.query,
        body: { description: 'JSON body, for methods that take one' },
      },
      required: names,
      additionalProperties: false,
    };
  }

  function fromDiscovered(api: DiscoveredService): ResolvedService {
    const seen = new Set<string>(['request']);
    const methods: MethodSpec[] = [];
    for (const op of api.operations) {
      const httpMethod = op.method.toUpperCase() as HttpMethod;
      if (!HTTP_METHODS.includes(httpMethod) || !op.path.startsWith('/') || seen.has(op.operationId)) continue;
      seen.add(op.operationId);
      const names = placeholders(op.path);
      methods.push({
        name: op.operationId,
        description: op.summary ?? `${httpMethod} ${op.path}`,
        httpMethod,
        path: op.path,
        params: discoveredParams(names),
        get validate() {
          return discoveredValidator(names);
        },
      });
    }
    return {
      id: api.service,
      name: api.title ?? api.service,
      description: api.description ?? `The API found on ${api.websiteUrl}`,
      category: DISCOVERED_CATEGORY.id,
      source: 'discovered',
      authKind: authKindOf(discoveredScheme(api).placement),
      baseUrl: api.baseUrl,
      docsUrl: api.documents[0]?.url ?? null,
      defaultHeaders: {},
      methods,
      discovered: api,
    };
  }

  /** The usable discovered APIs: with an http(s) base address and a name nothing else has. */
  function usableDiscovered(apis: DiscoveredService[], connectorNames: Set<string>): DiscoveredService[] {
    return apis.filter((api) => {
      const key = api.service.toLowerCase();
      return isHttpUrl(api.baseUrl) && !catalogue.get(key) && !connectorNames.has(key);
    });
  }

  /** Catalogue first, then the owner's connectors, then discovered APIs; 404 otherwise. */
  async function resolve(ownerId: string, name: string): Promise<ResolvedService> {
    const key = name.toLowerCase();
    const builtIn = catalogue.get(key);
    if (builtIn) return fromCatalogue(builtIn);
    const connector = await connectors.findByName(ownerId, key);
    if (connector) return fromConnector(connector);
    const api = (await vault.discoveredServices(ownerId)).find((d) => d.service.toLowerCase() === key && isHttpUrl(d.baseUrl));
    if (api) return fromDiscovered(api);
    throw new AppError('NOT_FOUND', `Service ${name} not found: GET /api/v1/services lists the built-in services, connectors and discovered APIs`);
  }

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

  function connectHow(service: ResolvedService): ServiceDetail['connect'] {
    if (service.catalogue) {
      const auth = service.catalogue.auth;
      if (auth.kind === 'oauth' && !oauth.providerIds().includes(auth.provider)) {
        // This server has no OAuth flow for the provider: a stored access token is the way.
        return {
          how: `Store an access token with POST /api/v1/vault/tokens (service "${service.catalogue.id}"); this server offers no OAuth connection for ${service.name}`,
          oauthAuthorize: null,
          vaultService: service.catalogue.id,
        };
      }
      return {
        how: service.catalogue.credentialHelp,
        oauthAuthorize: auth.kind === 'oauth' ? `GET /api/v1/oauth/authorize/${auth.provider}` : null,
        vaultService: service.catalogue.id,
      };
    }
    if (service.connector) {
      return {
        how:
          service.connector.authType === 'none'
            ? 'This connector sends no credential'
            : `Store the secret with POST /api/v1/vault/tokens and set its id with PUT /api/v1/connectors/${service.connector.id}`,
        oauthAuthorize: null,
        vaultService: null,
      };
    }
    return { how: `Uses the vault token ${service.discovered!.vaultTokenId} the API was discovered with`, oauthAuthorize: null, vaultService: null };
  }

  function notConnected(service: ResolvedService, reason?: string): AppError {
    const connect = connectHow(service);
    return new AppError('PROVIDER_NOT_CONNECTED', `${service.name} is not connected${reason ? ` (${reason})` : ''}: ${connect.how}`, {
      details: { service: service.id, ...connect },
    });
  }

  /** From a vault token's id; a deleted token means the service is no longer connected. */
  async function vaultCredential(ownerId: string, service: ResolvedService, vaultTokenId: string, placement: Pick<Credential, 'placement' | 'name'>): Promise<CallCredential> {
    try {
      const { secret } = await vault.secretFor(ownerId, vaultTokenId);
      return { ...placement, secret, source: 'vault', vaultTokenId };
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') throw notConnected(service, `vault token ${vaultTokenId} no longer exists`);
      throw error;
    }
  }

  /**
   * The owner's credential for a service: the OAuth connection for OAuth services, else the
   * newest vault token stored for the service's id; a connector's or discovered API's own token.
   */
  async function credentialFor(ownerId: string, service: ResolvedService): Promise<CallCredential> {
    if (service.connector) {
      const c = service.connector;
      if (c.authType === 'none') return { placement: 'none', source: 'none' };
      if (!c.vaultTokenId) throw notConnected(service);
      return vaultCredential(ownerId, service, c.vaultTokenId, { placement: c.authType, name: c.headerName ?? c.queryParam ?? undefined });
    }
    if (service.discovered) {
      const api = service.discovered;
      // Discovery keeps only a base address on the token's own site; metadata stored before that
      // rule (or otherwise) is checked again here, before the secret is read.
      const refusal = siteBindingRefusal(api.baseUrl, api.websiteUrl);
      if (refusal) {
        throw new AppError(
          'FORBIDDEN',
          `The API discovered on ${api.websiteUrl} names ${api.baseUrl} as its address; vault token ${api.vaultTokenId} was stored for ${api.websiteUrl} and is not sent there (${refusal}). Store the token again with discoverApi: true, or have the owner create a connector`,
          { details: { service: service.id, baseUrl: api.baseUrl, websiteUrl: api.websiteUrl } },
        );
      }
      return vaultCredential(ownerId, service, api.vaultTokenId, discoveredScheme(api));
    }

    const auth = service.catalogue!.auth;
    let oauthRefusal: AppError | undefined;
    if (auth.kind === 'oauth') {
      try {
        const { accessToken } = await oauth.accessToken(ownerId, auth.provider);
        return {
          placement: 'bearer',
          secret: accessToken,
          source: 'oauth',
          renew: async (rejected) => {
            try {
              const next = await oauth.accessToken(ownerId, auth.provider, { rejected });
              return next.accessToken !== rejected ? next.accessToken : undefined;
            } catch {
              return undefined;
            }
          },
        };
      } catch (error) {
        if (!(error instanceof AppError) || !['PROVIDER_NOT_CONNECTED', 'PROVIDER_NOT_CONFIGURED', 'NOT_FOUND'].includes(error.code)) throw error;
        oauthRefusal = error;
      }
    }
    const token = await vault.findByService(ownerId, service.catalogue!.id);
    if (!token) {
      // A connection that needs the owner's consent again says so in its own words.
      if (oauthRefusal?.code === 'PROVIDER_NOT_CONNECTED' && (oauthRefusal.details as { status?: string } | undefined)?.status === 'needs_reauth') {
        throw oauthRefusal;
      }
      throw notConnected(service, oauthRefusal?.code === 'PROVIDER_NOT_CONFIGURED' ? 'OAuth is not configured on this server' : undefined);
    }
    const placement: Pick<Credential, 'placement' | 'name'> =
      auth.kind === 'header' ? { placement: 'header', name: auth.headerName } : auth.kind === 'query' ? { placement: 'query', name: auth.param } : { placement: 'bearer' };
    return vaultCredential(ownerId, service, token.id, placement);
  }

  /** Sends a call with the credential and answers it shaped; redirects are handed back, not followed. */
  async function send(
    ownerId: string,
    service: ResolvedService,
    call: UpstreamCall,
    audited: { actor: AuditActor; via: 'execute' | 'proxy' | 'passthrough'; method?: string },
  ): Promise<ShapedResponse> {
    // The address is checked before any credential is fetched.
    targetUrl(service.baseUrl, call, { placement: 'none' });
    refuseHearthTokens(call);
    const credential = await credentialFor(ownerId, service);
    const secrets = new Set(secretForms(credential.secret, credential.placement));
    const once = (cred: Credential): Promise<OutboundResponse> => {
      const url = targetUrl(service.baseUrl, call, cred);
      return outbound.request({
        method: call.method,
        url: url.toString(),
        headers: withCredential({ ...service.defaultHeaders, ...call.headers }, cred),
        ...(call.body !== undefined ? { body: call.body } : {}),
        followRedirects: false,
      });
    };
    const pathOnly = call.path.split('?')[0];
    const record = (outcome: 'success' | 'failure', details: Record<string, unknown>) =>
      audit.record(audited.actor, {
        action: 'service.call',
        outcome,
        targetType: 'service',
        targetId: service.id,
        details: {
          via: audited.via,
          source: service.source,
          ...(audited.method ? { method: audited.method } : {}),
          httpMethod: call.method,
          path: pathOnly,
          credential: credential.source,
          ...(credential.vaultTokenId ? { vaultTokenId: credential.vaultTokenId } : {}),
          ...details,
        },
      });
    let response: OutboundResponse;
    try {
      response = await once(credential);
      if (response.status === 401 && credential.renew && credential.secret) {
        const renewed = await credential.renew(credential.secret);
        if (renewed) {
          for (const form of secretForms(renewed, 'bearer')) secrets.add(form);
          response = await once({ ...credential, secret: renewed });
        }
      }
    } catch (error) {
      await record('failure', { error: error instanceof AppError ? error.code : 'INTERNAL_ERROR' });
      throw error;
    }
    await record('success', { status: response.status });
    return shapeResponse(response, [...secrets].sort((a, b) => b.length - a.length));
  }

  function findMethod(service: ResolvedService, name: string): MethodSpec {
    if (name === 'request') return requestMethod;
    const method = service.methods.find((m) => m.name === name);
    if (!method) {
      throw new AppError('VALIDATION_ERROR', `${service.name} has no method ${name}; GET /api/v1/services/${encodeURIComponent(service.id)}/methods lists them`, {
        details: [{ field: 'body.method', message: `must be one of: ${['request', ...service.methods.map((m) => m.name)].join(', ')}` }],
      });
    }
    return method;
  }

  function bodyOf(method: string, body: unknown, field: string): string | undefined {
    if (body === undefined) return undefined;
    if (!methodTakesBody(method)) {
      throw new AppError('VALIDATION_ERROR', `A ${method} request has no body; send the values in the query`, { details: [{ field, message: `is not allowed with ${method}` }] });
    }
    return JSON.stringify(body);
  }

  return {
    /** How many validators of discovered operations are compiled and kept (for tests). */
    discoveredValidatorsKept(): number {
      return discoveredValidators.size;
    },

    /** The categories, each with how many of the owner's services are in it. */
    async categories(ownerId: string): Promise<Array<{ id: string; name: string; description: string; count: number }>> {
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

    /** Runs a named method (or `request`) with params validated against its schema. */
    async execute(ownerId: string, name: string, input: { method: string; params?: Record<string, unknown> | undefined }, actor: AuditActor): Promise<ShapedResponse> {
      const service = await resolve(ownerId, name);
      const method = findMethod(service, input.method);
      const params = input.params ?? {};
      if (!method.validate(params)) {
        const details = paramsErrors(method.validate.errors);
        throw new AppError('VALIDATION_ERROR', `Invalid params for ${service.id}.${method.name}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, { details });
      }
      let call: UpstreamCall;
      if (method === requestMethod) {
        const p = params as { httpMethod: HttpMethod; path: string; query?: Record<string, unknown>; body?: unknown };
        const body = bodyOf(p.httpMethod, p.body, 'params.body');
        call = {
          method: p.httpMethod,
          path: p.path,
          pathField: 'params.path',
          query: queryPairs(p.query),
          headers: body !== undefined ? { 'content-type': 'application/json' } : {},
          body,
        };
      } else if (service.discovered) {
        const { query, body: rawBody, ...pathParams } = params as { query?: Record<string, unknown>; body?: unknown };
        const base = methodCall({ httpMethod: method.httpMethod, path: method.path }, pathParams);
        const body = bodyOf(method.httpMethod, rawBody, 'params.body');
        call = { ...base, query: queryPairs(query), headers: body !== undefined ? { 'content-type': 'application/json' } : {}, body };
      } else {
        call = methodCall(method, params);
      }
      return send(ownerId, service, call, { actor, via: 'execute', method: method.name });
    },

    /** A raw call the caller shapes, within the proxy's rules. */
    async proxy(ownerId: string, name: string, input: ProxyInput, actor: AuditActor): Promise<ShapedResponse> {
      const service = await resolve(ownerId, name);
      const headers = callerHeaders(input.headers, credentialHeaderName(service));
      if (input.body !== undefined && !methodTakesBody(input.method)) {
        throw new AppError('VALIDATION_ERROR', `A ${input.method} request has no body`, { details: [{ field: 'body.body', message: `is not allowed with ${input.method}` }] });
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
      const call: UpstreamCall = { method: input.method, path: input.path, pathField: 'body.path', query: queryPairs(input.query), headers, body };
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
