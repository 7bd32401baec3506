import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { logRequestError, toAppError } from '../../http/errors.js';
import { access, principalOf } from '../../http/access.js';
import { sendPage } from '../../http/pages.js';
import { PASSWORD_ATTEMPTS, type CountedRateLimit } from '../../http/rate-limit.js';
import { emptyBodyAsObject, IdParams } from '../../http/schemas.js';
import { actorOf } from '../audit/audit.service.js';
import { AuthorizationPageError, AuthorizationRedirect, OAuthProtocolError } from './authorization.errors.js';
import { consentPage, errorPage, waitingPage } from './authorization.pages.js';
import {
  ApproveAuthorizationRequestBody,
  ConsoleAuthorizationRequestList,
  ConsoleAuthorizationRequestResponse,
  AuthorizationServerMetadata,
  AuthorizeQuery,
  ClientRegistration,
  ConsentForm,
  OAuthErrorBody,
  OAuthForm,
  ProtectedResourceMetadata,
  RegisteredClientSchema,
  TokenAnswer,
  WaitQuery,
} from './authorization.schemas.js';
import { ConsentRetry, type AuthorizationServer, type ClientCredentials } from './authorization.service.js';

const tags = ['authorization'];
const html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });

/** Client registrations one address may make per hour (RFC 7591 registration is open to anyone). */
export const REGISTRATIONS_PER_HOUR = 20;
/** Waiting-page refreshes one address may make per minute: a few pages open at once, each every few seconds. */
export const WAIT_REFRESHES_PER_MINUTE = 120;

/** RFC 7591 registration is open to anyone, and each one stores a client. */
const registrationLimit: CountedRateLimit = {
  name: 'oauth-registrations',
  key: 'ip',
  max: () => REGISTRATIONS_PER_HOUR,
  windowMs: 3_600_000,
  what: 'client registrations from this address',
};
/**
 * Each consent page opened stores a pending request: as many per address and minute as password
 * checks (AUTH_RATE_LIMIT), which is what the page leads to. A consent form sent to the console
 * stores a waiting request too, and counts in the same window.
 */
const authorizationLimit: CountedRateLimit = {
  name: 'oauth-authorizations',
  key: 'ip',
  max: (config) => config.authRateLimitPerMinute,
  windowMs: 60_000,
  what: 'authorization requests from this address',
};
const waitLimit: CountedRateLimit = {
  name: 'oauth-waits',
  key: 'ip',
  max: () => WAIT_REFRESHES_PER_MINUTE,
  windowMs: 60_000,
  what: 'waiting-page refreshes from this address',
};


/** `application/x-www-form-urlencoded`, keeping every value of a repeated field (the consent page's scopes). */
function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** A protocol form's fields, each sent once (RFC 6749 §3.1: a parameter must not repeat). */
function singleValues(form: Record<string, string | string[]>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(form)) {
    if (Array.isArray(value)) throw new OAuthProtocolError(400, 'invalid_request', `${key} is sent more than once`);
    out[key] = value;
  }
  return out;
}

/** The client's credentials: HTTP Basic (RFC 6749 §2.3.1, form-encoded id and secret) or the form. */
function credentialsOf(request: FastifyRequest, form: Record<string, string | undefined>): ClientCredentials {
  const header = request.headers.authorization;
  const basic = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      try {
        return { clientId: decodeURIComponent(decoded.slice(0, colon)), clientSecret: decodeURIComponent(decoded.slice(colon + 1)) };
      } catch {
        throw new OAuthProtocolError(401, 'invalid_client', 'The Basic credentials are not form-encoded client_id:client_secret');
      }
    }
  }
  return { clientId: form.client_id, clientSecret: form.client_secret };
}

/** Answers a protocol error the way OAuth clients read it; any other error goes to the app's handler. */
async function protocol<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof OAuthProtocolError)) throw error;
    if (error.status === 401) reply.header('www-authenticate', 'Basic realm="hearth"');
    return reply.status(error.status).header('cache-control', 'no-store').send(error.body());
  }
}

/**
 * A protocol endpoint's answer to a request refused before its handler ran: a body that is not
 * the form or object the route takes (`[1]`, a string, a field of the wrong type), one that does
 * not parse, a content type the route does not take. The RFCs answer a malformed request with
 * 400 and their own error object (RFC 6749 §5.2 `invalid_request`, which RFC 7009 §2.2.1 uses
 * too; RFC 7591 §3.2.2 `invalid_client_metadata`), which is what OAuth clients read; the API's
 * error shape would not even fit the route's declared 400 answer. Anything else (a body over
 * the size limit, a rate limit, a failure) goes on to the app's one error handler.
 */
function malformedRequest(code: 'invalid_request' | 'invalid_client_metadata', bodyType: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.code !== 'VALIDATION_ERROR' && appError.code !== 'UNSUPPORTED_MEDIA_TYPE') throw error;
    logRequestError(request, appError, error);
    const description =
      appError.code === 'UNSUPPORTED_MEDIA_TYPE' ? `This endpoint takes ${bodyType}; the request's Content-Type is not that` : `${appError.message}. This endpoint takes ${bodyType}`;
    return reply.status(400).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ error: code, error_description: description });
  };
}

const FORM_BODY = 'its parameters as an application/x-www-form-urlencoded form (RFC 6749 §4.1.3, RFC 7009 §2.1), each sent once';

export interface AuthorizationRoutesDeps {
  server: AuthorizationServer;
  publicBaseUrl: string;
}

export function authorizationRoutes(deps: AuthorizationRoutesDeps): FastifyPluginAsyncTypebox {
  const { server } = deps;
  const ownOrigin = new URL(deps.publicBaseUrl).origin;
  const publicAccess = { access: access.public() };
  const ownerAccess = { access: access.owner() };

  return async (app) => {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
      done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
    });

    const resourceMetadata = async () => server.protectedResource();
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      app.get(
        path,
        {
          config: publicAccess,
          schema: {
            operationId: path.endsWith('/mcp') ? 'getMcpProtectedResourceMetadata' : 'getProtectedResourceMetadata',
            summary: 'OAuth protected-resource metadata (RFC 9728) of the MCP endpoint: which authorization server issues its tokens',
            tags,
            response: { 200: ProtectedResourceMetadata },
          },
        },
        resourceMetadata,
      );
    }

    app.get(
      '/.well-known/oauth-authorization-server',
      {
        config: publicAccess,
        schema: {
          operationId: 'getAuthorizationServerMetadata',
          summary: 'OAuth authorization-server metadata (RFC 8414): endpoints, PKCE S256, registration',
          tags,
          response: { 200: AuthorizationServerMetadata },
        },
      },
      async () => server.metadata(),
    );

    app.post(
      '/register',
      {
        config: { ...publicAccess, rateLimit: registrationLimit },
        errorHandler: malformedRequest('invalid_client_metadata', 'the client metadata as a JSON object (RFC 7591 §2)'),
        schema: {
          operationId: 'registerOAuthClient',
          summary: 'Dynamic client registration (RFC 7591) of an OAuth client such as an MCP client',
          tags,
          body: ClientRegistration,
          response: { 201: RegisteredClientSchema, 400: OAuthErrorBody },
        },
      },
      async (request, reply) =>
        protocol(reply, async () => {
          const registered = await server.registerClient(request.body as Record<string, unknown>, actorOf(request));
          return reply.status(201).header('cache-control', 'no-store').send(registered);
        }),
    );

    app.get(
      '/authorize',
      {
        config: { ...publicAccess, rateLimit: authorizationLimit },
        schema: {
          operationId: 'authorize',
          summary: "The owner's consent page for an OAuth client (authorization code with PKCE S256)",
          tags,
          querystring: AuthorizeQuery,
          response: { 200: html('The consent page: sign in, choose the scopes, approve or deny'), 302: { description: 'Back to the client with an error' }, 400: html('The request cannot go back to its client') },
        },
      },
      async (request, reply) => {
        try {
          const view = await server.begin(request.query as Record<string, string | undefined>);
          return sendPage(reply, consentPage(view, { formAction: '/authorize' }));
        } catch (error) {
          if (error instanceof AuthorizationRedirect) return reply.header('cache-control', 'no-store').redirect(error.location, 302);
          if (error instanceof AuthorizationPageError) return sendPage(reply.status(400), errorPage(error.message));
          throw error;
        }
      },
    );

    app.post(
      '/authorize',
      {
        // The owner's password is checked by the attempt limiter; a form sent to the console
        // instead stores a waiting request, counted like a consent page opened.
        config: { ...publicAccess, rateLimit: [PASSWORD_ATTEMPTS, { ...authorizationLimit, when: { bodyField: 'decision', equals: 'console' } }] },
        schema: {
          operationId: 'authorizeDecision',
          summary: "The consent page's answer: the owner signs in and approves or denies",
          tags,
          consumes: ['application/x-www-form-urlencoded'],
          body: ConsentForm,
          response: {
            200: html('The consent page again, saying what to correct'),
            303: { description: "Back to the client's redirect URI with a code, or with access_denied; or, sent to the console, to the waiting page" },
            400: html('The form does not belong to an open request'),
            403: html('The form was sent from another site'),
          },
        },
      },
      async (request, reply) => {
        // Another site must not post a visitor's answer (consent CSRF): the browser says where
        // the form came from, and the form carries the request's own secret.
        const origin = request.headers.origin;
        const site = request.headers['sec-fetch-site'];
        if ((origin !== undefined && origin !== 'null' && origin !== ownOrigin) || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
          return sendPage(reply.status(403), errorPage(`The consent form must be sent from Hearth's own page (${ownOrigin}), not from another site.`));
        }
        const body = request.body as Record<string, string | string[]>;
        const one = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
        const scopes = body.scope === undefined ? [] : ([] as string[]).concat(body.scope);
        const form = { requestId: one('request_id') ?? '', csrf: one('csrf') ?? '', decision: one('decision') ?? '', email: one('email'), password: one('password'), scopes };
        try {
          const location = form.decision === 'console' ? await server.sendToConsole(form) : await server.decide(form, actorOf(request));
          return reply.header('cache-control', 'no-store').redirect(location, 303);
        } catch (error) {
          let refusal = error;
          if (error instanceof ConsentRetry) {
            try {
              const view = await server.reopen(form.requestId, form.csrf);
              return sendPage(reply, consentPage(view, { formAction: '/authorize', error: error.message, email: form.email }));
            } catch (reopenError) {
              // The request expired meanwhile: that page error is the answer.
              refusal = reopenError;
            }
          }
          if (refusal instanceof AuthorizationPageError) return sendPage(reply.status(400), errorPage(refusal.message));
          throw refusal;
        }
      },
    );

    app.get(
      '/authorize/wait',
      {
        config: { ...publicAccess, rateLimit: waitLimit },
        schema: {
          operationId: 'authorizeWait',
          summary: "The page that waits for the owner's decision in the console, refreshing itself; then goes on to the client",
          tags,
          querystring: WaitQuery,
          response: {
            200: html('Still waiting: the page refreshes itself every few seconds'),
            303: { description: "Decided: to the client's redirect URI with a code, or with access_denied" },
            400: html('The request expired, was answered already, or this address is not one Hearth gave'),
          },
        },
      },
      async (request, reply) => {
        try {
          const outcome = await server.wait(request.query.request_id, request.query.wait);
          if (outcome.kind === 'redirect') return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(outcome.location, 303);
          return sendPage(reply, waitingPage(outcome.view));
        } catch (error) {
          if (error instanceof AuthorizationPageError) return sendPage(reply.status(400), errorPage(error.message));
          throw error;
        }
      },
    );

    app.get(
      '/api/v1/authorization/requests',
      {
        config: ownerAccess,
        schema: {
          operationId: 'listAuthorizationRequests',
          summary: "Apps' authorization requests sent to this console for a decision, oldest first",
          tags,
          response: { 200: ConsoleAuthorizationRequestList },
        },
      },
      async (request) => ({ data: await server.listConsoleRequests(principalOf(request).ownerId) }),
    );

    app.post(
      '/api/v1/authorization/requests/:id/approve',
      {
        config: ownerAccess,
        // The body is optional: approving as asked needs none.
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'approveAuthorizationRequest',
          summary: "Approve an app's authorization request from the console; the waiting browser then receives the code",
          tags,
          params: IdParams,
          body: ApproveAuthorizationRequestBody,
          response: { 200: ConsoleAuthorizationRequestResponse },
        },
      },
      async (request) => ({ data: await server.approveConsoleRequest(principalOf(request).ownerId, request.params.id, request.body, actorOf(request)) }),
    );

    app.post(
      '/api/v1/authorization/requests/:id/deny',
      {
        config: ownerAccess,
        schema: {
          operationId: 'denyAuthorizationRequest',
          summary: "Deny an app's authorization request from the console; the waiting browser goes back to the app with access_denied",
          tags,
          params: IdParams,
          response: { 200: ConsoleAuthorizationRequestResponse },
        },
      },
      async (request) => ({ data: await server.denyConsoleRequest(principalOf(request).ownerId, request.params.id, actorOf(request)) }),
    );

    app.post(
      '/token',
      {
        config: publicAccess,
        errorHandler: malformedRequest('invalid_request', FORM_BODY),
        schema: {
          operationId: 'oauthToken',
          summary: 'The token endpoint: exchange a code (with its PKCE verifier) or a refresh token (rotated on use)',
          tags,
          consumes: ['application/x-www-form-urlencoded'],
          body: OAuthForm,
          response: { 200: TokenAnswer, 400: OAuthErrorBody, 401: OAuthErrorBody },
        },
      },
      async (request, reply) =>
        protocol(reply, async () => {
          const form = singleValues(request.body as Record<string, string | string[]>);
          const answer = await server.token(form, credentialsOf(request, form), actorOf(request));
          return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
        }),
    );

    app.post(
      '/revoke',
      {
        config: publicAccess,
        errorHandler: malformedRequest('invalid_request', FORM_BODY),
        schema: {
          operationId: 'oauthRevoke',
          summary: 'Token revocation (RFC 7009): ends the grant of an access or refresh token',
          tags,
          consumes: ['application/x-www-form-urlencoded'],
          body: OAuthForm,
          response: { 200: Type.Object({}, { description: 'Revoked, or nothing to revoke: the answer is the same' }), 400: OAuthErrorBody, 401: OAuthErrorBody },
        },
      },
      async (request, reply) =>
        protocol(reply, async () => {
          const form = singleValues(request.body as Record<string, string | string[]>);
          await server.revoke(form, credentialsOf(request, form), actorOf(request));
          return reply.header('cache-control', 'no-store').send({});
        }),
    );
  };
}
