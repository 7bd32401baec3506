import { Type, type Static } from '@sinclair/typebox';
import { Data, Pattern } from '../../http/schemas.js';
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
    // A pair as an array of two: a tuple's `items` list is not a schema OpenAPI tools accept.
    marks: Type.Array(Type.Unsafe<[number, number]>(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 })), {
      description: 'Spans of text that matched words of the query, [start, end)',
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

/** A hit's `text` holds at most this many characters (and an ellipsis at each end cut). */
export const SEARCH_HIT_TEXT_MAX = 600;
/** A hit's `title` holds at most this many characters. */
export const SEARCH_HIT_TITLE_MAX = 120;

/** Hits answered at most by one search. */
export const SEARCH_LIMIT_MAX = 50;

/** `types=`: one or more of SEARCH_TYPES, separated by commas. */
const TYPES_PATTERN = `^(${SEARCH_TYPES.join('|')})(,(${SEARCH_TYPES.join('|')}))*$`;

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 500,
    ...Pattern('\\S', 'q must hold a word: a question or words in plain language'),
    description:
      'What to find, in plain language (a question, a sentence or words), up to 500 characters: items sharing any of its words or close to it in meaning, best first. Common English words (the, of, my…) are left out unless q has no other',
  }),
  types: Type.Optional(
    Type.String({
      maxLength: 100,
      ...Pattern(TYPES_PATTERN, `types is a comma-separated list of ${SEARCH_TYPES.join(', ')} (e.g. memory,skills)`),
      description:
        "Which kinds of item to search, comma-separated: memory, knowledge, skills. Without it, every kind this token's scopes may read (memory, knowledge, skills scopes); naming a kind the token may not read answers 403",
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT_MAX, default: 10, description: `Hits answered at most, 1 to ${SEARCH_LIMIT_MAX} (default 10)` })),
});
export type SearchQueryInput = Static<typeof SearchQuery>;

export const SearchResponse = Type.Object(
  {
    data: Type.Array(SearchHitSchema, { description: 'The best hits of every kind searched, best first' }),
    types: Type.Array(SearchTypeSchema, { description: 'The kinds searched (those asked for, or every kind this token may read)' }),
  },
  { title: 'SearchResults' },
);
export type SearchResults = Static<typeof SearchResponse>;

export const SearchStatusResponse = Data(SearchStatusSchema);
