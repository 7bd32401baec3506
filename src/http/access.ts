import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { RequestChannel } from './channel.js';
import { AppError } from './errors.js';
import { rateLimitsOf, type RouteRateLimit } from './rate-limit.js';
import { ErrorBodySchema, IsoDateTime } from './schemas.js';

/*
 * The words of the mechanism below: which scopes a token may hold and which action classes a
 * token's policy may govern. They are domain vocabulary, declared by the permissions module
 * (modules/permissions), which adds them to these interfaces by declaration merging, as route
 * plugins add to Fastify's `FastifyContextConfig`. This layer imports no module: it checks
 * `access.scope('memory')` and `actionClass: 'memory.write'` against whatever was declared, and
 * the types stay derived from the module's data.
 */

/** Every scope, as a key (declared in modules/permissions/permissions.scopes.ts). */
export interface ScopeVocabulary {}
/** A scope a token can hold. */
export type Scope = keyof ScopeVocabulary & string;

/** Every action class, as a key (declared in modules/permissions/permissions.actions.ts). */
export interface ActionClassVocabulary {}
/** A kind of action a token's policy may hold (allow, ask or deny). */
export type ActionClass = keyof ActionClassVocabulary & string;

/**
 * A route's action class: fixed, or read from the validated request (a service call is a write
 * unless it is a read of that service, which may take a look-up of the service: an RPC-style
 * API reads only through the methods it declares); null means this request is in no class.
 */
export type ActionClassRule = ActionClass | ((request: FastifyRequest) => ActionClass | null | Promise<ActionClass | null>);

/** What a request held back for the owner's approval answers (202), on every route with an action class. */
export const ApprovalPendingBody = Type.Object(
  {
    data: Type.Object({
      approvalId: Type.String(),
      status: Type.Literal('pending'),
      expiresAt: IsoDateTime,
    }),
  },
  { title: 'ApprovalPending' },
);

/**
 * The header that marks an in-process replay of an approved request. Its value is a one-time
 * secret the approvals module made for that one replay and keeps in memory: a value sent from
 * outside matches nothing and is refused.
 */
export const APPROVAL_REPLAY_HEADER = 'x-hearth-approval-replay';


/**
 * Who may call a route. Declared once per route in `config.access`; the app refuses to
 * start if a route has none.
 * - public: no token needed (a token, if sent, is still recognised, e.g. for quick-start)
 * - token: any valid token
 * - scope: a token holding at least one of `anyOf` (master and session tokens hold all)
 * - owner: an owner right, held only by the master token and session tokens
 * - master: the master token alone (vault reveal)
 * - admin: the administrator's master or session token
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'token' }
  | { kind: 'scope'; anyOf: readonly Scope[] }
  | { kind: 'owner' }
  | { kind: 'master' }
  | { kind: 'admin' };

export const access = {
  public: (): Access => ({ kind: 'public' }),
  anyToken: (): Access => ({ kind: 'token' }),
  scope: (...anyOf: Scope[]): Access => ({ kind: 'scope', anyOf }),
  owner: (): Access => ({ kind: 'owner' }),
  master: (): Access => ({ kind: 'master' }),
  admin: (): Access => ({ kind: 'admin' }),
};

/** The authenticated caller: one token of one owner. */
export interface Principal {
  tokenId: string;
  ownerId: string;
  kind: 'master' | 'session' | 'api' | 'handshake' | 'oauth';
  /** True for master and session tokens, which hold every scope. */
  allScopes: boolean;
  scopes: ReadonlySet<Scope>;
  role: 'admin' | 'user';
  /** The token's name, as the owner's token list shows it. */
  name: string;
  /**
   * Who the token was issued to, when the server knows: the OAuth client it was issued to, or the
   * agent that asked for it by handshake (its self-chosen id). Null for tokens the owner made.
   */
  agent: PrincipalAgent | null;
  /**
   * The tags this token's memory is limited to (normalized), when the owner limited it: it reads,
   * counts and writes only entries carrying one of them. Absent or null: no limit.
   */
  memoryTags?: readonly string[] | null;
}

/** The agent behind a token: an OAuth client (by its client id and registered name), or a handshake (by its id and the agent's own id). */
export interface PrincipalAgent {
  kind: 'oauth_client' | 'handshake';
  id: string;
  name: string;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.allScopes || principal.scopes.has(scope);
}

export function hasOwnerRight(principal: Principal): boolean {
  return principal.kind === 'master' || principal.kind === 'session';
}

/** Whether `principal` may call a route with this access; null means yes, else the refusal. */
export function checkAccess(rule: Access, principal: Principal | null): AppError | null {
  if (rule.kind === 'public') return null;
  if (!principal) return unauthorized('missing');
  switch (rule.kind) {
    case 'token':
      return null;
    case 'scope':
      if (rule.anyOf.some((scope) => hasScope(principal, scope))) return null;
      return new AppError(
        'INSUFFICIENT_SCOPE',
        `This token lacks the scope this route needs: ${rule.anyOf.join(' or ')}. Ask the owner for a token with it`,
        { details: { requiredScopes: rule.anyOf } },
      );
    case 'owner':
      if (hasOwnerRight(principal)) return null;
      return new AppError('FORBIDDEN', 'Only the owner (master token or a login session) may do this');
    case 'master':
      if (principal.kind === 'master') return null;
      return new AppError('FORBIDDEN', 'Only the master token may do this');
    case 'admin':
      if (hasOwnerRight(principal) && principal.role === 'admin') return null;
      return new AppError('FORBIDDEN', "Only the administrator's master token or login session may do this");
  }
}

export function unauthorized(reason: 'missing' | 'invalid'): AppError {
  return new AppError(
    'UNAUTHORIZED',
    reason === 'missing'
      ? 'A token is required: send Authorization: Bearer <token> (or ?token=<token>). Without one, ask the owner through POST /api/v1/handshakes'
      : 'The token is unknown, revoked or expired. Ask the owner for a new one, or request access through POST /api/v1/handshakes',
  );
}

/** One row of the route catalogue: what discovery, capabilities and the route-walk tests read. */
export interface CatalogRoute {
  method: string;
  /** The path in OpenAPI form: `/api/v1/memory/{id}`. */
  path: string;
  operationId: string | undefined;
  summary: string | undefined;
  /** The route's first OpenAPI tag (`schema.tags[0]`): the capability it belongs to. */
  tag: string | undefined;
  access: Access;
  /** The route's action class, when its requests may be held by a token's policy. */
  actionClass: ActionClassRule | undefined;
  /** The rate limits the route declares (`config.rateLimit`), beyond the per-token default. */
  rateLimits: readonly RouteRateLimit[];
  /** The route's schema as declared (params, querystring, body, response): MCP tools mirror it. */
  schema: RouteSchemaParts;
}

/**
 * The action classes a token holding `scopes` can meet: those of the routes it may call (by
 * scope, or open to any token) that declare their class outright. A class a route works out per
 * request (a function) is counted through another route of the same class, as every such route
 * has (services.write: the connectors' routes).
 */
export function reachableActionClasses(catalog: readonly CatalogRoute[], scopes: readonly string[]): Set<ActionClass> {
  const held = new Set<string>(scopes);
  const reached = new Set<ActionClass>();
  for (const route of catalog) {
    if (typeof route.actionClass !== 'string') continue;
    const { access: rule } = route;
    if (rule.kind === 'token' || (rule.kind === 'scope' && rule.anyOf.some((scope) => held.has(scope)))) reached.add(route.actionClass);
  }
  return reached;
}

/** The parts of a route's schema that describe its input and its answers. */
export interface RouteSchemaParts {
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  response?: Record<string, unknown>;
}

/**
 * Fastify's `:id` and `*` in the OpenAPI spelling the documents use; the wildcard is documented
 * as a `{path}` parameter that may hold slashes (see http/openapi.ts). A parameter's pattern
 * (`:page(^(?:a|b)$)`) is left out: the schema documents the values it takes.
 */
export function openApiPath(url: string): string {
  return url
    .replace(/:([A-Za-z0-9_]+)(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?/g, '{$1}')
    .replace(/\*$/, '{path}');
}

/**
 * The browser session cookie of the console: a login session's secret, HttpOnly and
 * SameSite=Strict, accepted only with the page's session binding (SESSION_BINDING_HEADER).
 * Behind https it is a `__Host-` cookie, which browsers accept only from this very host
 * (Secure, Path=/, no Domain): a sibling subdomain cannot plant one of its own.
 */
export function sessionCookieName(ownOrigin: string): string {
  return ownOrigin.startsWith('https:') ? '__Host-hearth_session' : 'hearth_session';
}

/**
 * The session cookie's value, when the request carries exactly one. On plain http a cookie is
 * shared by every port of the host, so a page on another local port could plant a second
 * `hearth_session` (for a narrower path, sent first) to run the console as another account:
 * a request carrying two is answered as carrying none.
 */
export function sessionCookie(header: string, name: string): string | undefined {
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    if (found !== undefined) return undefined;
    found = part.slice(eq + 1).trim();
  }
  return found || undefined;
}

/**
 * The header the console's page sends its session binding in, with every request the cookie
 * authenticates. Cookies are not isolated by port: on plain http a page on any other port of
 * the same host can set `hearth_session` to a session of its choosing (another account's), and
 * the browser sends it with the console's requests. Web storage is isolated by origin, port
 * included, so the binding the page keeps there, which only the page that signed in received,
 * is what ties the cookie to the console's origin: a cookie alone acts for no session.
 */
export const SESSION_BINDING_HEADER = 'x-hearth-session-binding';

/**
 * A session's binding: derived from its secret (nothing to store, the same on every node),
 * and no way back to it. A planted cookie's session has a binding the console's page never got.
 */
export function sessionBinding(secret: string): string {
  return createHash('sha256').update('hearth console session binding v1\u0000').update(secret).digest('base64url');
}

/** Whether the request's binding header is the binding of the session `secret`. */
function boundTo(request: FastifyRequest, secret: string): boolean {
  const sent = request.headers[SESSION_BINDING_HEADER];
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(sessionBinding(secret));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function unboundSession(): AppError {
  return new AppError(
    'UNAUTHORIZED',
    `The session cookie came without this page's session binding (${SESSION_BINDING_HEADER}) or with another session's. ` +
      'A cookie alone is not accepted, because pages on other ports of this host can set it: sign in again on this page',
  );
}

/**
 * Whether a request carrying the session cookie comes from the console's own pages. Browsers
 * say where a request comes from (`Sec-Fetch-Site`, and `Origin` on anything but a plain GET);
 * a request that does not say is not from a browser page of ours, and a cookie is no credential
 * for it: other clients send a bearer token.
 */
export function fromOwnPages(request: FastifyRequest, ownOrigin: string): boolean {
  if (request.headers['sec-fetch-site'] !== 'same-origin') return false;
  const origin = request.headers.origin;
  return origin === undefined || origin === ownOrigin;
}

export interface AccessControlOptions {
  /**
   * Resolves a bearer secret to its principal, or null when it is not a live token. May throw an
   * AppError to refuse a live token with a reason of its own (its account disabled): the request
   * is answered with it.
   */
  authenticate(secret: string): Promise<Principal | null>;
  /**
   * The same answer when it is known without waiting (a cached token, a malformed one);
   * undefined sends the request to `authenticate`. Most requests are answered here, and then
   * the access check costs no promise.
   */
  authenticateNow?(secret: string): Principal | null | undefined;
  /**
   * Work every request needs before its access is checked (an answer header, a refusal),
   * run inside this one hook: each hook of its own costs every request a step of Fastify's
   * hook runner. May throw an AppError to refuse the request.
   */
  beforeAccess?(request: FastifyRequest, reply: FastifyReply): void;
  /** The console's origin: the session cookie is accepted only on requests from its pages. */
  ownOrigin?: string;
  /**
   * Called once an authenticated request passed its access check (rate limits, usage). May
   * answer a promise (a quota that looks up the owner's plan); it is awaited only then.
   */
  afterAuthenticated?(principal: Principal, route: FastifyContextConfig): void | Promise<void>;
  /**
   * Resolves the value of the approval-replay header to the token the approved request runs as,
   * with the approval it executes; null when the value is not a live replay of this very request
   * (or the token is no longer valid).
   */
  authenticateReplay?(value: string, request: FastifyRequest): Promise<{ principal: Principal; approvalId: string; channel: RequestChannel } | null>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    actionClass?: ActionClassRule;
    /**
     * The route passes its own query string on as part of what it acts on (the pass-through to
     * a service): a route with an action class refuses undeclared query parameters otherwise.
     */
    forwardsQuery?: true;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Set when the request is the replay of an approval the owner approved: its id. */
    approvalReplay: string | null;
    /**
     * The channel the access hook learnt authenticating the request (http/channel.ts): `console`
     * for the console's session cookie, the held request's own for an approval's replay; null
     * for a bearer token, whose request tells its channel itself (requestChannel).
     */
    authenticatedChannel: RequestChannel | null;
  }
  interface FastifyInstance {
    routeCatalog: CatalogRoute[];
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Whether every character is visible ASCII (no space, no control, nothing beyond `~`). */
function visibleAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f) return false;
  }
  return true;
}

/** The secret of an Authorization header (`Bearer <secret>`), or undefined when it carries none. */
export function bearerSecret(header: string): string | undefined {
  // The spelling nearly every client sends, checked without a regex (every request): a
  // character loop costs a fraction of a regex test. Anything else takes the full pattern.
  if (header.startsWith('Bearer ') && header.length > 7) {
    const secret = header.slice(7);
    if (visibleAscii(secret)) return secret;
  }
  return BEARER.exec(header)?.[1];
}

/** The token a request carries: the Authorization header first, then `?token=`. */
export function extractToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) return bearerSecret(header);
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.token;
  return typeof fromQuery === 'string' && fromQuery.length > 0 ? fromQuery : undefined;
}

function describeAccess(rule: Access): string {
  switch (rule.kind) {
    case 'public':
      return 'Public: no token needed.';
    case 'token':
      return 'Any valid token.';
    case 'scope':
      return `Requires scope: ${rule.anyOf.map((s) => `\`${s}\``).join(' or ')}.`;
    case 'owner':
      return 'Owner only: the master token or a login session.';
    case 'master':
      return 'Master token only.';
    case 'admin':
      return "Administrator only: the administrator's master token or login session.";
  }
}

/**
 * An access decision made before the request reached Fastify (see front-door.ts): the caller,
 * already counted by `afterAuthenticated`, with what counting answered. The front door hands a
 * request over with it when counting refused the request or must wait, so the route answers
 * (the refusal, or the answer once counting is done) and nothing is counted twice.
 */
export interface AccessDecided {
  principal: Principal;
  /** What afterAuthenticated threw: the request is refused with it. */
  refusal?: unknown;
  /** What afterAuthenticated answered when it must wait (a quota looking up the owner's plan). */
  pending?: Promise<void>;
}

/** Where an IncomingMessage carries an AccessDecided. */
export const ACCESS_DECIDED = Symbol('hearth.accessDecided');

/**
 * Where an IncomingMessage carries the principal its Authorization header's token resolved to
 * at the front door, which then handed it over without counting anything (it had no answer
 * prepared): the access hook uses it rather than hashing and looking the token up again, and
 * makes every check and count itself.
 */
export const ACCESS_AUTHENTICATED = Symbol('hearth.accessAuthenticated');

/** An IncomingMessage that may carry an access decision, or an authentication, made before Fastify saw it. */
export interface MaybeDecided {
  [ACCESS_DECIDED]?: AccessDecided;
  [ACCESS_AUTHENTICATED]?: Principal;
}

/**
 * Installs authentication and authorisation for every route. Must be registered before any
 * route so its onRoute hook sees them all.
 */
export function registerAccessControl(app: FastifyInstance, options: AccessControlOptions): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('approvalReplay', null);
  app.decorateRequest('authenticatedChannel', null);
  app.decorate('routeCatalog', [] as CatalogRoute[]);

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.method === 'HEAD' || (Array.isArray(route.method) && route.method.includes('HEAD'))) return;
    const rule = route.config?.access;
    if (!rule) {
      throw new Error(`Route ${String(route.method)} ${route.url} declares no access rule (config.access)`);
    }
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    // Scope lists are valid only under OAuth schemes; the access rule travels as extensions.
    schema.security = rule.kind === 'public' ? [] : [{ bearerAuth: [] }, { queryToken: [] }];
    schema['x-access'] = rule.kind;
    if (rule.kind === 'scope') schema['x-required-scopes'] = [...rule.anyOf];
    const actionClass = route.config?.actionClass;
    const note =
      describeAccess(rule) +
      (actionClass
        ? ` Subject to the token's policy (${typeof actionClass === 'string' ? `\`${actionClass}\`` : 'an action class read from the request'}): 202 when held for the owner's approval, 403 POLICY_DENIED when denied.`
        : '');
    schema.description = schema.description ? `${String(schema.description)}\n\n${note}` : note;
    const response = (schema.response ??= {}) as Record<string, unknown>;
    if (actionClass) {
      schema['x-action-class'] = typeof actionClass === 'string' ? actionClass : 'by-request';
      response[202] ??= ApprovalPendingBody;
    }
    response['4xx'] ??= ErrorBodySchema;
    response['5xx'] ??= ErrorBodySchema;
    for (const method of [route.method].flat()) {
      app.routeCatalog.push({
        method,
        path: openApiPath(route.url),
        operationId: schema.operationId as string | undefined,
        summary: schema.summary as string | undefined,
        tag: Array.isArray(schema.tags) && typeof schema.tags[0] === 'string' ? schema.tags[0] : undefined,
        access: rule,
        actionClass,
        rateLimits: rateLimitsOf(route.config),
        schema: schema as RouteSchemaParts,
      });
    }
  });

  const cookieName = options.ownOrigin ? sessionCookieName(options.ownOrigin) : '';
  const PUBLIC: Access = { kind: 'public' };

  /** The last checks, once the principal is known; a promise only when afterAuthenticated answers one. */
  function finish(request: FastifyRequest, route: FastifyContextConfig, rule: Access, secret: string | undefined): void | Promise<void> {
    if (rule.kind !== 'public' && secret && !request.principal) throw unauthorized('invalid');
    const refusal = checkAccess(rule, request.principal);
    if (refusal) throw refusal;
    if (request.principal) return options.afterAuthenticated?.(request.principal, route);
  }

  /** The rare cases that wait: a token not cached yet, an approval's replay, the console's session cookie. */
  async function slowPath(request: FastifyRequest, reply: FastifyReply, route: FastifyContextConfig, rule: Access, secret: string | undefined): Promise<void> {
    const replay = request.headers[APPROVAL_REPLAY_HEADER];
    if (replay !== undefined) {
      // An approved request run again as the token that asked; a value from outside matches nothing.
      const resolved = typeof replay === 'string' && options.authenticateReplay ? await options.authenticateReplay(replay, request) : null;
      if (!resolved) throw unauthorized('invalid');
      request.principal = resolved.principal;
      request.approvalReplay = resolved.approvalId;
      request.authenticatedChannel = resolved.channel;
    } else if (secret) request.principal = await options.authenticate(secret);
    else if (options.ownOrigin && request.headers.cookie && rule.kind !== 'public') {
      // The console's session: only a login session, only from the console's own pages, so
      // another site cannot ride the owner's browser (CSRF) and no other token travels this way.
      // Public routes (the console's own files among them) never read it: they need no one, and
      // so cost no lookup and count against no quota.
      const cookie = sessionCookie(request.headers.cookie, cookieName);
      if (cookie && fromOwnPages(request, options.ownOrigin)) {
        // Checked before the lookup: a planted cookie costs no query, and a session is never
        // looked up for a page that cannot prove it signed in to it.
        if (!boundTo(request, cookie)) throw unboundSession();
        const principal = await options.authenticate(cookie);
        request.principal = principal?.kind === 'session' ? principal : null;
        if (!request.principal) throw unauthorized('invalid');
        request.authenticatedChannel = 'console';
        // An answer for a browser session is the owner's alone: no shared cache may keep it.
        reply.header('cache-control', 'private, no-store');
      }
    }
    await finish(request, route, rule, secret);
  }

  // A callback hook, not an async one: it runs on every request, and most are decided without
  // waiting (no token on a public route, a cached token), so only the others make a promise.
  app.addHook('onRequest', (request, reply, done) => {
    let pending: void | Promise<void>;
    try {
      options.beforeAccess?.(request, reply);
      const decided = (request.raw as MaybeDecided)[ACCESS_DECIDED];
      if (decided !== undefined) {
        // Decided and counted at the front door, which handed the request over for the answer.
        request.principal = decided.principal;
        if (decided.refusal !== undefined) throw decided.refusal;
        pending = decided.pending;
      } else {
        const route = request.routeOptions.config;
        const rule = route?.access ?? PUBLIC;
        const secret = extractToken(request);
        const known =
          request.headers[APPROVAL_REPLAY_HEADER] !== undefined
            ? undefined
            : secret
              ? ((request.raw as MaybeDecided)[ACCESS_AUTHENTICATED] ?? options.authenticateNow?.(secret))
              : options.ownOrigin && request.headers.cookie && rule.kind !== 'public'
                ? undefined
                : null;
        if (known === undefined) pending = slowPath(request, reply, route, rule, secret);
        else {
          request.principal = known;
          pending = finish(request, route, rule, secret);
        }
      }
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });
}

/** The principal of a route that is not public; the access hook guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized('missing');
  return request.principal;
}
