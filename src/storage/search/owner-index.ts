import { porterStem } from './stemmer.js';
import type { FullTextIndex } from './full-text.js';
import { tokenize } from './tokenizer.js';

/**
 * One owner's inverted index over the columns a full-text index declares, built from the
 * owner's rows (index-cache.ts reads them; ranker.ts ranks over it).
 */

/** bm25's `b` where an index declares none: FTS5's, so that such rankings are SQLite's own. */
export const DEFAULT_LENGTH_NORMALIZATION = 0.75;

/**
 * Each document's length as the ranking weighs it, for an index whose `b` is not the default's.
 * termScore (ranker.ts) normalizes by `1 - B + B * length / avgLength` with B the default; a
 * length moved to `avgLength * (1 - b / B) + (b / B) * length` makes that `1 - b + b * length /
 * avgLength`, the table's own `b` (at most the default's), and keeps the average (so `avgLength` stays the average of
 * the token counts). Monotonic in the length, so documents keep their order by it (slots go
 * from the shortest), and the least a length can be is still above 0 (a word's bound at length
 * 0 stays a bound). Answers the lengths themselves for the default `b`: those rankings stay the
 * same doubles as FTS5's bm25.
 */
export function weighedLengths(lengths: Float64Array, avgLength: number, b: number): Float64Array {
  if (b === DEFAULT_LENGTH_NORMALIZATION) return lengths;
  // Above the default, short documents' lengths would go below 0, and a word's bound at length 0
  // (what pruning relies on) would no longer be the most it gives.
  if (!(b >= 0 && b < DEFAULT_LENGTH_NORMALIZATION)) throw new Error(`a full-text index's lengthNormalization must be from 0 to ${DEFAULT_LENGTH_NORMALIZATION}, not ${b}`);
  const share = b / DEFAULT_LENGTH_NORMALIZATION;
  const base = avgLength * (1 - share);
  for (let i = 0; i < lengths.length; i++) lengths[i] = base + share * lengths[i]!;
  return lengths;
}

/** A word costs as much as this many postings: its key and its two arrays. */
const WORD_COST = 8;

interface Postings {
  /** Document slots, ascending. */
  slots: ArrayLike<number>;
  /** Weighted frequency per slot: the sum of the column weights of each occurrence. */
  freqs: ArrayLike<number>;
  /** The largest of `freqs`. */
  maxFreq: number;
  /** For words in at least one document in DENSE_SHARE: the frequency by slot, for lookups in O(1). */
  dense?: Float64Array;
  /**
   * With `dense`: one bit per slot (32 slots a word), so that `all` intersects 32 documents at
   * once. Signed: a word with its top bit set stays a small integer in optimized code.
   */
  bits?: Int32Array;
  /**
   * With `bits`: the frequency every document holding the word has, when it is the same in all
   * (a word once in one column, as most are): the bitsets then say all, and the documents they
   * select need no read of `dense`, a read that misses the processor's caches.
   */
  uniform?: number | undefined;
}

/** A word in at least this share of an owner's documents gets a frequency array by slot. */
export const DENSE_SHARE = 1 / 8;

interface OwnerIndex<Id> {
  /** The stamp (SQLite) or generation (PostgreSQL) the index was built at. */
  version: number;
  ids: Id[];
  /** Tokens per document, all columns, as the ranking weighs them (weighedLengths). */
  lengths: Float64Array;
  attributes: Map<string, string[]>;
  /** The payload columns by slot (as `present` made them), when kept. */
  rows: Array<Record<string, unknown>> | undefined;
  /**
   * Query words resolved against this index (null: not a single token), so that a word asked
   * again is not tokenized, stemmed, looked up and merged again (ranker.ts, keepResolved).
   */
  resolved: Map<string, TermList | null>;
  /** What the merged lists among `resolved` hold, in the units of `cost`. */
  resolvedCost: number;
  postings: Map<string, Postings>;
  /** The words, sorted, for prefix lookups. */
  words: string[];
  avgLength: number;
  cost: number;
}

/** Builds an owner's index from rows; exported for the reference test. */
export function buildOwnerIndex<Id extends string | number>(
  rows: Array<Record<string, unknown>>,
  index: FullTextIndex,
  attributes: readonly string[],
  version: number,
  maxCost = Infinity,
): OwnerIndex<Id> | undefined {
  const builder = createBuilder<Id>(index, attributes, [], undefined, maxCost);
  for (const row of rows) if (!builder.add(row)) return undefined;
  return builder.finish(version);
}

export function createBuilder<Id extends string | number>(
  index: FullTextIndex,
  attributes: readonly string[],
  payload: readonly string[],
  present: ((row: Record<string, unknown>) => Record<string, unknown>) | undefined,
  maxCost: number,
  /**
   * The most the payload may cost, counted apart from `maxCost`: past it the payload is dropped
   * and the index kept without it (its hits carry no row). Undefined: the payload counts
   * towards `maxCost`, and an index past it is not built.
   */
  payloadMaxCost?: number,
) {
  // Postings are gathered in reading order and renumbered shortest first at the end: no
  // per-document structure is kept, so a build makes little garbage.
  const readIds: Id[] = [];
  const readLengths: number[] = [];
  const readAttributes: string[][] = attributes.map(() => []);
  const postings = new Map<string, Postings>();
  let readRows: Array<Record<string, unknown>> | undefined = payload.length > 0 ? [] : undefined;
  let payloadCost = 0;
  const stems = new Map<string, string>();
  const freqs = new Map<string, number>();
  let cost = 0;
  let total = 0;

  /** Keeps the row's payload columns, while they fit. */
  function keepPayload(row: Record<string, unknown>, rows: Array<Record<string, unknown>>): void {
    const kept: Record<string, unknown> = {};
    let rowCost = 0;
    for (const column of payload) {
      const value = row[column];
      kept[column] = value;
      // A unit of cost is some 8 bytes; a string holds one or two per character.
      rowCost += 2 + (typeof value === 'string' ? value.length >> 2 : 0);
    }
    if (payloadMaxCost === undefined) {
      cost += rowCost;
      rows.push(present ? present(kept) : kept);
    } else if (payloadCost + rowCost <= payloadMaxCost) {
      payloadCost += rowCost;
      rows.push(present ? present(kept) : kept);
    } else {
      // Too much to keep: the index goes on without rows, and its searches read them.
      readRows = undefined;
      payloadCost = 0;
    }
  }

  return {
    /** False once the index would cost more than allowed. */
    add(row: Record<string, unknown>): boolean {
      const order = readIds.length;
      freqs.clear();
      let length = 0;
      for (const column of index.columns) {
        const text = row[column.name];
        if (typeof text !== 'string' || text === '') continue;
        for (const token of tokenize(text)) {
          let stem = stems.get(token);
          if (stem === undefined) {
            stem = porterStem(token);
            if (stems.size < 100_000) stems.set(token, stem);
          }
          freqs.set(stem, (freqs.get(stem) ?? 0) + column.weight);
          length++;
        }
      }
      for (const [word, freq] of freqs) {
        let p = postings.get(word);
        if (!p) {
          p = { slots: [], freqs: [], maxFreq: 0 };
          postings.set(word, p);
          cost += WORD_COST;
        }
        (p.slots as number[]).push(order);
        (p.freqs as number[]).push(freq);
        if (freq > p.maxFreq) p.maxFreq = freq;
      }
      cost += freqs.size + 1;
      total += length;
      readIds.push(row.id as Id);
      readLengths.push(length);
      attributes.forEach((a, i) => readAttributes[i]!.push(String(row[a] ?? '')));
      if (readRows) keepPayload(row, readRows);
      return cost <= maxCost;
    },
    /** The index, or `undefined` when its lookup arrays would cost more than allowed. */
    finish(version: number): OwnerIndex<Id> | undefined {
      const n = readIds.length;
      // Shortest documents first, then in reading order (by id): see rankInIndex.
      const byLength = Array.from({ length: n }, (_, i) => i).sort((x, y) => readLengths[x]! - readLengths[y]! || x - y);
      const slotOf = new Int32Array(n);
      byLength.forEach((order, slot) => (slotOf[order] = slot));
      const avgLength = n === 0 ? 1 : total / n || 1;
      const lengths = weighedLengths(
        Float64Array.from(byLength, (order) => readLengths[order]!),
        avgLength,
        index.lengthNormalization ?? DEFAULT_LENGTH_NORMALIZATION,
      );
      const ids = byLength.map((order) => readIds[order]!);
      const attrs = new Map<string, string[]>(attributes.map((a, i) => [a, byLength.map((order) => readAttributes[i]![order]!)]));
      const kept = readRows;
      const rows = kept && byLength.map((order) => kept[order]!);
      for (const p of postings.values()) {
        const m = p.slots.length;
        const renumbered = Array.from({ length: m }, (_, i) => i).sort((x, y) => slotOf[p.slots[x]!]! - slotOf[p.slots[y]!]!);
        // Packed arrays of their exact length: grown arrays keep spare room, and boxed numbers.
        const slots = m >= 8 ? new Int32Array(m) : new Array<number>(m);
        const fs = m >= 8 ? new Float64Array(m) : new Array<number>(m);
        renumbered.forEach((i, k) => {
          slots[k] = slotOf[p.slots[i]!]!;
          fs[k] = p.freqs[i]!;
        });
        p.slots = slots;
        p.freqs = fs;
        if (m < n * DENSE_SHARE || m < 64) continue;
        // The frequencies (8 bytes a slot) and the bitset (1 bit a slot), in units of 8 bytes.
        cost += n + Math.ceil(n / 64);
        if (cost > maxCost) return undefined;
        p.dense = new Float64Array(n);
        p.bits = new Int32Array(Math.ceil(n / 32));
        let uniform = true;
        for (let i = 0; i < m; i++) {
          const slot = slots[i]!;
          p.dense[slot] = fs[i]!;
          p.bits[slot >>> 5] = p.bits[slot >>> 5]! | (1 << (slot & 31));
          if (fs[i] !== fs[0]) uniform = false;
        }
        if (uniform) p.uniform = fs[0]!;
      }
      return {
        version,
        ids,
        lengths,
        attributes: attrs,
        rows,
        resolved: new Map(),
        resolvedCost: 0,
        postings,
        words: [...postings.keys()].sort(),
        avgLength,
        cost: cost + payloadCost,
      };
    },
  };
}

export type { OwnerIndex, Postings };

/** One query word resolved against an owner's index: the documents holding a word it prefixes. */
export interface TermList {
  slots: ArrayLike<number>;
  freqs: ArrayLike<number>;
  dense: Float64Array | undefined;
  bits: Int32Array | undefined;
  uniform: number | undefined;
  idf: number;
  maxFreq: number;
  /** What the word gives a document of length 0: no document gets more from it. */
  bound: number;
  /** What the list holds of its own (a merged list's arrays), in the units of the index's cost; 0 for a word's own postings. */
  cost: number;
}

