import { hasScope, type Principal } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.service.js';
import { mayReadProfile, mayReadSection, type IdentityService } from './identity.service.js';

/**
 * `identity` in the gateway context: the identity exactly as GET /identity would show it to
 * this token, so a token holding only `professional` sees only that section.
 */
export function createIdentityContextSection(identity: Pick<IdentityService, 'getIdentityFor'>): ContextSection {
  return {
    name: 'identity',
    // The default identity takes its name from the account.
    tables: ['identity', 'users'],
    visibleTo: (principal: Principal) =>
      mayReadProfile(principal) || mayReadSection(principal, 'professional') || mayReadSection(principal, 'availability'),
    load: (ownerId, principal) => identity.getIdentityFor(ownerId, principal),
  };
}

/** `preferences` in the gateway context, for tokens that may read them (`identity`). */
export function createPreferencesContextSection(identity: Pick<IdentityService, 'getPreferences'>): ContextSection {
  return {
    name: 'preferences',
    tables: ['preferences'],
    visibleTo: (principal: Principal) => hasScope(principal, 'identity'),
    load: (ownerId) => identity.getPreferences(ownerId),
  };
}
