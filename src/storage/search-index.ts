import { sql, type Kysely } from 'kysely';
import { porterStem } from '../lib/stemmer.js';
import type { Dialect } from './dialect.js';
import { queryTerms, type FullTextIndex, type MatchMode, type RankedHit } from './full-text.js';
import type { WriteTracker } from './write-tracker.js';

/**
 * An in-memory inverted index per owner over the columns a full-text index declares, so that a
 * search over thousands of matches costs microseconds instead of scoring every match in the
 * database on every call (docs/decisions/storage.md).
 *
 * - Words are cut and stemmed as SQLite's FTS5 index cuts them (`unicode61 remove_diacritics 2`,
 *   then Porter), and each query word matches as a prefix of a stem, as `"word"*` does.
 * - Ranking is FTS5's bm25 with the index's column weights (k1 = 1.2, b = 0.75), computed from
 *   the owner's own rows, best first, ties by id: the same order on both engines.
 * - Documents are numbered shortest first, so the most a document can still score only falls
 *   along a walk; the walk stops once that is below the k-th best score. `all` walks the
 *   rarest word's list and looks the others up (an array by document for frequent words, else
 *   galloping); `any` skips documents that only words too weak to enter the top k carry
 *   (MaxScore).
 * - Freshness: on SQLite the write tracker's stamp of the table (this process makes every
 *   write); on PostgreSQL a per-owner generation that triggers bump in the writing transaction
 *   (migrations 0020 and 0028), read with one indexed query (shared by the searches that arrive while
 *   one is in flight). A changed stamp or generation rebuilds the
 *   owner's index on the next search, so a write is seen by the next search on every node.
 * - Bounded: an owner whose index would exceed `maxCost` (postings plus words) is searched by
 *   the database instead, and the least recently used owners are dropped beyond the same total.
 *
 * `search` answers `undefined` when the database should answer instead (index too large, or a
 * query word the index cannot express, such as one that the tokenizer splits in two).
 */

const K1 = 1.2;
const B = 0.75;
/** A word costs as much as this many postings: its key and its two arrays. */
const WORD_COST = 8;

export interface SearchIndexOptions {
  db: Kysely<any>;
  dialect: Dialect;
  index: FullTextIndex;
  /** Text columns kept for equality filters (e.g. skills' `category_key`). */
  attributes?: readonly string[];
  /**
   * Columns kept with each document and answered with each hit, so that a search needs no
   * query for its rows. Only for short columns: they count towards `maxCost`.
   */
  payload?: readonly string[];
  /**
   * Makes the object answered for a row's `payload` columns (e.g. the API's summary of it), once
   * per build: searches then answer the same object for a row until the owner's index is rebuilt,
   * which any write to the table causes, so callers can keep what they derive from it by identity.
   */
  present?: (row: Record<string, unknown>) => Record<string, unknown>;
  /** On SQLite: the tracker of this process's writes. Without it, the generation table is read. */
  writes?: WriteTracker | undefined;
  /** Rows read per query while building; small for tables with large texts. */
  pageSize: number;
  /** The most postings plus words held for this table, over all owners. */
  maxCost: number;
  /** Ids are integers (read back as numbers on both engines). */
  integerIds?: boolean;
}

/** Owners whose index is kept at most, whatever their size (an empty index costs nothing else). */
const MAX_OWNERS = 10_000;

export interface IndexedSearch {
  q: string;
  /** `queryTerms(q)`, when the caller has cut the query already. */
  terms?: readonly string[];
  limit: number;
  mode: MatchMode;
  /** Attribute equality filters, applied before the limit. */
  where?: Record<string, string | undefined>;
}

export interface IndexedHit<Id> extends RankedHit<Id> {
  /** The `payload` columns of the row, when the index keeps any. */
  row?: Record<string, unknown>;
}

export interface SearchIndex<Id extends string | number> {
  search(ownerId: string, options: IndexedSearch): Promise<Array<IndexedHit<Id>> | undefined>;
}

const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING = /\p{M}+/gu;
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** Words of a text as FTS5's unicode61 tokenizer with remove_diacritics 2 cuts them, lower-cased. */
export function tokenize(text: string): string[] {
  let t = text.toLowerCase();
  if (NON_ASCII.test(t)) t = t.normalize('NFD').replace(COMBINING, '');
  return t.match(TOKEN) ?? [];
}

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
const DENSE_SHARE = 1 / 8;

interface OwnerIndex<Id> {
  /** The stamp (SQLite) or generation (PostgreSQL) the index was built at. */
  version: number;
  ids: Id[];
  /** Tokens per document, all columns. */
  lengths: Float64Array;
  attributes: Map<string, string[]>;
  /** The payload columns by slot (as `present` made them), when kept. */
  rows: Array<Record<string, unknown>> | undefined;
  /**
   * Query words resolved against this index (null: not a single token), so that a word asked
   * again is not tokenized, stemmed and looked up again. Words whose prefix covers several
   * stems are not kept: their merged list holds an array as long as the index.
   */
  resolved: Map<string, TermList | null>;
  postings: Map<string, Postings>;
  /** The words, sorted, for prefix lookups. */
  words: string[];
  avgLength: number;
  cost: number;
}

/** Marks an owner whose index would be too large at this version: the database answers. */
interface TooLarge {
  version: number;
  tooLarge: true;
}

function lowerBound(words: string[], prefix: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first position at or after `from` whose slot is >= `slot` (galloping, then binary). */
function seek(slots: ArrayLike<number>, from: number, slot: number): number {
  let step = 1;
  let hi = from;
  while (hi < slots.length && slots[hi]! < slot) {
    from = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > slots.length) hi = slots.length;
  while (from < hi) {
    const mid = (from + hi) >>> 1;
    if (slots[mid]! < slot) from = mid + 1;
    else hi = mid;
  }
  return from;
}

function compareIds(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// The heap's storage, shared by every search: a ranking runs to its end without yielding, and
// `sorted` empties the heap, so no two searches use it at once. Grown for a larger limit.
let heapScores = new Float64Array(256);
let heapItems = new Int32Array(256);

/**
 * A bounded min-heap of the best k documents by slot (worst on top): better = higher score, then
 * lower id. A search allocates no array as it ranks (see heapScores).
 */
class TopK<Id extends string | number> {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private size = 0;
  constructor(
    private readonly k: number,
    private readonly ids: readonly Id[],
  ) {
    if (heapScores.length < k) {
      heapScores = new Float64Array(k);
      heapItems = new Int32Array(k);
    }
    this.scores = heapScores;
    this.items = heapItems;
  }

  get full(): boolean {
    return this.size >= this.k;
  }

  /** The score a candidate must beat (or tie with a lower id) to enter. */
  get threshold(): number {
    return this.full ? this.scores[0]! : -Infinity;
  }

  /** Whether the entry at heap position i is worse than the one at j. */
  private worse(i: number, j: number): boolean {
    const si = this.scores[i]!;
    const sj = this.scores[j]!;
    return si < sj || (si === sj && compareIds(this.ids[this.items[i]!]!, this.ids[this.items[j]!]!) > 0);
  }

  private swap(i: number, j: number): void {
    const score = this.scores[i]!;
    this.scores[i] = this.scores[j]!;
    this.scores[j] = score;
    const item = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = item;
  }

  offer(score: number, slot: number): void {
    if (this.k <= 0) return;
    if (this.full) {
      const top = this.scores[0]!;
      if (score < top || (score === top && compareIds(this.ids[slot]!, this.ids[this.items[0]!]!) > 0)) return;
      this.scores[0] = score;
      this.items[0] = slot;
      this.down(0, this.size);
      return;
    }
    let i = this.size++;
    this.scores[i] = score;
    this.items[i] = slot;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Sifts the entry at i down a heap of n entries. */
  private down(i: number, n: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.worse(l, m)) m = l;
      if (r < n && this.worse(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  /**
   * Best first, with their rows when the index keeps them. Taken off the heap worst first into
   * the end of the answer (the heap's order is total, so this is the sorted order); the heap is
   * spent afterwards.
   */
  sorted(rows: ReadonlyArray<Record<string, unknown>> | undefined): Array<IndexedHit<Id>> {
    const hits = new Array<IndexedHit<Id>>(this.size);
    for (let n = this.size; n > 0; n--) {
      const slot = this.items[0]!;
      const rank = this.scores[0]!;
      hits[n - 1] = rows ? { id: this.ids[slot]!, rank, row: rows[slot]! } : { id: this.ids[slot]!, rank };
      this.swap(0, n - 1);
      this.down(0, n - 1);
    }
    this.size = 0;
    return hits;
  }
}

/** One query word resolved against an owner's index: the documents holding a word it prefixes. */
interface TermList {
  slots: ArrayLike<number>;
  freqs: ArrayLike<number>;
  dense: Float64Array | undefined;
  bits: Int32Array | undefined;
  uniform: number | undefined;
  idf: number;
  maxFreq: number;
  /** What the word gives a document of length 0: no document gets more from it. */
  bound: number;
  /** Made of several words' lists (a prefix of several stems). */
  merged: boolean;
}

/** The bm25 contribution of one word to one document, as FTS5 computes it. */
function termScore(idf: number, freq: number, length: number, avgLength: number): number {
  // Grouped as fts5_aux.c groups it, so that equal inputs give the same double as SQLite's bm25.
  return idf * ((freq * (K1 + 1)) / (freq + K1 * (1 - B + (B * length) / avgLength)));
}

/**
 * Resolves the query words, or `undefined` when one of them is not a single token (then the
 * database's own query parser must answer). Words without any match get an empty list.
 */
function termLists<Id>(owner: OwnerIndex<Id>, terms: readonly string[]): TermList[] | undefined {
  const lists: TermList[] = [];
  for (const term of terms) {
    let list = owner.resolved.get(term);
    if (list === undefined) {
      list = termList(owner, term);
      if (list === null || !list.merged) {
        // Bounded by the index's own size, so that many small owners hold few in all.
        if (owner.resolved.size >= Math.min(RESOLVED_MAX, 8 + (owner.cost >> 6))) owner.resolved.clear();
        owner.resolved.set(term, list);
      }
    }
    if (list === null) return undefined;
    lists.push(list);
  }
  return lists;
}

/** Query words resolved per owner index at most (some hundred bytes each). */
const RESOLVED_MAX = 256;

/** One query word's list, or null when the word is not a single token. */
function termList<Id>(owner: OwnerIndex<Id>, term: string): TermList | null {
  const n = owner.ids.length;
  const tokens = tokenize(term);
  if (tokens.length !== 1) return null;
  const stem = porterStem(tokens[0]!);
  const words = owner.words;
  const matching: Postings[] = [];
  for (let i = lowerBound(words, stem); i < words.length && words[i]!.startsWith(stem); i++) matching.push(owner.postings.get(words[i]!)!);
  let slots: ArrayLike<number> = [];
  let freqs: ArrayLike<number> = [];
  let dense: Float64Array | undefined;
  let bits: Int32Array | undefined;
  let uniform: number | undefined;
  let maxFreq = 0;
  if (matching.length === 1) {
    ({ slots, freqs, dense, bits, maxFreq, uniform } = matching[0]!);
  } else if (matching.length > 1) {
    // Several words share the prefix: add up their frequencies by slot.
    const acc = new Float64Array(n);
    const merged: number[] = [];
    for (const p of matching) {
      for (let i = 0; i < p.slots.length; i++) {
        const slot = p.slots[i]!;
        if (acc[slot] === 0) merged.push(slot);
        acc[slot] = acc[slot]! + p.freqs[i]!;
      }
    }
    merged.sort((x, y) => x - y);
    slots = merged;
    freqs = merged.map((slot) => acc[slot]!);
    for (let i = 0; i < freqs.length; i++) if (freqs[i]! > maxFreq) maxFreq = freqs[i]!;
    dense = acc;
  }
  let idf = Math.log((0.5 + n - slots.length) / (0.5 + slots.length));
  if (idf <= 0) idf = 1e-6;
  return { slots, freqs, dense, bits, uniform, idf, maxFreq, bound: maxFreq === 0 ? 0 : termScore(idf, maxFreq, 0, owner.avgLength), merged: matching.length > 1 };
}

/** The frequency of a word in a document: from the dense array, or by galloping from `positions[li]`. */
function lookup(list: TermList, positions: number[], li: number, slot: number): number {
  if (list.dense) return list.dense[slot]!;
  const at = seek(list.slots, positions[li]!, slot);
  positions[li] = at;
  return at < list.slots.length && list.slots[at] === slot ? list.freqs[at]! : 0;
}

/**
 * The best `limit` documents of an owner's index for these words; exported for the reference
 * test. Slots are numbered from the shortest document to the longest, so the most a document
 * can score only falls as the walk goes on: once it is below the k-th best score, no later
 * document can enter and the walk stops.
 */
export function rankInIndex<Id extends string | number>(
  owner: OwnerIndex<Id>,
  terms: readonly string[],
  mode: MatchMode,
  limit: number,
  accept: (slot: number) => boolean,
): Array<IndexedHit<Id>> | undefined {
  const lists = termLists(owner, terms);
  if (!lists) return undefined;
  if (limit <= 0) return [];
  const { lengths, avgLength, ids, rows } = owner;
  const top = new TopK<Id>(limit, ids);
  const found = new Array<number>(lists.length).fill(0);
  const positions = new Array<number>(lists.length).fill(0);
  // The score of a document is summed in query order, so equal documents get equal scores.
  const score = (slot: number): number => {
    let s = 0;
    for (let i = 0; i < lists.length; i++) {
      const f = found[i]!;
      if (f > 0) s += termScore(lists[i]!.idf, f, lengths[slot]!, avgLength);
    }
    return s;
  };
  // The most any document of this length can score (every word at its largest frequency).
  let boundLength = -1;
  let lengthBound = Infinity;
  const cannotEnter = (slot: number): boolean => {
    if (!top.full) return false;
    const length = lengths[slot]!;
    if (length !== boundLength) {
      boundLength = length;
      lengthBound = 0;
      for (const list of lists) if (list.maxFreq > 0) lengthBound += termScore(list.idf, list.maxFreq, length, avgLength);
    }
    return lengthBound < top.threshold;
  };

  if (mode === 'all') {
    if (lists.some((l) => l.slots.length === 0)) return [];
    // Rarest first: its list drives, the others are looked up.
    let driverIndex = 0;
    for (let i = 1; i < lists.length; i++) if (lists[i]!.slots.length < lists[driverIndex]!.slots.length) driverIndex = i;
    if (lists.every((l) => l.bits)) {
      // Every word is frequent: AND their bitsets, 32 slots at a time, and visit only the
      // documents holding all of them (in slot order, as the walk below would). With three words
      // each in a third of the documents, the walk below reads nine postings per match.
      // Up to four words in locals (a word ANDed twice changes nothing), more in a loop.
      const bits = lists.map((l) => l.bits!);
      const b0 = bits[0]!;
      const b1 = bits[1] ?? b0;
      const b2 = bits[2] ?? b0;
      const b3 = bits[3] ?? b0;
      const dense = lists.map((l) => (l.uniform === undefined ? l.dense! : undefined));
      const allUniform = dense.every((d) => d === undefined);
      if (allUniform) for (let li = 0; li < lists.length; li++) found[li] = lists[li]!.uniform!;
      const uniform = allUniform ? [] : lists.map((l) => l.uniform ?? 0);
      // With every frequency the same, a document's score depends on its length alone, and
      // neighbouring slots share their length (slots go from the shortest document up).
      let scoredLength = -1;
      let lengthScore = 0;
      const words = b0.length;
      for (let w = 0; w < words; w++) {
        let m = b0[w]! & b1[w]! & b2[w]! & b3[w]!;
        for (let li = 4; li < bits.length && m !== 0; li++) m &= bits[li]![w]!;
        while (m !== 0) {
          const low = m & -m;
          m ^= low;
          const slot = w * 32 + 31 - Math.clz32(low);
          if (cannotEnter(slot)) return top.sorted(rows);
          if (!accept(slot)) continue;
          if (allUniform) {
            if (lengths[slot] !== scoredLength) {
              scoredLength = lengths[slot]!;
              lengthScore = score(slot);
            }
            top.offer(lengthScore, slot);
            continue;
          }
          for (let li = 0; li < dense.length; li++) {
            const d = dense[li];
            found[li] = d === undefined ? uniform[li]! : d[slot]!;
          }
          top.offer(score(slot), slot);
        }
      }
      return top.sorted(rows);
    }
    const driver = lists[driverIndex]!;
    candidates: for (let p = 0; p < driver.slots.length; p++) {
      const slot = driver.slots[p]!;
      if (cannotEnter(slot)) break;
      for (let li = 0; li < lists.length; li++) {
        const f = li === driverIndex ? driver.freqs[p]! : lookup(lists[li]!, positions, li, slot);
        if (f === 0) continue candidates;
        found[li] = f;
      }
      if (!accept(slot)) continue;
      top.offer(score(slot), slot);
    }
    return top.sorted(rows);
  }

  // any: MaxScore. Words sorted by their bound; the weakest ones, whose bounds together cannot
  // reach the k-th best score, only add to candidates found through the stronger ones.
  const order = lists.map((_, i) => i).filter((i) => lists[i]!.slots.length > 0);
  order.sort((a, b) => lists[a]!.bound - lists[b]!.bound);
  const prefix = new Array<number>(order.length + 1).fill(0);
  for (let i = 0; i < order.length; i++) prefix[i + 1] = prefix[i]! + lists[order[i]!]!.bound;
  const next = new Array<number>(lists.length).fill(0);
  let essential = 0;
  for (;;) {
    while (top.full && essential < order.length && prefix[essential + 1]! < top.threshold) essential++;
    if (essential >= order.length) break;
    // The next candidate: the smallest slot among the essential words' lists.
    let slot = Infinity;
    for (let e = essential; e < order.length; e++) {
      const list = lists[order[e]!]!;
      const at = next[order[e]!]!;
      if (at < list.slots.length && list.slots[at]! < slot) slot = list.slots[at]!;
    }
    if (slot === Infinity || cannotEnter(slot)) break;
    for (let e = 0; e < order.length; e++) {
      const li = order[e]!;
      const list = lists[li]!;
      if (e >= essential) {
        const at = next[li]!;
        if (at < list.slots.length && list.slots[at] === slot) {
          found[li] = list.freqs[at]!;
          next[li] = at + 1;
        } else {
          found[li] = 0;
        }
      } else {
        found[li] = lookup(list, positions, li, slot);
      }
    }
    if (!accept(slot)) continue;
    top.offer(score(slot), slot);
  }
  return top.sorted(rows);
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

function createBuilder<Id extends string | number>(
  index: FullTextIndex,
  attributes: readonly string[],
  payload: readonly string[],
  present: ((row: Record<string, unknown>) => Record<string, unknown>) | undefined,
  maxCost: number,
) {
  // Postings are gathered in reading order and renumbered shortest first at the end: no
  // per-document structure is kept, so a build makes little garbage.
  const readIds: Id[] = [];
  const readLengths: number[] = [];
  const readAttributes: string[][] = attributes.map(() => []);
  const postings = new Map<string, Postings>();
  const readRows: Array<Record<string, unknown>> | undefined = payload.length > 0 ? [] : undefined;
  const stems = new Map<string, string>();
  const freqs = new Map<string, number>();
  let cost = 0;
  let total = 0;
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
      if (readRows) {
        const kept: Record<string, unknown> = {};
        for (const column of payload) {
          const value = row[column];
          kept[column] = value;
          // A unit of cost is some 8 bytes; a string holds one or two per character.
          cost += 2 + (typeof value === 'string' ? value.length >> 2 : 0);
        }
        readRows.push(present ? present(kept) : kept);
      }
      return cost <= maxCost;
    },
    /** The index, or `undefined` when its lookup arrays would cost more than allowed. */
    finish(version: number): OwnerIndex<Id> | undefined {
      const n = readIds.length;
      // Shortest documents first, then in reading order (by id): see rankInIndex.
      const byLength = Array.from({ length: n }, (_, i) => i).sort((x, y) => readLengths[x]! - readLengths[y]! || x - y);
      const slotOf = new Int32Array(n);
      byLength.forEach((order, slot) => (slotOf[order] = slot));
      const lengths = Float64Array.from(byLength, (order) => readLengths[order]!);
      const ids = byLength.map((order) => readIds[order]!);
      const attrs = new Map<string, string[]>(attributes.map((a, i) => [a, byLength.map((order) => readAttributes[i]![order]!)]));
      const rows = readRows && byLength.map((order) => readRows[order]!);
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
        postings,
        words: [...postings.keys()].sort(),
        avgLength: n === 0 ? 1 : total / n || 1,
        cost,
      };
    },
  };
}

const acceptAll = (): boolean => true;

export function createSearchIndex<Id extends string | number>(options: SearchIndexOptions): SearchIndex<Id> {
  const { db, index, pageSize, maxCost } = options;
  // The tracker says when to rebuild only where this process makes every write (SQLite). On
  // PostgreSQL it hears other nodes only through a feed that may lag or drop a notice, while the
  // generation rows change in the writing transaction itself: a search never sees older rows.
  const writes = options.dialect === 'sqlite' ? options.writes : undefined;
  const attributes = options.attributes ?? [];
  const payload = options.payload ?? [];
  const columns = [...new Set(['id', ...index.columns.map((c) => c.name), ...attributes, ...payload])];
  // Least recently searched first (a Map keeps insertion order).
  const owners = new Map<string, OwnerIndex<Id> | TooLarge>();
  const building = new Map<string, Promise<OwnerIndex<Id> | TooLarge>>();
  let totalCost = 0;

  async function readGeneration(ownerId: string): Promise<number> {
    const result = await sql<{ generation: string | number }>`
      SELECT coalesce(sum(generation), 0) AS generation FROM search_generations
      WHERE owner_id = ${ownerId} AND table_name = ${index.table}`.execute(db);
    return Number(result.rows[0]?.generation ?? 0);
  }

  /**
   * Generation reads per owner: the one in flight, and the one that waits for it. A search joins
   * only a read sent after it arrived (so it sees every write committed before it), but the
   * searches that arrive while one read is in flight share the next: under load, one query
   * answers many searches instead of one each.
   */
  const reads = new Map<string, { inFlight?: Promise<number> | undefined; next?: Promise<number> | undefined }>();

  function generation(ownerId: string): Promise<number> {
    let state = reads.get(ownerId);
    if (!state) {
      state = {};
      reads.set(ownerId, state);
    }
    const s = state;
    if (!s.inFlight) {
      s.inFlight = readGeneration(ownerId).finally(() => {
        s.inFlight = undefined;
        if (!s.next && reads.get(ownerId) === s) reads.delete(ownerId);
      });
      return s.inFlight;
    }
    if (!s.next) {
      s.next = s.inFlight
        .catch(() => undefined)
        .then(() => {
          s.next = undefined;
          // Sent now, after every search waiting here arrived.
          const read = readGeneration(ownerId);
          s.inFlight ??= read;
          void read.finally(() => {
            if (s.inFlight === read) s.inFlight = undefined;
            if (!s.inFlight && !s.next && reads.get(ownerId) === s) reads.delete(ownerId);
          }).catch(() => undefined);
          return read;
        });
    }
    return s.next;
  }

  async function currentVersion(ownerId: string): Promise<number> {
    // A stamp is undefined only while writes cannot be seen, never on SQLite; an index built
    // then is not kept (see ownerIndex), so -1 only makes the search read the rows.
    if (writes) return writes.stamp([index.table]) ?? -1;
    return generation(ownerId);
  }

  function forget(ownerId: string): void {
    const entry = owners.get(ownerId);
    if (!entry) return;
    owners.delete(ownerId);
    if (!('tooLarge' in entry)) totalCost -= entry.cost;
  }

  async function build(ownerId: string, version: number): Promise<OwnerIndex<Id> | TooLarge> {
    const builder = createBuilder<Id>(index, attributes, payload, options.present, maxCost);
    const select = sql.raw(columns.join(', '));
    let after: Id | undefined;
    for (;;) {
      // Pages by id, so that a table of large texts is never read at once.
      const page = await sql<Record<string, unknown>>`
        SELECT ${select} FROM ${sql.table(index.table)}
        WHERE owner_id = ${ownerId} ${after === undefined ? sql`` : sql`AND id > ${after}`}
        ORDER BY id LIMIT ${pageSize}`.execute(db);
      for (const row of page.rows) {
        if (options.integerIds) row.id = Number(row.id);
        if (!builder.add(row)) return { version, tooLarge: true };
      }
      if (page.rows.length < pageSize) break;
      after = page.rows[page.rows.length - 1]!.id as Id;
    }
    return builder.finish(version) ?? { version, tooLarge: true };
  }

  /** The owner's kept index if it is of `version`, marked as the most recently used. */
  function keptAt(ownerId: string, version: number): OwnerIndex<Id> | TooLarge | undefined {
    const known = owners.get(ownerId);
    if (!known || known.version !== version) return undefined;
    owners.delete(ownerId);
    owners.set(ownerId, known);
    return known;
  }

  /** The owner's index when it is current and that is known without a query (SQLite), else undefined. */
  function currentKnown(ownerId: string): OwnerIndex<Id> | TooLarge | undefined {
    return writes ? keptAt(ownerId, writes.stamp([index.table]) ?? -1) : undefined;
  }

  async function ownerIndex(ownerId: string): Promise<OwnerIndex<Id> | TooLarge> {
    const version = await currentVersion(ownerId);
    const known = keptAt(ownerId, version);
    if (known) return known;
    const key = `${ownerId}\u0000${version}`;
    let pending = building.get(key);
    if (!pending) {
      pending = build(ownerId, version).finally(() => building.delete(key));
      building.set(key, pending);
    }
    const built = await pending;
    // Kept only if nothing was written while it was read (SQLite), or if it is still the newest
    // known (PostgreSQL, where the generation was read before the rows, so the rows are as new).
    const stale = writes ? writes.stamp([index.table]) !== version : (owners.get(ownerId)?.version ?? -1) > version;
    if (!stale) {
      forget(ownerId);
      owners.set(ownerId, built);
      if (!('tooLarge' in built)) {
        totalCost += built.cost;
      }
      while ((totalCost > maxCost || owners.size > MAX_OWNERS) && owners.size > 1) forget(owners.keys().next().value!);
    }
    return built;
  }

  return {
    async search(ownerId, { q, terms = queryTerms(q), limit, mode, where }) {
      if (terms.length === 0) return [];
      // Without a wait where the index is known current: most searches on SQLite.
      const owner = currentKnown(ownerId) ?? (await ownerIndex(ownerId));
      if ('tooLarge' in owner) return undefined;
      const filters: Array<readonly [string[], string]> = [];
      for (const name in where) {
        const value = where[name];
        if (value !== undefined) filters.push([owner.attributes.get(name)!, value]);
      }
      const accept = filters.length === 0 ? acceptAll : (slot: number) => filters.every(([values, value]) => values[slot] === value);
      return rankInIndex(owner, terms, mode, limit, accept);
    },
  };
}

export type { OwnerIndex };
