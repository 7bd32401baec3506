import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { registerAccessControl } from './http/access.js';
import { handleFrameworkError, registerErrorHandling } from './http/errors.js';
import { createRateLimiter } from './http/rate-limit.js';
import { redactUrl } from './http/schemas.js';
import { newId } from './lib/ids.js';
import { accountsRoutes } from './modules/accounts/accounts.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { discoveryRoutes } from './modules/discovery/discovery.routes.js';
import { gatewayRoutes } from './modules/gateway/gateway.routes.js';
import { handshakesRoutes } from './modules/handshakes/handshakes.routes.js';
import { identityRoutes } from './modules/identity/identity.routes.js';
import { knowledgeRoutes } from './modules/knowledge/knowledge.routes.js';
import { memoryRoutes } from './modules/memory/memory.routes.js';
import { personasRoutes } from './modules/personas/personas.routes.js';
import { skillsRoutes } from './modules/skills/skills.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import type { Services } from './services.js';
import type { Storage } from './storage/storage.js';
import { API_VERSION } from './version.js';

// Defined in version.ts so that modules read it without importing the app; re-exported for callers of the app.
export { API_VERSION };

export interface AppDeps {
  config: Config;
  storage: Storage;
  services: Services;
  /** Where logs go; stdout when not given. */
  logStream?: DestinationStream;
}

function loggerOptions(config: Config) {
  return {
    level: config.logLevel,
    // Secrets never reach the logs: no headers are logged, and ?token= is masked in URLs.
    redact: { paths: ['req.headers.authorization', '*.password', '*.token', '*.secret'], censor: '[REDACTED]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string; socket?: { remoteAddress?: string } }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip ?? request.socket?.remoteAddress };
      },
    },
  };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, services } = deps;
  const logger = loggerOptions(config);
  const app = Fastify({
    logger: deps.logStream ? { ...logger, stream: deps.logStream } : logger,
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // `/api/v1` is served as `/api/v1/`; nothing is ever redirected.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    exposeHeadRoutes: false,
    // Request ids are ours; a client-sent X-Request-Id is not trusted into the logs.
    requestIdHeader: false,
    genReqId: () => newId('req'),
    frameworkErrors: handleFrameworkError,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Clients that always send Content-Type: application/json also on bodiless POSTs are served.
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });
  // Fastify's built-in text/plain parser would let plain text reach JSON routes (400 instead of 415).
  app.removeContentTypeParser('text/plain');

  registerErrorHandling(app);
  const tokenLimiter =
    config.tokenRateLimitPerMinute > 0
      ? createRateLimiter({ max: config.tokenRateLimitPerMinute, windowMs: 60_000, what: 'requests with this token' })
      : undefined;
  registerAccessControl(app, {
    authenticate: (secret) => services.tokens.authenticate(secret),
    ...(tokenLimiter ? { afterAuthenticated: (principal) => tokenLimiter.hit(principal.tokenId) } : {}),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hearth',
        version: API_VERSION,
        description:
          "A personal API platform: one owner's identity, personas, skills, memory, knowledge base, vault, connected accounts and PCs, reached by AI agents with scoped bearer tokens.",
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>' },
          queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'For fetch tools that cannot set headers' },
        },
      },
      security: [{ bearerAuth: [] }, { queryToken: [] }],
    },
  });

  const authLimiter = createRateLimiter({
    max: config.authRateLimitPerMinute,
    windowMs: 60_000,
    what: 'sign-in attempts from this address',
  });

  await app.register(accountsRoutes({ accounts: services.accounts, tokens: services.tokens, authLimiter }));
  await app.register(tokensRoutes({ tokens: services.tokens }));
  await app.register(auditRoutes({ audit: services.audit }));
  await app.register(discoveryRoutes({ discovery: services.discovery }));
  await app.register(gatewayRoutes({ gateway: services.gateway }));
  await app.register(handshakesRoutes({ handshakes: services.handshakes, rateLimitPerMinute: config.handshakeRateLimitPerMinute }));
  await app.register(personasRoutes({ personas: services.personas, attachments: services.attachments }));
  await app.register(identityRoutes({ identity: services.identity }));
  await app.register(memoryRoutes({ memory: services.memory }));
  await app.register(knowledgeRoutes({ knowledge: services.knowledge, attachments: services.attachments }));
  await app.register(skillsRoutes({ skills: services.skills }));

  return app;
}
