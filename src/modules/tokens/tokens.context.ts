import { Type } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import type { ContextSection } from '../gateway/gateway.section.js';

const TokenContextSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.String(),
    scopes: Type.Array(Type.String()),
    memoryTags: Type.Optional(
      Type.Array(Type.String(), { description: 'Only for a token limited to memory tags: it sees and writes only entries carrying one of them' }),
    ),
  },
  { description: 'The calling token' },
);

/** The calling token itself, so that an agent knows what it holds without a second call. */
export function createTokenContextSection(): ContextSection<typeof TokenContextSchema> {
  return {
    name: 'token',
    schema: TokenContextSchema,
    always: true,
    tables: [],
    visibleTo: () => true,
    load: async (_ownerId, principal) => ({
      id: principal.tokenId,
      kind: principal.kind,
      scopes: SCOPE_NAMES.filter((s) => hasScope(principal, s)),
      ...(principal.memoryTags ? { memoryTags: [...principal.memoryTags] } : {}),
    }),
  };
}
