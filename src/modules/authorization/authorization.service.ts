import type { Executor } from '../../storage/columns.js';
import type { AuthorizationTables } from './authorization.tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { ClientDirectory } from './authorization.clients.js';
import { createConsent } from './authorization.consent.js';
import { createConsoleRequests } from './authorization.console.js';
import { createDiscovery } from './authorization.discovery.js';
import { createAuthorizationProtocol } from './authorization.protocol.js';
import type { AuthorizationRepo } from './authorization.repo.js';
import { createTokenEndpoint } from './authorization.token.js';

// What the routes and tests name besides the server itself.
export { CONSOLE_WAITING_PER_EMAIL } from './authorization.console.js';
export { ConsentRetry } from './authorization.protocol.js';
export type { ClientCredentials } from './authorization.token.js';

export interface AuthorizationServerDeps {
  db: Executor<AuthorizationTables>;
  repo: AuthorizationRepo;
  clients: ClientDirectory;
  tokens: Pick<TokensService, 'createForClient' | 'renewForClient' | 'revoke' | 'authenticate' | 'get'>;
  accounts: Pick<AccountsService, 'verifyCredentials' | 'findIdByEmail' | 'normaliseEmail' | 'isDisabled'>;
  audit: Pick<AuditService, 'record'>;
  publicBaseUrl: string;
  /** Told, after each commit, of requests sent to a console and of the owner's decisions there. */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/**
 * The OAuth 2.1 authorization server, composed of its parts: metadata and client registration
 * (authorization.discovery.ts), the consent page (authorization.consent.ts), requests approved
 * from the owner's console (authorization.console.ts) and the token and revocation endpoints
 * (authorization.token.ts). What they share, down to the one way an approval becomes a code, is
 * in authorization.protocol.ts.
 */
export function createAuthorizationServer(deps: AuthorizationServerDeps) {
  const { db, repo, clients, tokens, accounts, audit } = deps;
  const protocol = createAuthorizationProtocol({ repo, publicBaseUrl: deps.publicBaseUrl });
  const discovery = createDiscovery({ clients, audit, protocol });
  const consent = createConsent({ db, repo, clients, accounts, audit, protocol });
  const consoleRequests = createConsoleRequests({ db, repo, accounts, audit, protocol, events: deps.events });
  const endpoint = createTokenEndpoint({ db, repo, tokens, accounts, audit, protocol });

  return {
    registerClient: discovery.registerClient,
    metadata: discovery.metadata,
    protectedResource: discovery.protectedResource,
    begin: consent.begin,
    reopen: consent.reopen,
    decide: consent.decide,
    sendToConsole: consoleRequests.sendToConsole,
    wait: consoleRequests.wait,
    listConsoleRequests: consoleRequests.listConsoleRequests,
    approveConsoleRequest: consoleRequests.approveConsoleRequest,
    denyConsoleRequest: consoleRequests.denyConsoleRequest,
    token: endpoint.token,
    revoke: endpoint.revoke,
  };
}

export type AuthorizationServer = ReturnType<typeof createAuthorizationServer>;
