import { Type, type Static } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import { keepWhileFits } from '../gateway/gateway.budget.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { KnowledgeService } from './knowledge.service.js';

/** How many documents the gateway context names; the rest are a GET /brain/knowledge-base away. */
const RECENT_DOCUMENTS = 20;
/** How many passages a task brings at most (a budget usually keeps fewer). */
const RELEVANT_PASSAGES = 10;

const RelevantSchema = Type.Object({
  id: Type.String({ description: 'The passage id once documents are cut into passages; until then the document id' }),
  title: Type.String({ description: "The document's title" }),
  text: Type.String({ description: 'The passage that matches the task (bounded)' }),
  score: Type.Number({ description: 'Higher is better; comparable within one answer' }),
  matched: Type.Optional(Type.Union([Type.Literal('words'), Type.Literal('meaning'), Type.Literal('both')])),
  document: Type.Optional(
    Type.Object(
      {
        id: Type.String(),
        title: Type.String(),
        headingPath: Type.Array(Type.String()),
        start: Type.Integer({ minimum: 0 }),
        end: Type.Integer({ minimum: 0 }),
      },
      { description: 'For a passage: its document (read it whole with GET /brain/knowledge-base/{id}) and where the passage lies in its text' },
    ),
  ),
});
type Relevant = Static<typeof RelevantSchema>;

const KnowledgeContextSchema = Type.Object(
  {
    documentCount: Type.Integer(),
    recent: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), updatedAt: Type.String({ format: 'date-time' }) })),
    relevant: Type.Optional(Type.Array(RelevantSchema, { description: 'Only with task: what of the knowledge base matches the task, best first' })),
  },
  { description: 'The knowledge base: how many documents, and the most recently changed; with task, the passages that match it (scope `knowledge`)' },
);
type KnowledgeContext = Static<typeof KnowledgeContextSchema>;

/**
 * What ranks the knowledge base for a task: the owner's best hits for `q`, best first. A search
 * provider's `search` (src/modules/search/search.provider.ts) has this shape; its hits carry more
 * fields than a context item keeps.
 */
export type KnowledgeTaskSearch = (ownerId: string, q: string, limit: number) => Promise<readonly Relevant[]>;

/** Cut to a token budget: the passages for the task first, then the recent titles, each whole. */
function fitKnowledge(value: KnowledgeContext, tokens: number): KnowledgeContext {
  type Item = { relevant: Relevant } | { recent: KnowledgeContext['recent'][number] };
  const items: Item[] = [...(value.relevant ?? []).map((relevant) => ({ relevant })), ...value.recent.map((recent) => ({ recent }))];
  return keepWhileFits(
    items,
    tokens,
    (kept) => ({
      documentCount: value.documentCount,
      recent: kept.flatMap((item) => ('recent' in item ? [item.recent] : [])),
      ...(value.relevant === undefined ? {} : { relevant: kept.flatMap((item) => ('relevant' in item ? [item.relevant] : [])) }),
    }),
    (item) => ('recent' in item ? item.recent : item.relevant),
  );
}

/**
 * The knowledge base in the gateway context: how many documents there are and the most
 * recently changed ones by title, so that an agent knows what it can read without loading any
 * text. Two indexed queries, run in parallel; shown only to tokens holding `knowledge`. With a
 * task, `search` adds the passages that match it: the knowledge search provider's `search`
 * (knowledge.search.ts), the ranking `GET /api/v1/search` answers with.
 */
export function createKnowledgeContextSection(
  knowledge: Pick<KnowledgeService, 'countDocuments' | 'recent'>,
  search: KnowledgeTaskSearch,
): ContextSection<typeof KnowledgeContextSchema> {
  return {
    name: 'knowledge',
    schema: KnowledgeContextSchema,
    tables: ['kb_documents', 'kb_passages'],
    visibleTo: (principal) => hasScope(principal, 'knowledge'),
    async load(ownerId, _principal, options) {
      const task = options?.task;
      const [documentCount, recent, hits] = await Promise.all([
        knowledge.countDocuments(ownerId),
        knowledge.recent(ownerId, RECENT_DOCUMENTS),
        task === undefined ? undefined : search(ownerId, task, RELEVANT_PASSAGES),
      ]);
      if (!hits) return { documentCount, recent };
      const relevant = hits.map(({ id, title, text, score, matched, document }) => ({
        id,
        title,
        text,
        score,
        ...(matched === undefined ? {} : { matched }),
        ...(document === undefined ? {} : { document }),
      }));
      return { documentCount, recent, relevant };
    },
    budget: { tier: 1, share: 1, fit: fitKnowledge },
  };
}
