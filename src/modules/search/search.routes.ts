import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, hasScope, principalOf, type Principal, type Scope } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { queryStems } from '../../storage/search/marks.js';
import type { EmbeddingsService } from '../embeddings/embeddings.service.js';
import type { SearchIndexer } from './search.indexer.js';
import type { ProvidedHit, SearchProvider } from './search.provider.js';
import { SEARCH_TYPES, SearchQuery, SearchResponse, SearchStatusResponse, type SearchHit, type SearchStatus, type SearchType } from './search.schemas.js';

/** The scope each kind of item is read under: the scope of its own routes. */
export const SCOPE_OF_TYPE: Readonly<Record<SearchType, Scope>> = { memory: 'memory', knowledge: 'knowledge', skills: 'skills' };

/**
 * The one best-first list of several kinds' hits. Scores of different kinds are not comparable
 * (bm25 over each kind's own statistics, fused or not), so each kind keeps its own order, and
 * the lists are merged by a key that is comparable: the hit's score relative to its kind's best
 * in this answer (0 to 1), weighed by the share of the query's words the hit holds (its title
 * and text). A memory entry holding every word of the question goes before a skill holding one
 * of them, although each is the best of its kind; a hit found by meaning alone (no word) counts
 * half its relative score. Ties go to the kinds in the order they were asked. Each hit comes with
 * the number of the query's `stems` (queryStems) it holds, counted by its provider as it marked
 * the hit. One kind alone keeps its own order.
 */
export function mergeHits(lists: ReadonlyArray<readonly ProvidedHit[]>, stems: number, limit: number): SearchHit[] {
  const filled = lists.filter((hits) => hits.length > 0);
  if (filled.length <= 1) return (filled[0] ?? []).slice(0, limit).map((provided) => provided.hit);
  const keyed = filled.map((hits) => {
    const best = hits.reduce((max, { hit }) => Math.max(max, hit.score), 0);
    return hits.map(({ hit, wordsHeld }) => {
      const relative = best > 0 ? Math.max(0, hit.score) / best : 1;
      const share = stems === 0 ? 0 : wordsHeld / stems;
      return { hit, key: (relative * (1 + share)) / 2 };
    });
  });
  const next = keyed.map(() => 0);
  const merged: SearchHit[] = [];
  while (merged.length < limit) {
    let pick = -1;
    for (let i = 0; i < keyed.length; i++) {
      const head = keyed[i]![next[i]!];
      if (head && (pick < 0 || head.key > keyed[pick]![next[pick]!]!.key)) pick = i;
    }
    if (pick < 0) break;
    merged.push(keyed[pick]![next[pick]!]!.hit);
    next[pick]!++;
  }
  return merged;
}

/** The kinds to search: those asked for (each the token must be able to read), or every kind it can read. */
function typesFor(principal: Principal, asked: string | undefined, providers: ReadonlyMap<SearchType, SearchProvider>): SearchType[] {
  const readable = (type: SearchType) => providers.get(type)?.visibleTo(principal) ?? hasScope(principal, SCOPE_OF_TYPE[type]);
  if (asked === undefined) return SEARCH_TYPES.filter(readable);
  const types = [...new Set(asked.split(',') as SearchType[])];
  const refused = types.filter((type) => !readable(type));
  if (refused.length > 0) {
    const scopes = refused.map((type) => SCOPE_OF_TYPE[type]);
    throw new AppError(
      'INSUFFICIENT_SCOPE',
      `This token may not search ${refused.join(' or ')}: that needs the scope ${scopes.join(' and ')}. Leave ${refused.join(', ')} out of types (or omit types to search every kind this token may read), or ask the owner for a token with the scope`,
      { details: { requiredScopes: scopes } },
    );
  }
  return types;
}

/**
 * One search for agents over memory, knowledge passages and skills (`GET /api/v1/search`), and
 * how far the owner's items are indexed by meaning (`GET /api/v1/search/status`). The modules
 * hand their providers in (the container passes the list); this module imports none of them.
 */
export function searchRoutes(deps: {
  providers: readonly SearchProvider[];
  embeddings: Pick<EmbeddingsService, 'describe'>;
  indexer: Pick<SearchIndexer, 'status'>;
}): FastifyPluginAsyncTypebox {
  const providers = new Map(deps.providers.map((provider) => [provider.type, provider]));
  return async (app) => {
    const tags = ['search'];

    app.get(
      '/api/v1/search',
      {
        // Any one of the kinds' scopes lets a token in; each kind is then searched only under its own.
        config: { access: access.scope(...SEARCH_TYPES.map((type) => SCOPE_OF_TYPE[type])) },
        schema: {
          operationId: 'search',
          summary: "One search over the owner's memory, knowledge passages and skills, by words and meaning, best first",
          description:
            'Each kind is searched under its own scope (memory, knowledge, skills): without `types`, every kind the token may read; a kind named in `types` that the token may not read answers 403. Each hit carries its id, kind, title, the matching text (bounded, the query\'s words marked in `marks`), a score comparable within the answer, and whether it matched by words, meaning or both.',
          tags,
          querystring: SearchQuery,
          response: { 200: SearchResponse },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const { q, types: asked, limit = 10 } = request.query;
        const types = typesFor(principal, asked, providers);
        const lists = await Promise.all(types.map((type) => providers.get(type)?.search(principal.ownerId, q, limit, principal) ?? Promise.resolve([])));
        return { data: mergeHits(lists, queryStems(q).length, limit), types };
      },
    );

    app.get(
      '/api/v1/search/status',
      {
        config: { access: access.owner() },
        schema: {
          operationId: 'getSearchStatus',
          summary: "Which embedder makes the search vectors, and how many of the owner's items are indexed by meaning or still pending",
          tags,
          response: { 200: SearchStatusResponse },
        },
      },
      async (request) => {
        const status = await deps.indexer.status(principalOf(request).ownerId);
        const { kind, model, dimensions, state, lastError } = deps.embeddings.describe();
        const answer: SearchStatus = {
          embedder: { kind, model, dimensions, state },
          pending: status.pending,
          indexed: status.indexed,
          lastError: status.lastError ?? lastError,
        };
        return { data: answer };
      },
    );
  };
}
