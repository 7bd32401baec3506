import { hasScope, type Principal } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.service.js';
import type { MemoryService } from './memory.service.js';

/**
 * The most entries the gateway context carries. The specification says all entries are in the
 * context; a cap keeps one call bounded, and `truncated` with `total` tells an agent to page
 * through GET /memory for the rest.
 */
export const MEMORY_CONTEXT_CAP = 100;

/** `memory` in the gateway context: the newest entries, for tokens holding `memory`. */
export function createMemoryContextSection(memory: Pick<MemoryService, 'recent'>): ContextSection {
  return {
    name: 'memory',
    tables: ['memory_entries'],
    visibleTo: (principal: Principal) => hasScope(principal, 'memory'),
    load: (ownerId) => memory.recent(ownerId, MEMORY_CONTEXT_CAP),
  };
}
