import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyContextConfig, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { registerAccessControl, type Principal } from './http/access.js';
import { installFrontDoor } from './http/front-door.js';
import { registerBodyDrain } from './http/body-drain.js';
import { AppError, handleFrameworkError, registerErrorHandling } from './http/errors.js';
import { closeUpgradeOnceAnswered } from './http/upgrade.js';
import { openApiOptions } from './http/openapi.js';
import { createApproximateRateLimiter, registerRateLimits, TOKEN_RATE_LIMIT } from './http/rate-limit.js';
import { createRootLogger, HearthLogController, requestLoggerFactory } from './http/logging.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { createValidatorCompiler, validatorFactory } from './http/validation.js';
import { idMaker } from './lib/ids.js';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from './lib/json-depth.js';
import { accountsRoutes } from './modules/accounts/accounts.routes.js';
import { approvalsRoutes } from './modules/approvals/approvals.routes.js';
import { registerApprovalPolicies } from './modules/approvals/approvals.hook.js';
import { afpRoutes } from './modules/afp/afp.routes.js';
import { LIMITS as AFP_LIMITS, CLOSE as AFP_CLOSE } from './shared/afp.protocol.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { billingRoutes } from './modules/billing/billing.routes.js';
import { chatRoutes } from './modules/chat/chat.routes.js';
import { consoleRoutes } from './modules/console/console.routes.js';
import { connectorsRoutes } from './modules/connectors/connectors.routes.js';
import { discoveryRoutes } from './modules/discovery/discovery.routes.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import { gatewayRoutes } from './modules/gateway/gateway.routes.js';
import { googleRoutes } from './modules/google/google.routes.js';
import { authorizationRoutes } from './modules/authorization/authorization.routes.js';
import { handshakesRoutes } from './modules/handshakes/handshakes.routes.js';
import { identityRoutes } from './modules/identity/identity.routes.js';
import { knowledgeRoutes } from './modules/knowledge/knowledge.routes.js';
import { TOOL_OPERATION_HEADER } from './modules/mcp/mcp.hub.js';
import { mcpRoutes } from './modules/mcp/mcp.routes.js';
import { memoryRoutes } from './modules/memory/memory.routes.js';
import { memoryImportRoutes } from './modules/memory-import/memory-import.routes.js';
import { portabilityRoutes } from './modules/portability/portability.routes.js';
import { erasureRoutes } from './modules/erasure/erasure.routes.js';
import { oauthRoutes } from './modules/oauth/oauth.routes.js';
import { personasRoutes } from './modules/personas/personas.routes.js';
import { marketplaceRoutes } from './modules/marketplace/marketplace.routes.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { skillsRoutes } from './modules/skills/skills.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { vaultRoutes } from './modules/vault/vault.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import type { Container } from './container.js';
import { API_VERSION } from './version.js';

export interface AppDeps {
  config: Config;
  /**
   * Every service; the app closes it when it closes (after in-flight requests finished). The app
   * starts none of its parts: whoever serves the app calls `container.start` once it is ready.
   */
  container: Container;
  /** Where logs go; stdout when not given. */
  logStream?: DestinationStream;
}

/** `/api/v1` is served as `/api/v1/`; nothing is ever redirected. */
const IGNORE_TRAILING_SLASH = true;
/** The longest path parameter the router takes (a longer one is answered 414). */
const MAX_PARAM_LENGTH = 500;

/** Request ids: `req_` and a ULID, made as one flat string (see idMaker). */
const newRequestId = idMaker('req');

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, container } = deps;
  // Secrets never reach the logs: no headers are logged, and token-shaped values are masked.
  const logger = createRootLogger(config, deps.logStream);
  // Above the info level (LOG_LEVEL=warn, as in production) no line about an ordinary request
  // can be written. Fastify is then built without a logger of its own: with one, it listens
  // for the end of every response only to time the request for that line, which was about a
  // tenth of the work of a small request. Requests still log through `logger`
  // (childLoggerFactory) and the app logs through it too (app.log, set below).
  const requestLines = logger.isLevelEnabled('info');
  const app = Fastify({
    loggerInstance: requestLines ? (logger as FastifyBaseLogger) : undefined,
    logController: new HearthLogController({ requestLines }),
    // While shutting down, a request arriving on an already open connection is still served (with
    // Connection: close) rather than refused: only new connections are turned away (main.ts).
    return503OnClosing: false,
    // Each request's logger is made when it first writes a line (see requestLoggerFactory).
    childLoggerFactory: requestLoggerFactory(logger),
    bodyLimit: config.bodyLimit,
    // A hop count means: believe that many proxies in front of the server, nearest first.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    routerOptions: { ignoreTrailingSlash: IGNORE_TRAILING_SLASH, maxParamLength: MAX_PARAM_LENGTH },
    exposeHeadRoutes: false,
    // Request ids are ours; a client-sent X-Request-Id is not trusted into the logs.
    requestIdHeader: false,
    genReqId: newRequestId,
    frameworkErrors: handleFrameworkError,
    // Validators and serializers are compiled on a route's first use (see validation.ts,
    // lazy-serializers.ts). Given here, not by setValidatorCompiler: Fastify then never loads its own.
    schemaController: { compilersFactory: { buildValidator: validatorFactory(createValidatorCompiler()), buildSerializer: lazySerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (!requestLines) app.log = logger;
  // Fastify runs onClose once the server stopped accepting and in-flight requests finished: the
  // container's parts stop then, started or not. The app starts none of them (HTTP only).
  app.addHook('onClose', () => container.close());

  // Clients that always send Content-Type: application/json also on bodiless POSTs are served.
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (jsonNestingExceeds(text)) {
      return done(
        new AppError('VALIDATION_ERROR', `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; flatten it`),
        undefined,
      );
    }
    return parseJson(request, text, done);
  });
  // Fastify's built-in text/plain parser would let plain text reach JSON routes (400 instead of 415).
  app.removeContentTypeParser('text/plain');

  registerErrorHandling(app);
  registerBodyDrain(app);
  const tokenLimiter =
    config.tokenRateLimitPerMinute > 0
      ? // Every authenticated request: counted on the node and sent in batches (no round trip).
        createApproximateRateLimiter({
          max: TOKEN_RATE_LIMIT.max(config),
          windowMs: TOKEN_RATE_LIMIT.windowMs,
          what: TOKEN_RATE_LIMIT.what,
          name: TOKEN_RATE_LIMIT.name,
          counters: container.counters,
        })
      : undefined;
  const mcpHub = container.mcpHub;
  const authenticateNow = (secret: string) => container.tokens.authenticateNow(secret);
  const afterAuthenticated =
    tokenLimiter || config.planLimits
      ? (principal: Principal, route: FastifyContextConfig) => {
          tokenLimiter?.hit(principal.tokenId);
          // The plan's daily request quota; with plan limits off nothing is counted at all.
          return config.planLimits ? container.limits.countRequest(principal, route) : undefined;
        }
      : undefined;
  registerAccessControl(app, {
    // A disabled account's token is refused here with its reason (403 ACCOUNT_DISABLED).
    authenticate: (secret) => container.tokens.authenticateRequest(secret),
    authenticateNow,
    // Every answer carries its request id, errors included (set before anything can refuse the
    // request; Fastify's error path keeps headers already set, and framework errors that run no
    // hook set it themselves, see handleFrameworkError). A tool's request reaches only the route it mirrors.
    beforeAccess: (request, reply) => {
      reply.header('x-request-id', request.id);
      mcpHub.guardToolRoutes(request);
      closeUpgradeOnceAnswered(request, reply);
    },
    ownOrigin: new URL(config.publicBaseUrl).origin,
    authenticateReplay: (value, request) => container.approvals.takeReplay(value, request.method, request.url),
    ...(afterAuthenticated ? { afterAuthenticated } : {}),
  });
  // The hottest reads (routes that declare `prepared`) answered before Fastify routes them, with
  // the same access decision, at every log level: at info the door writes the request lines Fastify
  // would (see front-door.ts).
  installFrontDoor(app, {
    authenticateNow,
    ...(afterAuthenticated ? { afterAuthenticated } : {}),
    newRequestId,
    logger,
    // Read by beforeAccess above: a tool's request is checked against the route it reaches. Where
    // request lines name the client a trusted proxy reports (request.ip), Fastify reads that header.
    handOverHeaders: requestLines && config.trustProxy ? [TOOL_OPERATION_HEADER, 'x-forwarded-for'] : [TOOL_OPERATION_HEADER],
    ignoreTrailingSlash: IGNORE_TRAILING_SLASH,
    maxParamLength: MAX_PARAM_LENGTH,
  });

  await app.register(swagger, openApiOptions({ publicBaseUrl: config.publicBaseUrl, version: API_VERSION }));

  // Every limit a route declares (config.rateLimit), counted by one hook; shown in /openapi.json.
  registerRateLimits(app, { config, counters: container.counters });

  // Token policies (allow, ask, deny) on every route that declares an action class.
  registerApprovalPolicies(app, container.approvals);

  // The route plugins, each registered in a turn of the event loop of its own: registering is CPU
  // work alone, and main.ts does it while the database brings its schema up to date, whose next
  // round trip goes out between two registrations.
  const routes = [
    accountsRoutes({ accounts: container.accounts, tokens: container.tokens, passwordResets: container.passwordResets, publicBaseUrl: config.publicBaseUrl }),
    tokensRoutes({ tokens: container.tokens, masterTokens: container.accounts }),
    auditRoutes({ audit: container.audit }),
    discoveryRoutes({ discovery: container.discovery, health: container.health }),
    gatewayRoutes({ gateway: container.gateway }),
    eventsRoutes({
      events: container.events,
      authenticate: (secret) => container.tokens.authenticate(secret),
      publicBaseUrl: config.publicBaseUrl,
      heartbeatMs: config.events.heartbeatMs,
      maxStreamsPerOwner: config.events.maxStreamsPerOwner,
      maxStreams: config.events.maxStreams,
    }),
    approvalsRoutes({ approvals: container.approvals }),
    handshakesRoutes({ handshakes: container.handshakes }),
    personasRoutes({ personas: container.personas, attachments: container.attachments }),
    identityRoutes({ identity: container.identity }),
    memoryRoutes({ memory: container.memory, audit: container.audit }),
    memoryImportRoutes({ memoryImport: container.memoryImport }),
    knowledgeRoutes({ knowledge: container.knowledge, attachments: container.attachments }),
    skillsRoutes({ skills: container.skills }),
    searchRoutes({ providers: container.searchProviders, embeddings: container.embeddings, indexer: container.searchIndexer }),
    oauthRoutes({ oauth: container.oauth, publicBaseUrl: config.publicBaseUrl }),
    googleRoutes({ google: container.google }),
    integrationsRoutes({ integrations: container.integrations }),
    connectorsRoutes({ connectors: container.connectors }),
    billingRoutes({ billing: container.billing }),
    vaultRoutes({ vault: container.vault, audit: container.audit }),
    marketplaceRoutes({ marketplace: container.marketplace }),
    webhooksRoutes({ webhooks: container.webhooks }),
    chatRoutes({ chat: container.chat }),
    portabilityRoutes({ portability: container.portability }),
    erasureRoutes({ erasure: container.erasure, publicBaseUrl: config.publicBaseUrl }),
    mcpRoutes({ audit: container.audit, publicBaseUrl: config.publicBaseUrl, hub: mcpHub }),
    authorizationRoutes({ server: container.authorization, publicBaseUrl: config.publicBaseUrl }),
  ];
  for (const routesPlugin of routes) {
    await app.register(routesPlugin);
    await new Promise((resolve) => setImmediate(resolve));
  }
  // WebSocket upgrades (the AFP daemon's link) are routed like requests. The plugin is
  // registered in a scope of its own, with the AFP routes: it adds an onRequest and an
  // onResponse hook and wraps the handler of every route in its scope, which on every other
  // route cost about a fifth of the rate of a small answer. Upgrades reaching other routes are
  // answered over HTTP and their sockets closed (beforeAccess above).
  await app.register(async (scope) => {
    await scope.register(websocket, {
      options: { maxPayload: AFP_LIMITS.maxMessageBytes },
      // Shutting down (draining): the relay hands every daemon link back with "going away", a code
      // daemons treat as "connect again", so they reconnect through the load balancer to another
      // node; any other socket left is closed the same way.
      preClose(done) {
        const reason = 'this server is shutting down; connect again';
        void container.afpRelay.closeAll(AFP_CLOSE.GOING_AWAY, reason).finally(() => {
          for (const client of this.websocketServer.clients) client.close(AFP_CLOSE.GOING_AWAY, reason);
          done();
        });
      },
    });
    await scope.register(
      afpRoutes({ afp: container.afp, downloads: container.afpDownloads, host: container.afpRelay, tokens: container.tokens, heartbeatMs: config.afp.heartbeatMs }),
    );
  });
  // The owner's console at `/`, a client of the routes above like any other.
  await app.register(consoleRoutes({ publicBaseUrl: config.publicBaseUrl }));

  return app;
}
