import { ignoreFailure } from '../lib/ignore-failure.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyContextConfig, FastifyInstance, RouteOptions } from 'fastify';
import { ACCESS_AUTHENTICATED, ACCESS_DECIDED, APPROVAL_REPLAY_HEADER, bearerSecret, checkAccess, type Access, type MaybeDecided, type Principal } from './access.js';

/**
 * The front door: the hottest reads answered before Fastify sees the request.
 *
 * A few answers are bytes made once and sent again for as long as they hold: the discovery
 * document, a token's capabilities, a skill looked up by its slug, a search asked again, a page of
 * memory asked again, the gateway context. For those requests, building Fastify's request and reply,
 * running its hooks and routing is most of the work left (counted with `npm run bench:instructions`:
 * about a fifth of what the capabilities request costs). A route that can answer so declares
 * `config.prepared`, a function that gives the 200 body for a caller at once, or undefined when
 * the route must make it (nothing ready yet, or a caller it does not serve this way). The route's
 * own handler sends the same function's bytes, so both ways answer alike. A path may end in one
 * parameter (`/api/v1/skills/_by_slug/:slug`); the door passes its value as the route would
 * receive it, and takes only values that need no decoding. A route may read the query string
 * too (`preparedQueries`), and then answers only queries it has answered itself (AnsweredQueries).
 *
 * The door listens on the server's 'request' event in front of Fastify's handler. It answers a
 * GET of such a route's exact path, with the same access decision the access hook makes, made by
 * the same functions: the bearer token resolved without waiting, the route's access rule, and the
 * per-request counting (rate limit, daily quota). Everything that is not that plain case goes to
 * Fastify untouched: another path, a query string the route did not ask for, a token not cached yet or not valid, a
 * refused caller, a console session's cookie, a body, an upgrade, an approval's replay, a
 * header named in `handOverHeaders`, a server that is shutting down. Only counting cannot be
 * undone: when it refuses the request or must wait, the door hands the request over with its
 * decision (ACCESS_DECIDED), and the access hook takes it from there. A request it authenticated
 * but has no answer for carries the principal (ACCESS_AUTHENTICATED), so the token is looked up
 * once.
 *
 * It is installed whatever the log level, so that tests and production take one path. Where
 * each request is logged (the info level), it writes for each answer the two lines Fastify
 * writes for a request it answers (`incoming request`, `request completed`), through the same
 * logger, with the same fields; above that level it checks one boolean and writes nothing, so
 * it costs what it cost before it logged (`npm run bench`). Of the app's
 * hooks it runs only the access hook's work (the request id, the access decision, the counting):
 * a hook added to the whole app later is not run for the door's answers, so one that must be
 * (a header every answer carries) belongs in the door too.
 */
export type PreparedAnswer = (principal: Principal | null, parameter: string, query: string) => Buffer | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's 200 body, ready without waiting, for the front door (see front-door.ts). */
    prepared?: PreparedAnswer;
    /**
     * The prepared answer reads the query string (given raw, '' for none); without this, a request
     * with one goes to the route. Such a route answers at the door only a query it has answered
     * itself before, for the same owner (see AnsweredQueries), so a query the door takes has passed
     * the route's own parsing and validation.
     */
    preparedQueries?: boolean;
  }
}

/**
 * The raw query strings a route has answered, per owner, each with what the route needs to find
 * that answer again (a cache key). A route with `preparedQueries` answers at the door only these:
 * the same string parses and validates the same way, and a token in it (`?token=`) is ignored at
 * the door as by the route whenever a bearer header is present, the only way the door finds a
 * caller. Bounded: the most recent `maxEntries`, queries up to `maxQueryLength` characters.
 */
export interface AnsweredQueries<K> {
  remember(ownerId: string, query: string, key: K): void;
  recall(ownerId: string, query: string): K | undefined;
}

export function createAnsweredQueries<K>(maxEntries = 2000, maxQueryLength = 512): AnsweredQueries<K> {
  const known = new Map<string, K>();
  return {
    remember(ownerId, query, key) {
      if (query.length === 0 || query.length > maxQueryLength) return;
      const id = `${ownerId}\u0000${query}`;
      known.delete(id);
      known.set(id, key);
      if (known.size > maxEntries) known.delete(known.keys().next().value!);
    },
    recall: (ownerId, query) => known.get(`${ownerId}\u0000${query}`),
  };
}

/**
 * Where a request target's path ends, as Fastify's router reads it: at the first `?` or `#`
 * (a `#` is not sent by browsers, but a client may), or -1 when it has no query.
 */
function queryStart(url: string): number {
  const question = url.indexOf('?', 1);
  const hash = url.indexOf('#', 1);
  return hash !== -1 && (question === -1 || hash < question) ? hash : question;
}

/** The raw query string of a request target, as the router hands it to the route: '' for none. */
export function rawQuery(url: string): string {
  const at = queryStart(url);
  return at < 0 ? '' : url.slice(at + 1);
}

export interface FrontDoorOptions {
  /** The access hook's own resolver: the principal of a cached token, null for a bad one, undefined when it must wait. */
  authenticateNow(secret: string): Principal | null | undefined;
  /** The access hook's own counting, run once per answered request. */
  afterAuthenticated?(principal: Principal, route: FastifyContextConfig): void | Promise<void>;
  /** Makes the request id the answer carries (the app's genReqId). */
  newRequestId(): string;
  /** Request headers some hook of the app reads; a request carrying one goes to Fastify. */
  handOverHeaders: readonly string[];
  /**
   * The logger Fastify writes each request's lines with. At the info level the door writes them
   * for its own answers too; the level is read once, as Fastify's own logging is set up once.
   * The address logged is the socket's: where the app trusts a proxy and logs these lines, a
   * request naming the client (X-Forwarded-For) must be in `handOverHeaders`.
   */
  logger?: RequestLineLogger;
  /** The router's options: a path with or without its trailing slash is the same route; the longest parameter it takes. */
  ignoreTrailingSlash: boolean;
  maxParamLength: number;
}

/** What the door needs of a pino logger (the app's root logger) to write a request's lines. */
export interface RequestLineLogger {
  isLevelEnabled(level: string): boolean;
  info(fields: object, message: string): void;
}

interface Door {
  rule: Access;
  route: FastifyContextConfig;
  prepared: PreparedAnswer;
}

/** A door whose path ends in a parameter: every path under `prefix` with one plain segment more. */
interface ParameterDoor extends Door {
  prefix: string;
  url: string;
}

/** A fixed path (group 1 alone), or a fixed prefix (group 1) and one parameter as its last segment. */
const DOOR_PATH = /^([^:*]*)$|^([^:*]*\/):[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Whether a path segment reaches the route as it is: letters, digits and `-._~` only. Anything
 * else (a percent escape the router decodes, a separator, an empty or overlong segment) is the
 * router's to read.
 */
function plainSegment(segment: string, maxLength: number): boolean {
  if (segment.length === 0 || segment.length > maxLength) return false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    const plain = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
    if (!plain) return false;
  }
  return true;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** A route's own hooks: the door would skip them, so a route with a prepared answer has none. */
const ROUTE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort'] as const;
/** Headers that need the full path whatever the app: a body to read, an upgrade to refuse, a replay to resolve. */
const ALWAYS_HANDED_OVER = ['content-length', 'transfer-encoding', 'upgrade', 'cookie', APPROVAL_REPLAY_HEADER];

/**
 * The lines Fastify writes for a request it answers (its LogController's `incomingRequest` and
 * `requestCompleted`, through the request's child logger bound to `reqId`), written for one the
 * door answers: the same messages and fields, which the logger's serializers turn into the same
 * JSON (the address masked, the socket's address as the client's). The second once the response
 * has finished, as Fastify writes it.
 */
function logAnswer(logger: RequestLineLogger, request: IncomingMessage, response: ServerResponse, reqId: string, started: number): void {
  logger.info({ reqId, req: { method: request.method, url: request.url, socket: request.socket } }, 'incoming request');
  const finished = (): void => {
    response.removeListener('finish', finished);
    response.removeListener('error', finished);
    logger.info({ reqId, res: { statusCode: response.statusCode }, responseTime: performance.now() - started }, 'request completed');
  };
  response.on('finish', finished);
  response.on('error', finished);
}

/**
 * Installs the door on the app's server. Call it before any route is registered (its onRoute
 * hook collects the routes that declare `prepared`).
 */
export function installFrontDoor(app: FastifyInstance, options: FrontDoorOptions): void {
  const doors = new Map<string, Door>();
  const parameterDoors: ParameterDoor[] = [];
  /** Every route's path: a parameter door must be the only route under its prefix. */
  const routePaths = new Set<string>();
  const handOver = [...ALWAYS_HANDED_OVER, ...options.handOverHeaders];
  let closing = false;
  /** Whether each answer is logged, as Fastify logs each request at this level (see HearthLogController). */
  const logger = options.logger?.isLevelEnabled('info') ? options.logger : undefined;

  app.addHook('onRoute', (route: RouteOptions) => {
    routePaths.add(route.url);
    const prepared = route.config?.prepared;
    // A HEAD route Fastify made from a GET carries the GET's config; the door answers no HEAD.
    if (!prepared || route.method === 'HEAD') return;
    const path = DOOR_PATH.exec(route.url);
    if (route.method !== 'GET' || !path) {
      throw new Error(
        `Route ${String(route.method)} ${route.url} declares a prepared answer: only a GET of a fixed path, or of one ending in a single parameter, can have one`,
      );
    }
    const rule = route.config?.access;
    if (!rule) throw new Error(`Route GET ${route.url} declares a prepared answer but no access rule`);
    // The door runs the access rule and nothing else of the route: one with hooks, constraints
    // or an approval policy of its own must be answered by Fastify.
    const own = ROUTE_HOOKS.filter((hook) => route[hook] !== undefined);
    if (own.length > 0 || route.constraints !== undefined || route.config?.actionClass !== undefined) {
      const what = [...own, ...(route.constraints !== undefined ? ['constraints'] : []), ...(route.config?.actionClass !== undefined ? ['an action class'] : [])];
      throw new Error(`Route GET ${route.url} declares a prepared answer and ${what.join(', ')}, which the front door would skip`);
    }
    const door: Door = { rule, route: route.config as FastifyContextConfig, prepared };
    if (path[2] !== undefined) {
      parameterDoors.push({ ...door, prefix: path[2], url: route.url });
      return;
    }
    doors.set(route.url, door);
    if (options.ignoreTrailingSlash && route.url.length > 1) {
      doors.set(route.url.endsWith('/') ? route.url.slice(0, -1) : `${route.url}/`, door);
    }
  });
  app.addHook('onReady', async () => {
    for (const door of parameterDoors) {
      const other = [...routePaths].find((url) => url !== door.url && url.startsWith(door.prefix));
      // Another route under the prefix could be the one the router picks for a path the door takes.
      if (other) throw new Error(`Route GET ${door.url} declares a prepared answer, but ${other} shares its prefix: the front door could answer for it`);
    }
  });
  // From here on Fastify answers every request, with `Connection: close`, as it does while closing.
  app.addHook('preClose', async () => {
    closing = true;
  });

  /** The door for a path, and the parameter it carries ('' for a fixed path). */
  function doorOf(path: string): [Door, string] | undefined {
    const door = doors.get(path);
    if (door !== undefined) return [door, ''];
    for (const candidate of parameterDoors) {
      if (!path.startsWith(candidate.prefix)) continue;
      const segment = path.slice(candidate.prefix.length);
      return plainSegment(segment, options.maxParamLength) ? [candidate, segment] : undefined;
    }
    return undefined;
  }

  /** The caller the access hook would settle on without waiting; undefined when the door must not decide. */
  function callerOf(request: IncomingMessage, door: Door): Principal | null | undefined {
    const headers = request.headers;
    for (const name of handOver) if (headers[name] !== undefined) return undefined;
    const authorization = headers.authorization;
    let principal: Principal | null = null;
    if (authorization !== undefined) {
      const secret = bearerSecret(authorization);
      // A token the access hook would have to look up, or one it would refuse: the route answers.
      principal = secret === undefined ? null : (options.authenticateNow(secret) ?? null);
      if (principal === null) return undefined;
    }
    return checkAccess(door.rule, principal) === null ? principal : undefined;
  }

  /** Answers the request when it is the plain case; false hands it to Fastify. */
  function answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET' || closing) return false;
    // As Fastify's elapsedTime: from the request's start to the end of its response.
    const started = logger === undefined ? 0 : performance.now();
    const url = request.url as string;
    // Split where the router splits, so that the door and the route see one path and one query.
    const queryAt = queryStart(url);
    const found = doorOf(queryAt < 0 ? url : url.slice(0, queryAt));
    if (found === undefined) return false;
    const [door, parameter] = found;
    const query = queryAt < 0 ? '' : url.slice(queryAt + 1);
    if (query !== '' && door.route.preparedQueries !== true) return false;
    let principal: Principal | null | undefined;
    let body: Buffer | undefined;
    try {
      principal = callerOf(request, door);
      if (principal === undefined) return false;
      body = door.prepared(principal, parameter, query);
      if (body === undefined) {
        // The route answers; its access hook need not look the same token up again.
        if (principal !== null) (request as MaybeDecided)[ACCESS_AUTHENTICATED] = principal;
        return false;
      }
    } catch {
      // Nothing is counted yet: the route runs the same code and answers the failure as it does.
      return false;
    }
    if (principal !== null && options.afterAuthenticated) {
      // Counted now, once: if counting refuses or must wait, the route answers with this decision.
      let pending: void | Promise<void>;
      try {
        pending = options.afterAuthenticated(principal, door.route);
      } catch (refusal) {
        (request as MaybeDecided)[ACCESS_DECIDED] = { principal, refusal };
        return false;
      }
      if (pending) {
        // The access hook awaits it; should the request fail before that, its refusal is not unhandled.
        void ignoreFailure(pending, 'the access hook awaits it and answers its refusal');
        (request as MaybeDecided)[ACCESS_DECIDED] = { principal, pending };
        return false;
      }
    }
    // The headers the route sends, in its order: the request id first, as the access hook sets it.
    const requestId = options.newRequestId();
    if (logger !== undefined) logAnswer(logger, request, response, requestId, started);
    response.writeHead(200, { 'x-request-id': requestId, 'content-type': JSON_TYPE, 'content-length': body.length });
    response.end(body);
    return true;
  }

  const server = app.server;
  const [fastifyHandler] = server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
  if (!fastifyHandler) throw new Error("The front door found no request handler on Fastify's server");
  server.removeListener('request', fastifyHandler);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!answer(request, response)) fastifyHandler(request, response);
  });
}
