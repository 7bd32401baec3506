import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { access, principalOf } from '../../http/access.js';
import { actorOf } from '../audit/audit.service.js';
import { AuthorizeResponse, CallbackQuery, DisconnectResponse, ServiceParams, StatusResponse } from './oauth.schemas.js';
import type { OAuthService } from './oauth.service.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The page the owner's browser lands on after consenting. Nothing on it loads or links anywhere. */
export function connectedPage(label: string, account: string | null, scopes: string[]): string {
  const who = account ? `<strong>${escapeHtml(account)}</strong>` : `your ${escapeHtml(label)} account`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(label)} connected · Hearth</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}code{font-size:.9em}</style></head>
<body>
<h1>${escapeHtml(label)} connected</h1>
<p>Hearth is now connected to ${who}.</p>
<p>Granted: ${scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ') || 'nothing'}.</p>
<p>You can close this window. Agents with the <code>services:read</code> or <code>services:write</code> scope can now use it; <code>GET /api/v1/oauth/status</code> shows the connection.</p>
</body>
</html>
`;
}

export function oauthRoutes(deps: { oauth: OAuthService }): FastifyPluginAsyncTypebox {
  const { oauth } = deps;
  return async (app) => {
    const tags = ['oauth'];

    app.get(
      '/api/v1/oauth/authorize/:service',
      {
        config: { access: access.scope('services:write') },
        schema: {
          operationId: 'oauthAuthorize',
          summary: "The provider's consent URL to connect an account (PKCE; single-use state, valid 10 minutes)",
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
        const connected = await oauth.callback(request.params.service, request.query, (ownerId) => actorOf(request, ownerId));
        // The address carried the code: no referrer leaves this page, and nothing caches it.
        return reply
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
          .header('x-frame-options', 'DENY')
          .type('text/html; charset=utf-8')
          .send(connectedPage(connected.label, connected.account, connected.scopes));
      },
    );

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
