import { Type } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { KnowledgeService } from './knowledge.service.js';

/** How many documents the gateway context names; the rest are a GET /brain/knowledge-base away. */
const RECENT_DOCUMENTS = 20;

const KnowledgeContextSchema = Type.Object(
  {
    documentCount: Type.Integer(),
    recent: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), updatedAt: Type.String({ format: 'date-time' }) })),
  },
  { description: 'The knowledge base: how many documents, and the most recently changed (scope `knowledge`)' },
);

/**
 * The knowledge base in the gateway context: how many documents there are and the most
 * recently changed ones by title, so that an agent knows what it can read without loading any
 * text. Two indexed queries, run in parallel; shown only to tokens holding `knowledge`.
 */
export function createKnowledgeContextSection(knowledge: Pick<KnowledgeService, 'countDocuments' | 'recent'>): ContextSection<typeof KnowledgeContextSchema> {
  return {
    name: 'knowledge',
    schema: KnowledgeContextSchema,
    tables: ['kb_documents'],
    visibleTo: (principal) => hasScope(principal, 'knowledge'),
    async load(ownerId) {
      const [documentCount, recent] = await Promise.all([knowledge.countDocuments(ownerId), knowledge.recent(ownerId, RECENT_DOCUMENTS)]);
      return { documentCount, recent };
    },
  };
}
