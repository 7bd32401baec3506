import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf, sessionCookieName } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import { PASSWORD_ATTEMPTS } from '../../http/rate-limit.js';
import { actorOf } from '../audit/audit.service.js';
import { AccountDeletedResponse, DeleteAccountBody } from './erasure.schemas.js';
import type { ErasureService } from './erasure.service.js';

export function erasureRoutes(deps: { erasure: ErasureService; publicBaseUrl: string }): FastifyPluginAsyncTypebox {
  const ownOrigin = new URL(deps.publicBaseUrl).origin;
  // The console's session cookie, cleared in the answer: the session it held no longer exists.
  const clearedCookie = `${sessionCookieName(ownOrigin)}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${ownOrigin.startsWith('https:') ? '; Secure' : ''}`;
  return async (app) => {
    app.delete(
      '/api/v1/users/me',
      {
        // The owner alone (master token or login session), with the password: a token given to an
        // app or agent must never be able to delete the account. Password checks are counted by
        // the attempt limiter, as for login.
        config: { access: access.owner(), rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'deleteAccount',
          summary: 'Delete the account and everything in it, for good: the password and the email typed again are required',
          description:
            'Irreversible. Erases every record of the account (memory, knowledge base, personas, skills, vault secrets and their keys, ' +
            'tokens and sessions, connections, webhooks, devices, chats, approvals, exports, the audit log…) and its export archives on disk; ' +
            "connected accounts are disconnected first, their grants revoked at the provider. Export the data first if it is wanted (POST /api/v1/export). " +
            "The administrator's account cannot be deleted while other accounts remain (409). Every token of the account stops working at once.",
          tags: ['accounts'],
          body: DeleteAccountBody,
          response: { 200: AccountDeletedResponse },
        },
      },
      async (request, reply) => {
        const { ownerId } = principalOf(request);
        const result = await inRequestPart('body', deps.erasure.deleteAccount(ownerId, request.body, actorOf(request)));
        // The operator's record: which account and how much, never its email or content. The
        // audit log cannot hold it: the account's log is erased with it.
        request.log.info({ userId: result.userId, role: result.role, rows: result.rows, files: result.files, tables: result.tables }, 'account deleted at its owner\'s request');
        reply.header('set-cookie', clearedCookie).header('cache-control', 'no-store');
        const { tables: _tables, role: _role, ...answer } = result;
        return { data: answer };
      },
    );
  };
}
