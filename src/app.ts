import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { registerAccessControl } from './http/access.js';
import { registerErrorHandling } from './http/errors.js';
import { createRateLimiter } from './http/rate-limit.js';
import { redactUrl } from './http/schemas.js';
import { newId } from './lib/ids.js';
import { accountsRoutes } from './modules/accounts/accounts.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import type { Services } from './services.js';
import type { Storage } from './storage/storage.js';

export const API_VERSION = '0.1.0';

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

  return app;
}
