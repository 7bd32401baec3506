/**
 * What a module hands search so that its items get vectors, the way a module adds a gateway
 * context section: memory and skills each declare a source (`memory.search.ts`,
 * `skills.search.ts`), the container passes the list in, and search imports no module's
 * repository. A source names its table and columns rather than offering a query, so that the
 * indexer can find its unembedded items by one anti-join in the database (nothing is written on
 * the module's own write path).
 *
 * The table must have `owner_id` and `updated_at` (an edit changes `updated_at`, which makes the
 * vector stale), and `key`, the item's id (text or integer; stored as text).
 */
export type SearchSourceKind = 'memory' | 'skill' | 'knowledge_passage';

export interface SearchSource {
  /** The kind recorded with each vector (`search_vectors.source`). */
  source: SearchSourceKind;
  /** The table holding the items. A fixed name from code, never from a request. */
  table: string;
  /** The item's id column. */
  key: string;
  /** The columns the embedded text is made of. */
  columns: readonly string[];
  /** The text to embed, from those columns of one row. */
  text(row: Readonly<Record<string, unknown>>): string;
}
