import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { actorOf } from '../audit/audit.service.js';
import { AuthorizeResponse, CallbackQuery, ConnectForm, ConnectQuery, DisconnectResponse, ServiceParams, StatusResponse } from './oauth.schemas.js';
import type { OAuthService } from './oauth.service.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const PAGE_STYLE = '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}code{font-size:.9em}label,input,button{display:block;margin:.5rem 0}</style>';

/** The page the owner's browser lands on after consenting. Nothing on it loads or links anywhere. */
export function connectedPage(label: string, account: string | null, scopes: string[]): string {
  const who = account ? `<strong>${escapeHtml(account)}</strong>` : `your ${escapeHtml(label)} account`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(label)} connected · Hearth</title>
${PAGE_STYLE}</head>
<body>
<h1>${escapeHtml(label)} connected</h1>
<p>Hearth is now connected to ${who}.</p>
<p>Granted: ${scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ') || 'nothing'}.</p>
<p>You can close this window. Agents with the <code>services:read</code> or <code>services:write</code> scope can now use it; <code>GET /api/v1/oauth/status</code> shows the connection.</p>
</body>
</html>
`;
}

/**
 * Where the owner signs in to start connecting: the answer of GET /oauth/authorize points here.
 * It names the Hearth account the provider's account will be connected to.
 */
export function connectPage(label: string, account: string | null, formAction: string, state: string): string {
  const who = account ? `<strong>${escapeHtml(account)}</strong>` : 'this Hearth account';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connect ${escapeHtml(label)} · Hearth</title>
${PAGE_STYLE}</head>
<body>
<h1>Connect ${escapeHtml(label)} to Hearth</h1>
<p>This connects a ${escapeHtml(label)} account to the Hearth account ${who}. If that is not your Hearth account, close this window: whoever sent you this link would get access to your ${escapeHtml(label)} account.</p>
<form method="post" action="${escapeHtml(formAction)}">
<input type="hidden" name="state" value="${escapeHtml(state)}">
<label for="password">Your Hearth password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Continue to ${escapeHtml(label)}</button>
</form>
</body>
</html>
`;
}

/** After signing in: the browser goes on to the provider's consent screen (a page, never an HTTP redirect). */
export function continuePage(label: string, providerUrl: string): string {
  const href = escapeHtml(providerUrl);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${href}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Continue to ${escapeHtml(label)} · Hearth</title>
${PAGE_STYLE}</head>
<body>
<h1>Continue to ${escapeHtml(label)}</h1>
<p><a id="continue" href="${href}">Continue to ${escapeHtml(label)}'s consent screen</a> if it does not open by itself.</p>
</body>
</html>
`;
}

/** The request's cookies, by name (the first of each name wins). */
function cookiesOf(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (name && !(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

function cookieHeader(cookie: { name: string; value: string; path: string; maxAgeSeconds: number; secure: boolean }): string {
  return `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAgeSeconds}; HttpOnly; SameSite=Lax${cookie.secure ? '; Secure' : ''}`;
}

// The pages carry a state or a code in their address: no referrer leaves them, nothing caches or frames them.
function pageHeaders(reply: FastifyReply, extra = ''): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'${extra}`)
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8');
}

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
        const connected = await oauth.callback(request.params.service, request.query, cookiesOf(request.headers.cookie), (ownerId) =>
          actorOf(request, ownerId),
        );
        // The flow is spent: its binding cookie has nothing left to do.
        reply.header('set-cookie', cookieHeader(oauth.clearedBindingCookie(request.params.service, request.query.state!)));
        return pageHeaders(reply).send(connectedPage(connected.label, connected.account, connected.scopes));
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
        const page = await oauth.connectPage(request.params.service, request.query.state);
        return pageHeaders(reply, "; form-action 'self'").send(connectPage(page.label, page.account, page.formAction, request.query.state));
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
          config: { access: access.public() },
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
          const bound = await oauth.bindBrowser(request.params.service, request.body.state, request.body.password, (ownerId) =>
            actorOf(request, ownerId),
          );
          reply.header('set-cookie', cookieHeader(bound.cookie));
          return pageHeaders(reply).send(continuePage(bound.label, bound.providerUrl));
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
        config: { access: access.scope('services:write') },
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
