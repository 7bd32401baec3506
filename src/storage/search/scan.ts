import type { FullTextIndex, MatchMode } from './full-text.js';
import { DEFAULT_LENGTH_NORMALIZATION, weighedLengths } from './owner-index.js';
import { compareIds, termScore } from './ranker.js';
import type { IndexedHit } from './ranker.js';
import { porterStem } from './stemmer.js';
import { tokenize } from './tokenizer.js';

/**
 * Ranks an owner's rows read one by one, keeping only the query words' counts: the fallback for
 * an owner whose index would be too large to keep (index-cache.ts). It cuts, stems, weighs and
 * scores exactly as the index does (the owner's own document count, average length and
 * document frequencies; a query word matches every stem it prefixes; bm25 summed in query
 * order; ties to the lower id), so the index and the fallback answer the same hits in the same
 * order, on both engines (docs/decisions/search.md). Memory: one small array per matching row.
 */
export interface ScanRanking<Id extends string | number> {
  /** One row of the owner (the index's columns, its id, and the attributes `where` names). */
  add(row: Record<string, unknown>): void;
  /** The best `limit` rows; `undefined` when a query word is not a single token. */
  finish(): Array<IndexedHit<Id>> | undefined;
}

interface Candidate<Id> {
  id: Id;
  length: number;
  freqs: Float64Array;
}

export function createScanRanking<Id extends string | number>(
  index: FullTextIndex,
  terms: readonly string[],
  mode: MatchMode,
  limit: number,
  where: ReadonlyArray<readonly [string, string]>,
): ScanRanking<Id> {
  const stems = terms.map((term) => {
    const tokens = tokenize(term);
    return tokens.length === 1 ? porterStem(tokens[0]!) : undefined;
  });
  const expressible = stems.every((stem) => stem !== undefined);
  const documentFrequency = new Float64Array(terms.length);
  const candidates: Array<Candidate<Id>> = [];
  const stemOf = new Map<string, string>();
  const docFreqs = new Map<string, number>();
  let count = 0;
  let total = 0;
  return {
    add(row) {
      if (!expressible) return;
      docFreqs.clear();
      let length = 0;
      for (const column of index.columns) {
        const text = row[column.name];
        if (typeof text !== 'string' || text === '') continue;
        for (const token of tokenize(text)) {
          let stem = stemOf.get(token);
          if (stem === undefined) {
            stem = porterStem(token);
            if (stemOf.size < 100_000) stemOf.set(token, stem);
          }
          // Column weights are whole numbers, so these sums are exact in any order (as the index's).
          docFreqs.set(stem, (docFreqs.get(stem) ?? 0) + column.weight);
          length++;
        }
      }
      count++;
      total += length;
      let freqs: Float64Array | undefined;
      let matched = 0;
      for (const [stem, freq] of docFreqs) {
        for (let i = 0; i < stems.length; i++) {
          if (!stem.startsWith(stems[i]!)) continue;
          freqs ??= new Float64Array(stems.length);
          if (freqs[i] === 0) matched++;
          freqs[i] = freqs[i]! + freq;
        }
      }
      if (!freqs) return;
      for (let i = 0; i < stems.length; i++) if (freqs[i]! > 0) documentFrequency[i] = documentFrequency[i]! + 1;
      if (mode === 'all' && matched < stems.length) return;
      // Filters choose among the owner's rows; every row counts for the statistics, as in the index.
      for (const [name, value] of where) if (String(row[name] ?? '') !== value) return;
      candidates.push({ id: row.id as Id, length, freqs });
    },
    finish() {
      if (!expressible) return undefined;
      if (limit <= 0) return [];
      const avgLength = count === 0 ? 1 : total / count || 1;
      // The index's own weighing of lengths, so that a scanned owner gets the same doubles.
      const lengths = weighedLengths(
        Float64Array.from(candidates, (c) => c.length),
        avgLength,
        index.lengthNormalization ?? DEFAULT_LENGTH_NORMALIZATION,
      );
      const idf = Array.from(documentFrequency, (df) => {
        const value = Math.log((0.5 + count - df) / (0.5 + df));
        return value <= 0 ? 1e-6 : value;
      });
      const scored = candidates.map((c, k) => {
        let score = 0;
        for (let i = 0; i < stems.length; i++) {
          const f = c.freqs[i]!;
          if (f > 0) score += termScore(idf[i]!, f, lengths[k]!, avgLength);
        }
        return { id: c.id, rank: score };
      });
      scored.sort((a, b) => b.rank - a.rank || compareIds(a.id, b.id));
      return scored.slice(0, limit);
    },
  };
}
