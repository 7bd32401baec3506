import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { access, principalOf } from '../../http/access.js';
import { AppError, inRequestPart } from '../../http/errors.js';
import { sendPage } from '../../http/pages.js';
import { PASSWORD_ATTEMPTS } from '../../http/rate-limit.js';
import { actorOf } from '../audit/audit.service.js';
import { AuthorizeResponse, CallbackQuery, ConnectForm, ConnectQuery, DisconnectResponse, ServiceParams, StatusResponse } from './oauth.schemas.js';
import { connectedPage, connectPage, continuePage, cookieHeader, cookiesOf } from './oauth.pages.js';
import type { OAuthService } from './oauth.service.js';

export function oauthRoutes(deps: { oauth: OAuthService; publicBaseUrl: string }): FastifyPluginAsyncTypebox {
  const { oauth } = deps;
  return async (app) => {
    const tags = ['oauth'];

    app.get(
      '/api/v1/oauth/authorize/:service',
      {
        config: { access: access.scope('services:write') },
        schema: {
          operationId: 'oauthAuthorize',
          summary: "The address that connects an account: Hearth's connect page, then the provider's consent (PKCE; single-use state, valid 10 minutes)",
          tags,
          params: ServiceParams,
          response: { 200: AuthorizeResponse },
        },
      },
      async (request) => ({ data: await oauth.authorize(principalOf(request).ownerId, request.params.service) }),
    );

    app.get(
      '/api/v1/oauth/callback/:service',
      {
        config: { access: access.public() },
        schema: {
          operationId: 'oauthCallback',
          summary: "Where the provider sends the owner's browser back: exchanges the code and stores the tokens encrypted",
          tags,
          params: ServiceParams,
          querystring: CallbackQuery,
          response: {
            200: { description: 'A page saying the account is connected', content: { 'text/html': { schema: Type.String() } } },
          },
        },
      },
      async (request, reply) => {
        const { state, code, error, error_description: errorDescription } = request.query;
        const connected = await inRequestPart(
          'querystring',
          oauth.callback(request.params.service, { state, code, error, errorDescription }, cookiesOf(request.headers.cookie), (ownerId) =>
            actorOf(request, ownerId),
          ),
        );
        // The flow is spent: its binding cookie has nothing left to do.
        reply.header('set-cookie', cookieHeader(oauth.clearedBindingCookie(request.params.service, state!)));
        return sendPage(reply, connectedPage(connected.label, connected.account, connected.scopes));
      },
    );

    app.get(
      '/api/v1/oauth/connect/:service',
      {
        config: { access: access.public() },
        schema: {
          operationId: 'oauthConnectPage',
          summary: "The page the authorize url opens: the flow's owner signs in to Hearth, which binds the flow to this browser",
          description:
            'A browser page, not an API call. It names the Hearth account the provider account will be connected to and asks for its password; the callback is refused in any other browser.',
          tags,
          params: ServiceParams,
          querystring: ConnectQuery,
          response: {
            200: { description: 'The sign-in page', content: { 'text/html': { schema: Type.String() } } },
          },
        },
      },
      async (request, reply) => {
        const page = await inRequestPart('querystring', oauth.connectPage(request.params.service, request.query.state));
        return sendPage(reply, connectPage(page.label, page.account, page.formAction, request.query.state));
      },
    );

    // The sign-in form posts here; only this route reads form bodies.
    await app.register(async (form) => {
      form.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
      });
      const ownOrigin = new URL(deps.publicBaseUrl).origin;
      form.withTypeProvider<TypeBoxTypeProvider>().post(
        '/api/v1/oauth/connect/:service',
        {
          config: { access: access.public(), rateLimit: PASSWORD_ATTEMPTS },
          schema: {
            operationId: 'oauthConnectSignIn',
            summary: "The connect page's sign-in: with the owner's password, binds the flow to this browser (a cookie) and goes on to the provider",
            tags,
            params: ServiceParams,
            consumes: ['application/x-www-form-urlencoded'],
            body: ConnectForm,
            response: {
              200: { description: "A page that opens the provider's consent screen", content: { 'text/html': { schema: Type.String() } } },
            },
          },
        },
        async (request, reply) => {
          // Another site must not sign a visitor's browser in to someone else's flow (login CSRF).
          const origin = request.headers.origin;
          const site = request.headers['sec-fetch-site'];
          if ((origin !== undefined && origin !== ownOrigin) || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
            throw new AppError('FORBIDDEN', `The sign-in form must be sent from Hearth's own connect page (${ownOrigin}), not from another site`);
          }
          const bound = await inRequestPart(
            'body',
            oauth.bindBrowser(request.params.service, request.body.state, request.body.password, (ownerId) => actorOf(request, ownerId)),
          );
          reply.header('set-cookie', cookieHeader(bound.cookie));
          return sendPage(reply, continuePage(bound.label, bound.providerUrl));
        },
      );
    });

    app.get(
      '/api/v1/oauth/status',
      {
        config: { access: access.scope('services:read') },
        schema: {
          operationId: 'oauthStatus',
          summary: "Each OAuth provider: whether it is configured, and the owner's connection to it",
          tags,
          response: { 200: StatusResponse },
        },
      },
      async (request) => ({ data: await oauth.status(principalOf(request).ownerId) }),
    );

    app.post(
      '/api/v1/oauth/disconnect/:service',
      {
        config: { access: access.scope('services:write'), actionClass: 'services.write' },
        schema: {
          operationId: 'oauthDisconnect',
          summary: 'Revoke the grant at the provider (best effort) and delete the stored tokens',
          tags,
          params: ServiceParams,
          response: { 200: DisconnectResponse },
        },
      },
      async (request) => ({
        data: await oauth.disconnect(principalOf(request).ownerId, request.params.service, actorOf(request)),
      }),
    );
  };
}
