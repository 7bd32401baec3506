import { checkAccess, hasOwnerRight, hasScope, type CatalogRoute, type Principal, type Scope } from '../../http/access.js';
import { SCOPE_NAMES, SCOPES } from '../permissions/permissions.scopes.js';
import type { Capability, DiscoveryDocument, QuickStart, ScopeInfo, TokenCapabilities } from './discovery.schemas.js';
import {
  AUTH_HINT,
  buildLlmsText,
  compareNames,
  DESCRIPTION,
  IMPORTANT,
  MCP_PREFER,
  NO_TOKEN_DESCRIPTION,
  noTokenSteps,
  sessionSteps,
  URL_WARNING,
} from './discovery.guide.js';

/** The slice of an OpenAPI document read here: each operation's tags. */
export interface IndexedRoute extends CatalogRoute {
  operationId: string;
  summary: string;
  /** The first OpenAPI tag: the capability the route belongs to (`other` without one). */
  tag: string;
  /** `METHOD /path`. */
  endpoint: string;
}

/** Everything one kind of token may do, computed once per distinct token shape. */
interface TokenView {
  scopes: Scope[];
  endpoints: string[];
  capabilities: Capability[];
}

interface CatalogIndex {
  routes: IndexedRoute[];
  discovery: DiscoveryDocument;
  quickStart: { anonymous: QuickStart; authenticated: QuickStart };
  llms: string;
  scopes: ScopeInfo[];
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Distinct token shapes are few (kind × role × scope set); the cap only bounds a pathological owner. */
const MAX_VIEWS = 1000;

function methodRank(method: string): number {
  const i = METHOD_ORDER.indexOf(method);
  return i === -1 ? METHOD_ORDER.length : i;
}

/**
 * Orders the catalogue. Refuses a route without an
 * operationId, or two routes sharing one: the discovery map is keyed by it, and a silent
 * collision would hide an endpoint from every agent.
 */
export function indexRoutes(catalog: readonly CatalogRoute[]): IndexedRoute[] {
  const seen = new Map<string, string>();
  const routes = catalog.map((route): IndexedRoute => {
    const endpoint = `${route.method} ${route.path}`;
    if (!route.operationId) throw new Error(`Route ${endpoint} has no operationId (schema.operationId)`);
    const other = seen.get(route.operationId);
    if (other) throw new Error(`Routes ${other} and ${endpoint} share the operationId ${route.operationId}`);
    seen.set(route.operationId, endpoint);
    return { ...route, operationId: route.operationId, summary: route.summary ?? '', tag: route.tag ?? 'other', endpoint };
  });
  return routes.sort((a, b) => (a.path === b.path ? methodRank(a.method) - methodRank(b.method) : a.path < b.path ? -1 : 1));
}

export interface DiscoveryServiceOptions {
  /** The canonical base address, without a trailing slash and without /api/v1. */
  publicBaseUrl: string;
  version: string;
}

/**
 * Discovery, quick-start, llms.txt and the per-token capability views, all derived from the
 * app's route catalogue so that none of them can drift from the routes actually served.
 * The app hands the catalogue over once every route is registered (`useCatalog`); everything
 * is computed then, or once per token shape, never per request.
 */
export function createDiscoveryService(options: DiscoveryServiceOptions) {
  const base = options.publicBaseUrl;
  let index: CatalogIndex | undefined;
  let views = new Map<string, TokenView>();
  // Principals are immutable snapshots, and on SQLite the tokens service hands out the same
  // object for every request of a token: this skips even building the key on the hot path.
  let viewByPrincipal = new WeakMap<Principal, TokenView>();
  let capabilitiesByPrincipal = new WeakMap<Principal, TokenCapabilities>();

  function requireIndex(): CatalogIndex {
    if (!index) throw new Error('The discovery service has no route catalogue yet: useCatalog runs when the app is ready');
    return index;
  }

  function quickStart(authenticated: boolean): QuickStart {
    return {
      title: 'Hearth quick start for AI agents',
      important: IMPORTANT,
      authenticated,
      canonicalBaseUrl: base,
      urlWarning: URL_WARNING,
      prerequisite: {
        action: 'Get an API token from the owner',
        detail:
          'Every endpoint needs a token except the public ones: discovery and these documents, health, the ' +
          'handshake (create and status), register and login, the plan list, the daemon download, and the pages ' +
          'and callbacks of payment and account connection. The owner creates a token with the scopes you need ' +
          '(POST /api/v1/tokens), or approves your handshake (see noTokenFlow).',
        required: true,
      },
      noTokenFlow: { description: NO_TOKEN_DESCRIPTION, steps: noTokenSteps() },
      steps: sessionSteps(authenticated),
      fullDocs: `${base}/openapi.json`,
      mcp: { url: `${base}/mcp`, prefer: MCP_PREFER },
    };
  }

  function buildIndex(catalog: readonly CatalogRoute[]): CatalogIndex {
    const routes = indexRoutes(catalog);
    const endpoints: Record<string, string> = {};
    for (const r of routes) endpoints[r.operationId] = r.endpoint;
    const discovery: DiscoveryDocument = {
      name: 'Hearth',
      version: options.version,
      important: IMPORTANT,
      description: DESCRIPTION,
      // Not in the specification's list: an addition, so that `important`'s "the base address" names a field.
      canonicalBaseUrl: base,
      documentation: {
        openapi: `${base}/openapi.json`,
        quickStart: `${base}/api/v1/quick-start`,
        llms: `${base}/llms.txt`,
      },
      authentication: {
        type: 'bearer',
        header: 'Authorization: Bearer <API_TOKEN>',
        query_param: 'token',
        hint: AUTH_HINT,
      },
      endpoints,
    };
    const scopes = SCOPE_NAMES.map((name) => ({
      name,
      description: SCOPES[name],
      grants: routes.filter((r) => r.access.kind === 'scope' && r.access.anyOf.includes(name)).map((r) => r.endpoint),
    }));
    return {
      routes,
      discovery,
      quickStart: { anonymous: quickStart(false), authenticated: quickStart(true) },
      llms: buildLlmsText({ baseUrl: base, version: options.version, routes }),
      scopes,
    };
  }

  function describeToken(principal: Principal, view: Pick<TokenView, 'scopes' | 'endpoints'>) {
    return {
      kind: principal.kind,
      scopes: view.scopes,
      memoryTags: principal.memoryTags ? [...principal.memoryTags] : null,
      ownerRights: hasOwnerRight(principal),
      master: principal.kind === 'master',
      admin: hasOwnerRight(principal) && principal.role === 'admin',
      endpoints: view.endpoints,
    };
  }

  function computeView(principal: Principal, held: Scope[]): TokenView {
    const { routes } = requireIndex();
    const allowed = new Set(routes.filter((r) => checkAccess(r.access, principal) === null));
    const groups = new Map<string, Capability>();
    const missing = new Map<string, Set<Scope>>();
    for (const r of routes) {
      let group = groups.get(r.tag);
      if (!group) {
        group = { name: r.tag, available: false, endpoints: [], missingScopes: [] };
        groups.set(r.tag, group);
        missing.set(r.tag, new Set());
      }
      const ok = allowed.has(r);
      group.available ||= ok;
      group.endpoints.push({ method: r.method, path: r.path, operationId: r.operationId, summary: r.summary, allowed: ok });
      if (!ok && r.access.kind === 'scope') for (const s of r.access.anyOf) missing.get(r.tag)!.add(s);
    }
    for (const [tag, group] of groups) {
      const set = missing.get(tag)!;
      group.missingScopes = SCOPE_NAMES.filter((s) => set.has(s));
    }
    const endpoints = routes.filter((r) => r.access.kind !== 'public' && allowed.has(r)).map((r) => r.endpoint);
    return {
      scopes: held,
      endpoints,
      capabilities: [...groups.values()].sort((a, b) => compareNames(a.name, b.name)),
    };
  }

  function viewFor(principal: Principal): TokenView {
    let view = viewByPrincipal.get(principal);
    if (view) return view;
    const held = SCOPE_NAMES.filter((s) => hasScope(principal, s));
    // Access depends on nothing else: kind (owner and master rights), role (admin) and scopes.
    const key = `${principal.kind}|${principal.role}|${held.join(',')}`;
    view = views.get(key);
    if (!view) {
      if (views.size >= MAX_VIEWS) views.clear();
      view = computeView(principal, held);
      views.set(key, view);
    }
    viewByPrincipal.set(principal, view);
    return view;
  }

  return {
    /** Takes the app's complete route catalogue and its OpenAPI document; called once the app is ready. */
    useCatalog(catalog: readonly CatalogRoute[]): void {
      index = buildIndex(catalog);
      views = new Map();
      viewByPrincipal = new WeakMap();
      capabilitiesByPrincipal = new WeakMap();
    },

    routes(): readonly IndexedRoute[] {
      return requireIndex().routes;
    },

    discoveryDocument(): DiscoveryDocument {
      return requireIndex().discovery;
    },

    quickStart(authenticated: boolean): QuickStart {
      const { quickStart: docs } = requireIndex();
      return authenticated ? docs.authenticated : docs.anonymous;
    },

    llmsText(): string {
      return requireIndex().llms;
    },

    scopes(): ScopeInfo[] {
      return requireIndex().scopes;
    },

    /** `METHOD /path` of every non-public route this token may call. */
    endpointsFor(principal: Principal): string[] {
      return viewFor(principal).endpoints;
    },

    /**
     * The answer of GET /api/v1/tokens/me/capabilities. That route is on every agent's hot path
     * and its answer is fixed per token, so it is the same object for a principal (a snapshot of
     * the token) as long as the catalog holds, and the route serializes it once (see
     * http/prepared.ts).
     */
    tokenCapabilities(principal: Principal): TokenCapabilities {
      let answer = capabilitiesByPrincipal.get(principal);
      if (answer === undefined) {
        answer = { data: { tokenId: principal.tokenId, ...describeToken(principal, viewFor(principal)) } };
        capabilitiesByPrincipal.set(principal, answer);
      }
      return answer;
    },

    capabilities(principal: Principal) {
      const view = viewFor(principal);
      return { version: options.version, scopes: view.scopes, capabilities: view.capabilities };
    },
  };
}

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
