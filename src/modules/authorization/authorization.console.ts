import type { Static } from '@sinclair/typebox';
import type { Scope } from '../../http/access.js';
import { AppError, notFound } from '../../http/errors.js';
import { constantTimeEqual } from '../../lib/crypto.js';
import { isoNow, isPast } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { AuthorizationClientsTable, AuthorizationRequestsTable, AuthorizationTables } from './authorization.tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import { AuthorizationPageError } from './authorization.errors.js';
import { ConsentRetry, EXPIRED_OR_ANSWERED, randomValue, redirectHostOf, sha256, type AuthorizationProtocol } from './authorization.protocol.js';
import { consoleGrantedScopesOf, requestedScopesOf, type AuthorizationRepo } from './authorization.repo.js';
import type { ApproveAuthorizationRequestBody, ConsoleAuthorizationRequest } from './authorization.schemas.js';

/**
 * Requests one email address may keep waiting for a console decision. A newer one ends the
 * oldest (its waiting page then reads expired), counted by email whether or not an account has
 * it, so that the bound says nothing about which emails exist.
 */
export const CONSOLE_WAITING_PER_EMAIL = 10;
/** Requests the owner's list shows at most (each email keeps at most CONSOLE_WAITING_PER_EMAIL). */
const CONSOLE_LIST_LIMIT = 100;
/** How often the waiting page refreshes itself, in seconds. */
export const WAIT_REFRESH_SECONDS = 3;

/** What the waiting page shows while the owner has not decided yet. */
export interface WaitingView {
  clientName: string;
  redirectHost: string;
  /** The page's own address (with its wait secret), which it refreshes to. */
  refreshPath: string;
  expiresAt: string;
}

/** The waiting page's next step: show it again, or send the browser on (to the client, with a code or a denial). */
export type WaitOutcome = { kind: 'waiting'; view: WaitingView } | { kind: 'redirect'; location: string };

function waitPath(requestId: string, secret: string): string {
  return `/authorize/wait?${new URLSearchParams({ request_id: requestId, wait: secret }).toString()}`;
}

/** A request waiting in the owner's console, as the owner's API shows it. */
function consoleView(request: AuthorizationRequestsTable, client: AuthorizationClientsTable | undefined): ConsoleAuthorizationRequest {
  return {
    id: request.id,
    client: { id: request.client_id, name: client?.name ?? request.client_id, redirectHost: redirectHostOf(request.redirect_uri) },
    requestedScopes: requestedScopesOf(request),
    status: request.decision ?? 'pending',
    grantedScopes: consoleGrantedScopesOf(request),
    createdAt: request.created_at,
    expiresAt: request.expires_at,
  };
}

export interface ConsoleRequestsDeps {
  db: Executor<AuthorizationTables>;
  repo: Pick<AuthorizationRepo, 'getClient' | 'getClients' | 'getRequest' | 'useRequest' | 'sendToConsole' | 'expireOldestWaiting' | 'listWaiting' | 'getOwned' | 'decideInConsole'>;
  accounts: Pick<AccountsService, 'findIdByEmail' | 'normaliseEmail'>;
  audit: Pick<AuditService, 'record'>;
  protocol: AuthorizationProtocol;
  /** Told, after each commit, of requests sent to a console and of the owner's decisions there. */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/**
 * "Approve from my Hearth console": a request sent from the consent page to an account's
 * console, the browser's waiting page, and the owner's decision in the console.
 */
export function createConsoleRequests(deps: ConsoleRequestsDeps) {
  const { db, repo, audit, protocol } = deps;
  const publish = (ownerId: string, event: Parameters<EventsBus['publish']>[1]) => deps.events?.publish(ownerId, event);

  /**
   * Records the owner's console decision on a request of theirs, once. Another owner's request
   * is not found; one already decided, answered on the consent page or expired is a conflict.
   */
  async function decideInConsole(ownerId: string, id: string, decision: 'approved' | 'denied', scopes: Scope[] | null, actor: AuditActor): Promise<ConsoleAuthorizationRequest> {
    const request = await repo.getOwned(ownerId, id);
    if (!request) throw notFound('Authorization request', id);
    const client = await repo.getClient(request.client_id);
    const at = isoNow();
    if (!(await repo.decideInConsole(ownerId, id, { decision, grantedScopes: scopes ? JSON.stringify(scopes) : null }, at))) {
      const current = (await repo.getOwned(ownerId, id)) ?? request;
      if (current.decision) throw new AppError('CONFLICT', `Authorization request ${id} was already ${current.decision}`);
      if (current.used_at) throw new AppError('CONFLICT', `Authorization request ${id} was already answered on the consent page`);
      throw new AppError('CONFLICT', `Authorization request ${id} expired without a decision; the app must ask again`);
    }
    const clientName = client?.name ?? request.client_id;
    await audit.record(actor, {
      action: 'oauth.authorize',
      outcome: decision === 'approved' ? 'success' : 'denied',
      targetType: 'oauth_client',
      targetId: request.client_id,
      details: { clientName, requestId: id, via: 'console', requestedScopes: requestedScopesOf(request), ...(scopes ? { scopes } : {}) },
    });
    publish(ownerId, { type: 'authorization.decided', data: { requestId: id, clientId: request.client_id, clientName, decision } });
    return consoleView({ ...request, decision, granted_scopes: scopes ? JSON.stringify(scopes) : null, decided_at: at }, client);
  }

  return {
    /**
     * "Approve from my Hearth console": the request goes to the console of the account with this
     * email, and the browser waits on a page of its own (answered by its address, with a fresh
     * secret). An email no account has is treated exactly alike, from the outside: the request
     * then simply waits until it expires. Answers the waiting page's address.
     */
    async sendToConsole(form: { requestId: string; csrf: string; email?: string | undefined }): Promise<string> {
      const request = await repo.getRequest(form.requestId);
      if (!request || !constantTimeEqual(sha256(form.csrf), request.csrf_hash)) {
        throw new AuthorizationPageError('This form does not belong to a consent page Hearth showed you; nothing was sent.');
      }
      if (request.used_at || isPast(request.expires_at)) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
      const email = form.email?.trim() ?? '';
      if (!email || email.length > 320 || !email.includes('@')) throw new ConsentRetry('Enter the email of your Hearth account to send this request to your console.');
      const client = await repo.getClient(request.client_id);
      if (!client) throw new AuthorizationPageError('The client of this request is gone.');
      const ownerId = (await deps.accounts.findIdByEmail(email)) ?? null;
      const emailHash = sha256(deps.accounts.normaliseEmail(email));
      const secret = randomValue('');
      const at = isoNow();
      if (!(await repo.sendToConsole(request.id, { consoleEmailHash: emailHash, ownerId, waitHash: sha256(secret) }, at))) {
        throw new AuthorizationPageError('This request was already sent to a console, answered, or it expired. Start again from the app that sent you here.');
      }
      await repo.expireOldestWaiting(emailHash, CONSOLE_WAITING_PER_EMAIL, at);
      // Nothing more is stored or awaited for a known email than for an unknown one, so neither
      // the answer nor its timing tells them apart; the owner's decision is what the log records.
      if (ownerId) {
        const requestedScopes = requestedScopesOf(request);
        publish(ownerId, { type: 'authorization.requested', data: { requestId: request.id, clientId: client.id, clientName: client.name, requestedScopes } });
      }
      return waitPath(request.id, secret);
    },

    /**
     * The waiting page's refresh: still waiting, or the owner's console decision carried out now.
     * An approval becomes a code here, through the same path as the consent page's approval,
     * exactly once however many refreshes arrive together.
     */
    async wait(requestId: string, secret: string): Promise<WaitOutcome> {
      const request = await repo.getRequest(requestId);
      if (!request || !request.wait_hash || !constantTimeEqual(sha256(secret), request.wait_hash)) {
        throw new AuthorizationPageError('This waiting page is not one Hearth showed you. Start again from the app that sent you here.');
      }
      if (request.used_at) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
      const granted = consoleGrantedScopesOf(request);
      if (request.decision === 'approved' && request.owner_id && granted) {
        const { owner_id: ownerId } = request;
        const location = await db.transaction().execute(async (trx) => protocol.grantCode(request, ownerId, granted, trx));
        if (!location) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
        return { kind: 'redirect', location };
      }
      if (request.decision === 'denied') {
        if (!(await repo.useRequest(request.id, isoNow()))) throw new AuthorizationPageError(EXPIRED_OR_ANSWERED);
        return {
          kind: 'redirect',
          location: protocol.redirectWith(request.redirect_uri, { error: 'access_denied', error_description: 'The owner denied the request', state: request.state ?? undefined }),
        };
      }
      if (isPast(request.expires_at)) throw new AuthorizationPageError('Nobody answered this request in the Hearth console in time, so it expired. Start again from the app that sent you here.');
      const client = await repo.getClient(request.client_id);
      return {
        kind: 'waiting',
        view: { clientName: client?.name ?? request.client_id, redirectHost: redirectHostOf(request.redirect_uri), refreshPath: waitPath(request.id, secret), expiresAt: request.expires_at },
      };
    },

    /** The owner's requests waiting in the console for a decision, oldest first. */
    async listConsoleRequests(ownerId: string): Promise<ConsoleAuthorizationRequest[]> {
      const rows = await repo.listWaiting(ownerId, isoNow(), CONSOLE_LIST_LIMIT);
      const known = new Map((await repo.getClients([...new Set(rows.map((row) => row.client_id))])).map((client) => [client.id, client]));
      return rows.map((row) => consoleView(row, known.get(row.client_id)));
    },

    /** Approves in the console, with the requested scopes or those the owner chose (more or fewer). */
    async approveConsoleRequest(ownerId: string, id: string, input: Static<typeof ApproveAuthorizationRequestBody>, actor: AuditActor): Promise<ConsoleAuthorizationRequest> {
      const request = await repo.getOwned(ownerId, id);
      if (!request) throw notFound('Authorization request', id);
      const scopes = input.scopes ? [...new Set(input.scopes)] : requestedScopesOf(request);
      return decideInConsole(ownerId, id, 'approved', scopes, actor);
    },

    async denyConsoleRequest(ownerId: string, id: string, actor: AuditActor): Promise<ConsoleAuthorizationRequest> {
      return decideInConsole(ownerId, id, 'denied', null, actor);
    },
  };
}
