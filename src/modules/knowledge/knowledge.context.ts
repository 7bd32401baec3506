import { hasScope } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.service.js';
import type { KnowledgeService } from './knowledge.service.js';

/** How many documents the gateway context names; the rest are a GET /brain/knowledge-base away. */
const RECENT_DOCUMENTS = 20;

/**
 * The knowledge base in the gateway context: how many documents there are and the most
 * recently changed ones by title, so that an agent knows what it can read without loading any
 * text. Two indexed queries, run in parallel; shown only to tokens holding `knowledge`.
 */
export function createKnowledgeContextSection(knowledge: Pick<KnowledgeService, 'countDocuments' | 'recent'>): ContextSection {
  return {
    name: 'knowledge',
    tables: ['kb_documents'],
    visibleTo: (principal) => hasScope(principal, 'knowledge'),
    async load(ownerId) {
      const [documentCount, recent] = await Promise.all([knowledge.countDocuments(ownerId), knowledge.recent(ownerId, RECENT_DOCUMENTS)]);
      return { documentCount, recent };
    },
  };
}
