import { Type, type Static } from '@sinclair/typebox';
import { EmbedderSchema } from '../embeddings/embeddings.schemas.js';

/** The kinds of item one search spans, as `types=` names them. */
export const SEARCH_TYPES = ['memory', 'knowledge', 'skills'] as const;
export const SearchTypeSchema = Type.Union(SEARCH_TYPES.map((t) => Type.Literal(t)));
export type SearchType = Static<typeof SearchTypeSchema>;

export const MatchedBySchema = Type.Union([Type.Literal('words'), Type.Literal('meaning'), Type.Literal('both')], {
  description: 'Why it matched: the query shares words with it, is close in meaning, or both',
});

/**
 * One hit of the search for agents: enough for a model to use without a second call.
 * `text` is the matching text, bounded; `marks` are the spans of `text` that matched the
 * query's words ([start, end) in UTF-16 code units), for a client to highlight.
 */
export const SearchHitSchema = Type.Object(
  {
    id: Type.String({ description: 'The memory entry, passage, or skill id' }),
    type: SearchTypeSchema,
    title: Type.String({ description: "A memory entry's first line, a document's title, or a skill's name" }),
    text: Type.String({ description: 'The matching text: the entry, the passage, or the skill description (bounded)' }),
    score: Type.Number({ description: 'Higher is better; comparable within one answer' }),
    matched: MatchedBySchema,
    // A pair as an array of two: OpenAPI 3.0 has no tuples (`items` must be one schema).
    marks: Type.Array(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 }), {
      description: 'Spans of text that matched words of the query, each [start, end)',
    }),
    document: Type.Optional(
      Type.Object(
        {
          id: Type.String(),
          title: Type.String(),
          headingPath: Type.Array(Type.String(), { description: 'The headings the passage sits under, outermost first' }),
          start: Type.Integer({ minimum: 0, description: "The passage's offset in the document's text (UTF-16 code units)" }),
          end: Type.Integer({ minimum: 0, description: "The end of the passage in the document's text, exclusive" }),
        },
        { description: 'For a knowledge passage: its document and where the passage lies in its text' },
      ),
    ),
    slug: Type.Optional(Type.String({ description: "For a skill: its slug (GET /api/v1/skills/{slug})" })),
  },
  { title: 'SearchHit' },
);
export type SearchHit = Static<typeof SearchHitSchema>;

/** `GET /api/v1/search/status`: which embedder makes the vectors, and how far the owner's items are indexed. */
export const SearchStatusSchema = Type.Object(
  {
    embedder: EmbedderSchema,
    pending: Type.Integer({ minimum: 0, description: "The owner's items still lacking a vector of the current model (re-embedding after a model change counts here)" }),
    indexed: Type.Integer({ minimum: 0, description: "The owner's items holding a vector of the current model" }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last failure of the embedder or the indexer; search uses words only meanwhile' }),
  },
  { title: 'SearchStatus' },
);
export type SearchStatus = Static<typeof SearchStatusSchema>;
