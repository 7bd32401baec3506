import { Type } from '@sinclair/typebox';
import { hasScope, type Principal } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import { MemoryEntrySchema } from './memory.schemas.js';
import type { MemoryService } from './memory.service.js';

/**
 * The most entries the gateway context carries by default (GATEWAY_MEMORY_LIMIT). The
 * specification says all entries are in the context; a cap keeps one call, and an agent's
 * prompt, bounded, and `truncated` with `total` tells an agent to page through GET /memory for
 * the rest. An owner who wants every entry in the context raises the setting.
 */
export const MEMORY_CONTEXT_CAP = 100;

const MemoryContextSchema = Type.Object(
  {
    entries: Type.Array(MemoryEntrySchema),
    total: Type.Integer({ description: 'How many entries the owner has' }),
    truncated: Type.Boolean({ description: `True when only the newest entries are shown (GATEWAY_MEMORY_LIMIT, default ${MEMORY_CONTEXT_CAP})` }),
  },
  {
    description: `The current memory entries (neither superseded nor expired) with ids and timestamps, newest first, at most GATEWAY_MEMORY_LIMIT (default ${MEMORY_CONTEXT_CAP}) (scope \`memory\`)`,
  },
);

/** `memory` in the gateway context: the newest entries, for tokens holding `memory`. */
export function createMemoryContextSection(memory: Pick<MemoryService, 'recent'>, cap = MEMORY_CONTEXT_CAP): ContextSection<typeof MemoryContextSchema> {
  return {
    name: 'memory',
    schema: MemoryContextSchema,
    tables: ['memory_entries'],
    visibleTo: (principal: Principal) => hasScope(principal, 'memory'),
    load: (ownerId) => memory.recent(ownerId, cap),
  };
}
