import { OwnerVectors, type VectorCache } from '../../storage/search/vectors.js';
import type { EmbeddingsService } from '../embeddings/embeddings.service.js';
import type { SearchRepo } from './search.repo.js';
import type { SearchSource, SearchSourceKind } from './search.source.js';

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
  /** How many of the words' best hits fusion wants to see; 0 when it only takes the words' best `limit`. */
  readonly candidates: number;
  rank(ownerId: string, source: SearchSourceKind, q: string, lexical: readonly LexicalHit[], limit: number): Promise<RankedItem[]>;
  /**
   * The owner's `k` items of `source` nearest in meaning to `text`, best first, each with its
   * cosine; undefined when meaning cannot tell (no embedder, no vector of the owner's yet, or
   * the text's vector not given in time). Absent: never.
   */
  nearest?(ownerId: string, source: SearchSourceKind, text: string, k: number): Promise<Array<{ id: string; score: number }> | undefined>;
}

/** Words only: the ranking as the module found it. What search uses with the embedder off. */
export const wordsOnlyFusion: Fusion = {
  candidates: 50,
  rank: async (_ownerId, _source, _q, lexical, limit) => lexical.slice(0, limit).map((hit) => ({ id: hit.id, score: hit.score, matched: 'words' })),
};

/**
 * A module's search through fusion, in one call: `words(n)` answers the module's best `n` hits by
 * words (bm25, best first), `load(ids)` its items of those ids (any order; ids it no longer has,
 * deleted meanwhile, are left out). Answers the items in the fused order with their score and
 * how each matched. Memory uses it; skills and knowledge passages can, with their own source.
 */
export async function searchFused<T extends { id: string }>(
  fusion: Fusion,
  query: { ownerId: string; source: SearchSourceKind; q: string; limit: number },
  words: (candidates: number) => Promise<LexicalHit[]>,
  load: (ids: string[]) => Promise<T[]>,
): Promise<Array<{ item: T; score: number; matched: MatchedBy }>> {
  const lexical = await words(Math.max(query.limit, fusion.candidates));
  const ranked = await fusion.rank(query.ownerId, query.source, query.q, lexical, query.limit);
  if (ranked.length === 0) return [];
  const items = new Map((await load(ranked.map((item) => item.id))).map((item) => [item.id, item]));
  return ranked.flatMap(({ id, score, matched }) => {
    const item = items.get(id);
    return item ? [{ item, score, matched }] : [];
  });
}

/**
 * How the two rankings are combined (docs/decisions/search.md, "Fusion", has the measurements
 * that chose the defaults).
 * - `rrf`: weighted reciprocal rank, `words / (k + word rank) + meaning / (k + meaning rank)`;
 *   ranks are 1-based, an item missing from a ranking gets nothing from it.
 * - `convex`: `words × (bm25 scaled, see saturation and floor) + meaning × cosine`, each item's
 *   cosine exact. The default: `0.5 × bm25 / max(best bm25, 10) + cosine`.
 */
export interface FusionWeights {
  method: 'rrf' | 'convex';
  /** The reciprocal-rank constant (rrf). */
  k: number;
  words: number;
  meaning: number;
  /**
   * Whether an item the words did not find may enter the answer (by meaning alone). Without it,
   * fusion only re-orders the words' candidates.
   */
  meaningOnly: boolean;
  /**
   * convex: with 0, the words' score is bm25 over the answer's best bm25 (a weak best match
   * counts 1); above 0, it is `bm25 / (bm25 + saturation)`, so a strong match counts more than
   * a weak one whatever else matched.
   */
  saturation: number;
  /**
   * convex, with `saturation` 0: the words' score is bm25 over the larger of the answer's best
   * bm25 and this floor, so the best match counts 1 only when it is a strong one.
   */
  floor: number;
  /**
   * The least cosine an item found by meaning alone needs to enter the answer: below it, the
   * nearest vectors are only the least unrelated of the owner's items, not a match. Items the
   * words found are never dropped by it. -1 lets every nearest vector in.
   */
  meaningMin: number;
  /**
   * An item found by meaning alone also needs a cosine within this much of the query's best
   * cosine (the nearest vector's): a model-independent rule that keeps the far tail out when one
   * item clearly matches. 2 (or more) turns it off.
   */
  meaningMargin: number;
}

export interface FusionSettings extends FusionWeights {
  /** The words' best hits fusion re-ranks. */
  candidates: number;
  /** The nearest vectors fusion adds to them. */
  nearest: number;
  /** The longest a search waits for its query's vector before answering by words only. */
  queryWaitMs: number;
  /** Query vectors kept (an agent repeating a question does not embed it again). */
  queryCacheEntries: number;
}

/**
 * Chosen on bench/recall and LoCoMo (docs/decisions/search.md, "Fusion"): the one setting measured
 * at or above words alone on every score of both, exact questions and paraphrases.
 */
export const DEFAULT_FUSION_SETTINGS: FusionSettings = {
  method: 'convex',
  k: 60,
  words: 0.5,
  meaning: 1,
  meaningOnly: true,
  saturation: 0,
  floor: 10,
  meaningMin: -1,
  meaningMargin: 2,
  candidates: 50,
  nearest: 50,
  queryWaitMs: 1_000,
  queryCacheEntries: 512,
};

/**
 * The floor for items found by meaning alone that an embedder gets unless the settings say
 * otherwise (SEARCH_MEANING_MIN, SEARCH_MEANING_MARGIN). Cosines are the model's own: the
 * built-in encoder's were measured on bench/recall (`npx tsx bench/recall.floor.ts`,
 * docs/decisions/search.md, "A floor for meaning") as the highest floor that changes no score;
 * another model's are unknown here, so it has none until the deployment sets one.
 */
export function meaningFloorFor(kind: 'builtin' | 'openai' | 'off'): Pick<FusionWeights, 'meaningMin' | 'meaningMargin'> {
  return kind === 'builtin' ? { meaningMin: 0.25, meaningMargin: 0.2 } : { meaningMin: -1, meaningMargin: 2 };
}

/** The meaning side of one query: the nearest items by cosine, and the exact cosine of every candidate. */
export interface DenseSide {
  /** The nearest items, best first (their cosines in `cosine`). */
  nearest: readonly string[];
  /** Cosine of the query with each item of `nearest` and each words' candidate holding a vector. */
  cosine: ReadonlyMap<string, number>;
}

/**
 * The fused order of the words' hits and the meaning side: the whole of fusion's ranking, a
 * pure function, so the benches measure exactly what the server answers.
 */
export function fuseRankings(lexical: readonly LexicalHit[], dense: DenseSide, weights: FusionWeights, limit: number): RankedItem[] {
  const wordRank = new Map<string, number>();
  lexical.forEach((hit, i) => {
    if (!wordRank.has(hit.id)) wordRank.set(hit.id, i + 1);
  });
  const nearest = new Set(dense.nearest);
  const ids = [...wordRank.keys()];
  if (weights.meaningOnly) {
    const best = dense.nearest.length > 0 ? (dense.cosine.get(dense.nearest[0]!) ?? -1) : -1;
    const least = Math.max(weights.meaningMin, best - weights.meaningMargin);
    for (const id of dense.nearest) if (!wordRank.has(id) && (dense.cosine.get(id) ?? -1) >= least) ids.push(id);
  }

  // Meaning ranks every item considered by its cosine (items without a vector come last, unranked).
  const byCosine = ids.filter((id) => dense.cosine.has(id)).sort((a, b) => dense.cosine.get(b)! - dense.cosine.get(a)! || (a < b ? -1 : 1));
  const meaningRank = new Map(byCosine.map((id, i) => [id, i + 1]));
  const bestWords = lexical.length > 0 ? Math.max(...lexical.map((hit) => hit.score)) : 0;
  const bm25 = new Map<string, number>();
  for (const hit of lexical) if (!bm25.has(hit.id)) bm25.set(hit.id, hit.score);

  const scored = ids.map((id) => {
    let score: number;
    if (weights.method === 'rrf') {
      const w = wordRank.get(id);
      const m = meaningRank.get(id);
      score = (w ? weights.words / (weights.k + w) : 0) + (m ? weights.meaning / (weights.k + m) : 0);
    } else {
      const b = bm25.get(id) ?? 0;
      const scale = Math.max(bestWords, weights.floor);
      const words = weights.saturation > 0 ? b / (b + weights.saturation) : scale > 0 ? b / scale : 0;
      score = weights.words * words + weights.meaning * (dense.cosine.get(id) ?? 0);
    }
    const matched: MatchedBy = wordRank.has(id) ? (nearest.has(id) ? 'both' : 'words') : 'meaning';
    return { id, score, matched, order: wordRank.get(id) ?? Number.MAX_SAFE_INTEGER };
  });
  // Ties keep the words' order, then the id: the same answer for the same query and data.
  scored.sort((a, b) => b.score - a.score || a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, limit).map(({ id, score, matched }) => ({ id, score, matched }));
}

/** The write counters, read to know when an owner's vectors or items changed (here or on another node). */
interface Writes {
  stamp(tables: readonly string[]): number | undefined;
  readonly maxAgeMs: number | undefined;
}

/** When an owner's index of one source was read, to know when to read it again. */
interface Loaded {
  stamp: number | undefined;
  at: number;
}

export interface FusionDeps {
  embeddings: Pick<EmbeddingsService, 'embed' | 'describe'>;
  repo: Pick<SearchRepo, 'loadCurrent'>;
  /** The sources whose vectors can rank (the indexer's list). */
  sources: readonly SearchSource[];
  /** The per-owner vector indexes, bounded (createVectorCache). */
  cache: VectorCache;
  /** The write tracker: a write to the vectors or to a source's table makes its loaded index stale. */
  writes?: Writes;
  settings?: Partial<FusionSettings>;
  log?: { warn(message: string): void };
}

export interface FusionService extends Fusion {
  /** Forgets the loaded vectors of these owners (the indexer stored new ones). */
  invalidate(ownerIds: Iterable<string>): void;
  /** The settings in force. */
  readonly settings: Readonly<FusionSettings>;
}

/**
 * Fusion over the stored vectors: the query is embedded in the embedder's urgent lane (waiting
 * at most `queryWaitMs`, then words only; a late vector still warms the query cache), the
 * owner's vectors of the current model and that source are read into the bounded cache (again
 * whenever the write counters of the vectors or the source's table moved, after `maxAgeMs` where
 * other nodes write, or when the indexer says it stored some), and the nearest ones are fused
 * with the words' candidates by `fuseRankings`.
 */
/** Owners remembered as having no vector (a few dozen bytes each). */
const MAX_EMPTY_OWNERS = 10_000;

export function createFusion(deps: FusionDeps): FusionService {
  const settings: FusionSettings = { ...DEFAULT_FUSION_SETTINGS, ...deps.settings };
  const sources = new Map(deps.sources.map((s) => [s.source, s]));
  const loaded = new WeakMap<OwnerVectors, Loaded>();
  const loading = new Map<string, Promise<OwnerVectors | undefined>>();
  /** Owners (per source and model) found with no vector, and when: their searches embed no query until something is stored. */
  const empty = new Map<string, Loaded>();
  const queries = new Map<string, Float32Array>();
  /** Queries being embedded now, by model and text. */
  const inFlight = new Map<string, Promise<Float32Array | undefined>>();

  // The cache keys an index by owner and model; the owner part here also names the source, so
  // one owner's memory and skills are separate indexes, and `drop(owner)` drops every source.
  const cacheOwner = (ownerId: string, source: SearchSourceKind) => `${ownerId}\u0000${source}`;

  function fresh(at: Loaded | undefined, stamp: number | undefined): boolean {
    if (!at || stamp === undefined || at.stamp !== stamp) return false;
    const maxAge = deps.writes?.maxAgeMs;
    return maxAge === undefined || Date.now() - at.at < maxAge;
  }

  async function vectorsOf(ownerId: string, src: SearchSource, model: string): Promise<OwnerVectors | undefined> {
    const owner = cacheOwner(ownerId, src.source);
    const tables = [src.table, 'search_vectors'];
    const stamp = deps.writes?.stamp(tables);
    const held = deps.cache.get(owner, model);
    if (held && fresh(loaded.get(held), stamp)) return held;
    const key = `${owner}\u0000${model}`;
    if (fresh(empty.get(key), stamp)) return undefined;
    const running = loading.get(key);
    if (running) return running;
    const load = (async () => {
      // Taken before reading: a write during the read changes the stamp, and the next search reads again.
      const before = deps.writes?.stamp(tables);
      const at = Date.now();
      const rows = await deps.repo.loadCurrent(src, ownerId, model);
      empty.delete(key);
      if (rows.length === 0) {
        deps.cache.drop(owner);
        empty.set(key, { stamp: before, at });
        if (empty.size > MAX_EMPTY_OWNERS) empty.delete(empty.keys().next().value!);
        return undefined;
      }
      const index = new OwnerVectors(model, rows[0]!.codes.length, rows.length);
      for (const row of rows) if (row.codes.length === index.dimensions) index.put(row.itemId, row.codes, row.scale);
      loaded.set(index, { stamp: before, at });
      deps.cache.set(owner, index);
      return index;
    })().finally(() => loading.delete(key));
    loading.set(key, load);
    return load;
  }

  /** The query's vector, or undefined when the embedder cannot give it within the wait. */
  async function queryVector(q: string, model: string): Promise<Float32Array | undefined> {
    const key = `${model}\u0000${q}`;
    const known = queries.get(key);
    if (known) {
      queries.delete(key);
      queries.set(key, known);
      return known;
    }
    // One request searches several sources at once with the same query: it is embedded once.
    let embedding = inFlight.get(key);
    if (!embedding) {
      embedding = deps.embeddings
        .embed([q], { urgent: true })
        .then(
          ([vector]) => {
            if (!vector) return undefined;
            queries.set(key, vector);
            while (queries.size > settings.queryCacheEntries) queries.delete(queries.keys().next().value!);
            return vector;
          },
          // Unavailable or refused: words only. The embedder's state and lastError say why.
          () => undefined,
        )
        .finally(() => inFlight.delete(key));
      inFlight.set(key, embedding);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), settings.queryWaitMs);
      timer.unref();
    });
    try {
      return await Promise.race([embedding, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  const wordsOnly = (lexical: readonly LexicalHit[], limit: number): RankedItem[] => lexical.slice(0, limit).map((hit) => ({ id: hit.id, score: hit.score, matched: 'words' }));

  return {
    // With the embedder off there is nothing to fuse: a module's top `limit` by words is the
    // answer, and ranking 50 to keep 10 cost the words-only search a good part of its time.
    get candidates() {
      return deps.embeddings.describe().kind === 'off' ? 0 : settings.candidates;
    },
    settings,

    async rank(ownerId, source, q, lexical, limit) {
      const src = sources.get(source);
      const embedder = deps.embeddings.describe();
      if (!src || embedder.kind === 'off' || q.trim() === '') return wordsOnly(lexical, limit);
      const model = embedder.model;
      try {
        // The owner's vectors first: an owner with none (nothing indexed yet) costs no query embedding.
        const index = await vectorsOf(ownerId, src, model);
        if (!index) return wordsOnly(lexical, limit);
        const query = await queryVector(q, model);
        if (!query || query.length !== index.dimensions) return wordsOnly(lexical, limit);
        const nearest = index.search(query, Math.max(settings.nearest, limit));
        const cosine = new Map(nearest.map((hit) => [hit.id, hit.score]));
        const unscored = lexical.filter((hit) => !cosine.has(hit.id)).map((hit) => hit.id);
        for (const hit of index.search(query, unscored.length, unscored)) cosine.set(hit.id, hit.score);
        return fuseRankings(lexical, { nearest: nearest.map((hit) => hit.id), cosine }, settings, limit);
      } catch (error) {
        // Reading the vectors failed (the database is busy or gone): the words still answer.
        deps.log?.warn(`Search by meaning skipped for one query, words only: ${error instanceof Error ? error.message : String(error)}`);
        return wordsOnly(lexical, limit);
      }
    },

    async nearest(ownerId, source, text, k) {
      const src = sources.get(source);
      const embedder = deps.embeddings.describe();
      if (!src || embedder.kind === 'off' || text.trim() === '') return undefined;
      try {
        // The owner's vectors first: an owner with none costs no embedding of the text.
        const index = await vectorsOf(ownerId, src, embedder.model);
        if (!index) return undefined;
        const query = await queryVector(text, embedder.model);
        if (!query || query.length !== index.dimensions) return undefined;
        return index.search(query, k);
      } catch (error) {
        deps.log?.warn(`Comparison by meaning skipped for one text: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    },

    invalidate(ownerIds) {
      // A load under way keeps its stamp from before the vectors were stored, so it is read again next time.
      for (const ownerId of ownerIds) {
        deps.cache.drop(ownerId);
        for (const key of empty.keys()) if (key.startsWith(`${ownerId}\u0000`)) empty.delete(key);
      }
    },
  };
}
