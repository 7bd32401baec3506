/**
 * Finding the service a call names: the built-in catalogue first, then the owner's connectors,
 * then the APIs discovered on the websites of the owner's vault tokens, each made into one
 * shape (`ResolvedService`) with its methods.
 */
import type { ValidateFunction } from 'ajv';
import { AppError } from '../../http/errors.js';
import type { ConnectorRecord, ConnectorsService } from '../connectors/connectors.service.js';
import type { DiscoveredService, VaultService } from '../vault/vault.service.js';
import {
  createParamsAjv,
  HTTP_METHODS,
  placeholders,
  type AuthKind,
  type Catalogue,
  type CatalogueService,
  type HttpMethod,
  type MethodSpec,
} from './integrations.catalogue.js';
import type { Credential } from './integrations.engine.js';
import { REST, type ReadRule } from './integrations.reads.js';

export type ServiceSource = 'catalogue' | 'connector' | 'discovered';

/** A callable service, whatever it comes from. */
export interface ResolvedService {
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
  /** Which of its calls only read (integrations.reads.ts). */
  reads: ReadRule;
  catalogue?: CatalogueService;
  connector?: ConnectorRecord;
  discovered?: DiscoveredService;
}

export const CONNECTOR_CATEGORY = { id: 'custom', name: 'Custom connectors', description: "The owner's own connectors" };
export const DISCOVERED_CATEGORY = { id: 'discovered', name: 'Discovered APIs', description: 'APIs found on the websites of vault tokens' };

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
export function credentialHeaderName(service: ResolvedService): string | undefined {
  const auth = service.catalogue?.auth;
  if (auth?.kind === 'header') return auth.headerName;
  if (service.connector?.authType === 'header') return service.connector.headerName ?? undefined;
  const scheme = discoveredScheme(service.discovered);
  return service.discovered && scheme.placement === 'header' ? scheme.name : undefined;
}

/** Which query parameter a service's credential occupies. */
export function credentialQueryParam(service: ResolvedService): string | undefined {
  const auth = service.catalogue?.auth;
  if (auth?.kind === 'query') return auth.param;
  if (service.connector?.authType === 'query') return service.connector.queryParam ?? undefined;
  const scheme = discoveredScheme(service.discovered);
  return service.discovered && scheme.placement === 'query' ? scheme.name : undefined;
}

/** How a discovered API takes its key: its first scheme Hearth can fill, else a bearer token. */
export function discoveredScheme(api: DiscoveredService | undefined): Pick<Credential, 'placement' | 'name'> {
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

export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
  } catch {
    return false;
  }
}

export interface ResolverDeps {
  catalogue: Catalogue;
  connectors: Pick<ConnectorsService, 'findByName'>;
  vault: Pick<VaultService, 'discoveredServices'>;
  /** Per OAuth provider, an origin replacing the real one (the provider's ENDPOINT_OVERRIDE). */
  providerOrigins?: Record<string, string | undefined> | undefined;
  /** The most compiled validators of discovered operations kept (DISCOVERED_VALIDATORS_MAX). */
  discoveredValidatorsMax?: number | undefined;
}

export function createResolver(deps: ResolverDeps) {
  const { catalogue, connectors, vault } = deps;
  // Discovered operations have no schemas of their own; one validator per set of placeholders,
  // compiled when a method is first called. The names come from remote documents, so at most
  // DISCOVERED_VALIDATORS_MAX are kept (least recently used first out, and out of Ajv too).
  // These schemas are written by this code, not read from a file: no meta-schema check needed.
  const discoveredAjv = createParamsAjv({ strict: true, validateSchema: false });
  const discoveredValidators = new Map<string, { schema: Record<string, unknown>; validate: ValidateFunction }>();
  const validatorsMax = Math.max(1, deps.discoveredValidatorsMax ?? DISCOVERED_VALIDATORS_MAX);
  // Compiled on the first generic request, like every other method's validator.
  let requestValidator: ValidateFunction | undefined;
  const requestMethod: MethodSpec = {
    name: 'request',
    description: REQUEST_DESCRIPTION,
    httpMethod: 'GET',
    path: '',
    params: REQUEST_PARAMS as unknown as Record<string, unknown>,
    get validate() {
      requestValidator ??= discoveredAjv.compile(REQUEST_PARAMS);
      return requestValidator;
    },
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
      reads: service.apiStyle === 'rpc' ? { apiStyle: 'rpc', readMethods: service.readMethods ?? [] } : REST,
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
      reads: connector.apiStyle === 'rpc' ? { apiStyle: 'rpc', readMethods: connector.readMethods } : REST,
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
      reads: api.apiStyle === 'rpc' ? { apiStyle: 'rpc', readMethods: api.readMethods } : REST,
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


  return {
    requestMethod,
    fromCatalogue,
    fromConnector,
    fromDiscovered,
    usableDiscovered,
    resolve,
    /** How many validators of discovered operations are compiled and kept. */
    discoveredValidatorsKept: (): number => discoveredValidators.size,
  };
}

export type Resolver = ReturnType<typeof createResolver>;
