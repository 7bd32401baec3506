import type { Principal } from '../../http/access.js';
import type { SearchHit, SearchType } from './search.schemas.js';

/**
 * A provider's hit, with how many of the query's words (its distinct stems, queryStems in
 * marks.ts) the hit's title and text hold: what the one search weighs kinds by (mergeHits). The
 * provider counts them as it marks the hit, so that the merge need not read every hit again.
 */
export interface ProvidedHit {
  hit: SearchHit;
  wordsHeld: number;
}

/**
 * What a module hands the one search for agents (`GET /api/v1/search`), the way it adds a gateway
 * context section: memory, knowledge and skills each declare a provider, the container passes the
 * list in, and search imports no module's service.
 */
export interface SearchProvider {
  type: SearchType;
  /** Whether this token may search this type at all (its scope); hidden types are not searched. */
  visibleTo(principal: Principal): boolean;
  /**
   * The owner's best hits for `q`, best first, at most `limit`, ranked by words and meaning;
   * `principal` is the caller, for a provider whose items a token may see only some of (memory
   * limited to tags).
   */
  search(ownerId: string, q: string, limit: number, principal?: Principal): Promise<ProvidedHit[]>;
}
