import { Type } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { AccountsService } from './accounts.service.js';

const UserContextSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Optional(Type.String({ description: 'Only for tokens holding the `identity` scope' })),
  },
  { description: 'The owner of this Hearth' },
);

/** The owner: id and name for any token that reaches the gateway; the email only with `identity`. */
export function createUserContextSection(accounts: Pick<AccountsService, 'getUser'>): ContextSection<typeof UserContextSchema> {
  return {
    name: 'user',
    schema: UserContextSchema,
    tables: ['users'],
    visibleTo: () => true,
    async load(ownerId, principal) {
      const user = await accounts.getUser(ownerId);
      return { id: user.id, name: user.name, ...(hasScope(principal, 'identity') ? { email: user.email } : {}) };
    },
  };
}
