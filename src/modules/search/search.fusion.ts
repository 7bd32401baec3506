import type { SearchSourceKind } from './search.source.js';

/** How a hit was found: by its words, by its meaning, or by both. */
export type MatchedBy = 'words' | 'meaning' | 'both';

/** One hit of the words' ranking handed to fusion: the item's id and its bm25 score (higher is better). */
export interface LexicalHit {
  id: string;
  score: number;
}

/** One item of a fused ranking, best first. */
export interface RankedItem {
  id: string;
  /** Higher is better; comparable only within one answer. */
  score: number;
  matched: MatchedBy;
}

/**
 * Ranks an owner's items of one source for a query by words and meaning together. A module ranks
 * by words itself (its own index, `candidates` hits, best first) and hands them here; fusion adds
 * the nearest vectors of the embedder's current model and answers the fused order.
 *
 * It never fails because of the embedder: off, failing, slow or not yet done indexing, it answers
 * the words' ranking (every hit `matched: 'words'`), so a search never fails and never answers
 * worse than words alone because of it.
 */
export interface Fusion {
  /** How many of the words' best hits fusion wants to see. */
  readonly candidates: number;
  rank(ownerId: string, source: SearchSourceKind, q: string, lexical: readonly LexicalHit[], limit: number): Promise<RankedItem[]>;
}

/** Words only: the ranking as the module found it. What search uses with the embedder off. */
export const wordsOnlyFusion: Fusion = {
  candidates: 50,
  rank: async (_ownerId, _source, _q, lexical, limit) => lexical.slice(0, limit).map((hit) => ({ id: hit.id, score: hit.score, matched: 'words' })),
};
