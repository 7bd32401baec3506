import { Type } from '@sinclair/typebox';
import { hasScope, type Principal } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { OAuthService } from './oauth.service.js';

const ServicesContextSchema = Type.Array(
  Type.Object({
    provider: Type.String(),
    account: Type.Union([Type.String(), Type.Null()]),
    status: Type.String({ description: '`connected`, or `needs_reauth` when the owner must connect again' }),
    scopes: Type.Array(Type.String()),
  }),
  { description: 'Accounts connected through OAuth (scope `services:read`); never their tokens' },
);

/**
 * `services` in the gateway context: the accounts the owner connected through OAuth, for
 * tokens holding `services:read`. Tokens never appear, only which
 * provider, which account, whether it works and what it may do.
 */
export function createServicesContextSection(oauth: Pick<OAuthService, 'connections'>): ContextSection<typeof ServicesContextSchema> {
  return {
    name: 'services',
    schema: ServicesContextSchema,
    tables: ['oauth_connections'],
    visibleTo: (principal: Principal) => hasScope(principal, 'services:read'),
    load: async (ownerId) =>
      (await oauth.connections(ownerId)).map(({ provider, account, status, scopes }) => ({ provider, account, status, scopes })),
  };
}
