/**
 * The context sections of the platform core. Later modules define theirs beside their own
 * code (persona, memory, services…) and add them in services.ts; the gateway stays unchanged.
 */
import { hasScope, SCOPE_NAMES, type Principal } from '../../http/access.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { DiscoveryService } from '../discovery/discovery.service.js';
import type { ContextSection } from './gateway.service.js';

/** The owner: id and name for any token that reaches the gateway; the email only with `identity`. */
export function userSection(accounts: Pick<AccountsService, 'getUser'>): ContextSection {
  return {
    name: 'user',
    tables: ['users'],
    visibleTo: () => true,
    async load(ownerId, principal) {
      const user = await accounts.getUser(ownerId);
      return { id: user.id, name: user.name, ...(hasScope(principal, 'identity') ? { email: user.email } : {}) };
    },
  };
}

/** The endpoints this token may call: the same list as GET /api/v1/tokens/me/capabilities. */
export function endpointsSection(discovery: Pick<DiscoveryService, 'endpointsFor'>): ContextSection {
  return {
    name: 'endpoints',
    tables: [],
    visibleTo: () => true,
    load: async (_ownerId, principal) => discovery.endpointsFor(principal),
  };
}

/** The calling token itself, so that an agent knows what it holds without a second call. */
export function tokenSection(): ContextSection {
  return {
    name: 'token',
    tables: [],
    visibleTo: () => true,
    load: async (_ownerId, principal: Principal) => ({
      id: principal.tokenId,
      kind: principal.kind,
      scopes: SCOPE_NAMES.filter((s) => hasScope(principal, s)),
    }),
  };
}
