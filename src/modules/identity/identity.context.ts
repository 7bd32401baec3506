import { Type } from '@sinclair/typebox';
import { hasScope, type Principal } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import { mayReadProfile, mayReadSection, type IdentityService } from './identity.service.js';

const IdentityContextSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: "The owner's identity, limited to the sections the token may read (`read`, `professional`, `availability`, `identity`)",
});
const PreferencesContextSchema = Type.Record(Type.String(), Type.Unknown(), { description: "The owner's preferences (scope `identity`)" });

/**
 * `identity` in the gateway context: the identity exactly as GET /identity would show it to
 * this token, so a token holding only `professional` sees only that section.
 */
export function createIdentityContextSection(identity: Pick<IdentityService, 'getIdentityFor'>): ContextSection<typeof IdentityContextSchema> {
  return {
    name: 'identity',
    schema: IdentityContextSchema,
    // The default identity takes its name from the account.
    tables: ['identity', 'users'],
    visibleTo: (principal: Principal) =>
      mayReadProfile(principal) || mayReadSection(principal, 'professional') || mayReadSection(principal, 'availability'),
    load: (ownerId, principal) => identity.getIdentityFor(ownerId, principal),
  };
}

/** `preferences` in the gateway context, for tokens that may read them (`identity`). */
export function createPreferencesContextSection(
  identity: Pick<IdentityService, 'getPreferences'>,
): ContextSection<typeof PreferencesContextSchema> {
  return {
    name: 'preferences',
    schema: PreferencesContextSchema,
    tables: ['preferences'],
    visibleTo: (principal: Principal) => hasScope(principal, 'identity'),
    load: (ownerId) => identity.getPreferences(ownerId),
  };
}
