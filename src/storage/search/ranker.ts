import type { MatchMode, RankedHit } from './full-text.js';
import { DEFAULT_LENGTH_NORMALIZATION, DENSE_SHARE, type OwnerIndex, type Postings, type TermList } from './owner-index.js';
import { porterStem } from './stemmer.js';
import { tokenize } from './tokenizer.js';

/**
 * FTS5's bm25 over an owner's index (owner-index.ts), best first, ties by the lower id: the
 * top k found without scoring every match (see rankInIndex).
 */

const K1 = 1.2;
/** Every index's lengths are weighed for its own `b` (weighedLengths), so the formula keeps FTS5's. */
const B = DEFAULT_LENGTH_NORMALIZATION;

export interface IndexedHit<Id> extends RankedHit<Id> {
  /** The `payload` columns of the row, when the index keeps any. */
  row?: Record<string, unknown>;
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

export function compareIds(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The heap's storage, owned by one search index (or made for one call): a ranking runs to its
 * end without yielding and `sorted` empties the heap, so the searches of one index never use it
 * at once, and no two indexes share it. Grown for a larger limit.
 */
export interface RankScratch {
  scores: Float64Array;
  items: Int32Array;
}

export function createRankScratch(size = 256): RankScratch {
  return { scores: new Float64Array(size), items: new Int32Array(size) };
}

/**
 * A bounded min-heap of the best k documents by slot (worst on top): better = higher score, then
 * lower id. A search allocates no array as it ranks (see RankScratch).
 */
class TopK<Id extends string | number> {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private size = 0;
  constructor(
    private readonly k: number,
    private readonly ids: readonly Id[],
    scratch: RankScratch,
  ) {
    if (scratch.scores.length < k) {
      scratch.scores = new Float64Array(k);
      scratch.items = new Int32Array(k);
    }
    this.scores = scratch.scores;
    this.items = scratch.items;
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

/** The bm25 contribution of one word to one document, as FTS5 computes it. */
export function termScore(idf: number, freq: number, length: number, avgLength: number): number {
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
      keepResolved(owner, term, list);
    }
    if (list === null) return undefined;
    lists.push(list);
  }
  return lists;
}

/** Query words resolved per owner index at most (some hundred bytes each, apart from merged lists). */
const RESOLVED_MAX = 1_024;

/**
 * Keeps a resolved word for the next query that asks it. Bounded by the index's own size, so
 * that many small owners hold few in all; a merged list (a prefix of several stems) also holds
 * its own postings, counted apart and bounded by an eighth of the index's cost: the words of
 * questions recur ("meet"* covers meet, meeting, meetings), and merging them again on every
 * question cost a search more than ranking them. Emptied when full (a resolution is a pure
 * function of the index, which a write replaces whole).
 */
function keepResolved<Id>(owner: OwnerIndex<Id>, term: string, list: TermList | null): void {
  const cost = list?.cost ?? 0;
  const maxCost = owner.cost >> 3;
  if (cost > maxCost) return;
  if (owner.resolved.size >= Math.min(RESOLVED_MAX, 8 + (owner.cost >> 6)) || owner.resolvedCost + cost > maxCost) {
    owner.resolved.clear();
    owner.resolvedCost = 0;
  }
  owner.resolved.set(term, list);
  owner.resolvedCost += cost;
}

/**
 * Sums of a merged list's frequencies by slot, shared by every index as `accumulated` is: a
 * merge runs to its end without yielding, and leaves the array as it found it (zero).
 */
let mergeSums = new Float64Array(0);

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
  let cost = 0;
  if (matching.length === 1) {
    ({ slots, freqs, dense, bits, maxFreq, uniform } = matching[0]!);
  } else if (matching.length > 1) {
    // Several words share the prefix: add up their frequencies by slot, into typed arrays of
    // their exact length (the ranking's loops are made for them, see accumulateTyped).
    if (mergeSums.length < n) mergeSums = new Float64Array(n);
    const acc = mergeSums;
    const merged: number[] = [];
    for (const p of matching) {
      for (let i = 0; i < p.slots.length; i++) {
        const slot = p.slots[i]!;
        if (acc[slot] === 0) merged.push(slot);
        acc[slot] = acc[slot]! + p.freqs[i]!;
      }
    }
    merged.sort((x, y) => x - y);
    const m = merged.length;
    const mergedSlots = new Int32Array(m);
    const mergedFreqs = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const slot = merged[i]!;
      mergedSlots[i] = slot;
      mergedFreqs[i] = acc[slot]!;
      acc[slot] = 0;
      if (mergedFreqs[i]! > maxFreq) maxFreq = mergedFreqs[i]!;
    }
    slots = mergedSlots;
    freqs = mergedFreqs;
    // Looked up by slot (MaxScore, `all`) through an array as long as the index only when the
    // merged word is frequent, as a word's own postings are (owner-index.ts); else by galloping.
    if (m >= n * DENSE_SHARE && m >= 64) {
      dense = new Float64Array(n);
      for (let i = 0; i < m; i++) dense[mergedSlots[i]!] = mergedFreqs[i]!;
    }
    // In units of 8 bytes, as the index counts its own: 12 bytes a posting, 8 a slot of `dense`.
    cost = Math.ceil((m * 3) / 2) + (dense ? n : 0);
  }
  let idf = Math.log((0.5 + n - slots.length) / (0.5 + slots.length));
  if (idf <= 0) idf = 1e-6;
  return { slots, freqs, dense, bits, uniform, idf, maxFreq, bound: maxFreq === 0 ? 0 : termScore(idf, maxFreq, 0, owner.avgLength), cost };
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
  scratch: RankScratch = createRankScratch(limit),
): Array<IndexedHit<Id>> | undefined {
  const lists = termLists(owner, terms);
  if (!lists) return undefined;
  if (limit <= 0) return [];
  const { lengths, avgLength, ids, rows } = owner;
  const top = new TopK<Id>(limit, ids, scratch);
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
  if (order.length > 0 && order.every((i) => lists[i]!.bits)) {
    return order.length <= PATTERN_WORDS
      ? rankAnyByPatterns(owner, lists, order, top, found, score, accept)
      : rankAnyByBits(owner, lists, order, top, found, score, cannotEnter, accept);
  }
  if (postingsOf(lists) <= ids.length * TERMS_POSTINGS_PER_DOCUMENT) return rankAnyByTerms(owner, lists, top, accept);
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

/**
 * `any` is summed word by word (rankAnyByTerms) while the query's words hold at most this many
 * postings per document of the index in all; MaxScore's walk past that. Reading every posting
 * is a sequential add each, while the walk pays a lookup in every other word's list for each
 * document it visits: over the 1,118 passages of the bench's documents, questions of some 1,200
 * postings (a fifth of them) took twice as long walked (24 µs a question against 13 summed, the
 * same answers); at 1 per document they were walked, at 2 summed, and 4 or 8 gained nothing more.
 */
const TERMS_POSTINGS_PER_DOCUMENT = 2;

/** How many postings the words' lists hold in all. */
function postingsOf(lists: readonly TermList[]): number {
  let postings = 0;
  for (const list of lists) postings += list.slots.length;
  return postings;
}

/**
 * Scores summed word by word into one array by slot (`any`), shared by every ranking of the
 * process: a ranking runs to its end without yielding, and leaves the array as it found it
 * (zero). Grown to the largest index ranked this way.
 */
let accumulated = new Float64Array(0);
let touched = new Int32Array(0);

/**
 * `any` when the query's words hold few postings in all (at most TERMS_POSTINGS_PER_DOCUMENT
 * per document of the index): each word's list is read once, in query order, adding its bm25
 * term to its documents' sums, and every document found is offered to the heap. A question of
 * ten words, each in a few hundred of 10,000 notes, reads some 1,500 postings this way;
 * MaxScore above visits the same documents one at a time and looks each up in every other
 * word's list, ten times the work here. A document's sum is added in query order, from 0, as
 * `score` adds it, so the scores are the same doubles and the answer the same hits in the same
 * order (a test compares both with a ranking of every document). Words in many documents keep
 * MaxScore and the bitsets, where skipping beats reading every posting.
 */
function rankAnyByTerms<Id extends string | number>(
  owner: OwnerIndex<Id>,
  lists: readonly TermList[],
  top: TopK<Id>,
  accept: (slot: number) => boolean,
): Array<IndexedHit<Id>> {
  const { lengths, avgLength, rows } = owner;
  const n = lengths.length;
  if (accumulated.length < n) {
    accumulated = new Float64Array(n);
    touched = new Int32Array(n);
  }
  const sums = accumulated;
  let count = 0;
  for (const list of lists) {
    const { slots, freqs, idf } = list;
    // Typed lists (8 postings or more, and merged ones) and short plain ones each get a loop of
    // their own, so that neither reads its elements through code made for both kinds.
    count =
      slots instanceof Int32Array && freqs instanceof Float64Array
        ? accumulateTyped(slots, freqs, idf, lengths, avgLength, sums, touched, count)
        : accumulatePlain(slots, freqs, idf, lengths, avgLength, sums, touched, count);
  }
  // Most documents found hold one or two of the words and cannot enter once the heap is full:
  // passed over before the filter and the heap are asked (a tie may still enter by its id).
  let threshold = -Infinity;
  for (let c = 0; c < count; c++) {
    const slot = touched[c]!;
    const sum = sums[slot]!;
    sums[slot] = 0;
    if (sum < threshold || !accept(slot)) continue;
    top.offer(sum, slot);
    threshold = top.threshold;
  }
  return top.sorted(rows);
}

/**
 * Adds one word's bm25 term to the sums of the documents holding it (termScore's grouping, so
 * the same doubles), noting each document found for the first time; answers the count noted.
 */
function accumulateTyped(slots: Int32Array, freqs: Float64Array, idf: number, lengths: Float64Array, avgLength: number, sums: Float64Array, found: Int32Array, count: number): number {
  for (let p = 0; p < slots.length; p++) {
    const slot = slots[p]!;
    const sum = sums[slot]!;
    // Every term adds more than 0 (idf is at least 1e-6): 0 means not found yet.
    if (sum === 0) found[count++] = slot;
    const freq = freqs[p]!;
    sums[slot] = sum + idf * ((freq * (K1 + 1)) / (freq + K1 * (1 - B + (B * lengths[slot]!) / avgLength)));
  }
  return count;
}

/**
 * accumulateTyped for lists held in plain arrays. A copy rather than one function over both
 * kinds: the search's hottest loop stays monomorphic, each copy seeing one kind of array.
 */
function accumulatePlain(slots: ArrayLike<number>, freqs: ArrayLike<number>, idf: number, lengths: Float64Array, avgLength: number, sums: Float64Array, found: Int32Array, count: number): number {
  for (let p = 0; p < slots.length; p++) {
    const slot = slots[p]!;
    const sum = sums[slot]!;
    if (sum === 0) found[count++] = slot;
    const freq = freqs[p]!;
    sums[slot] = sum + idf * ((freq * (K1 + 1)) / (freq + K1 * (1 - B + (B * lengths[slot]!) / avgLength)));
  }
  return count;
}

/**
 * `any` when every matching word is frequent (each has a bitset): 32 documents at a time, in
 * slot order as the walk above goes. MaxScore skips little here: words in a third of the
 * documents each have about the same bound, so the weakest cannot be left out until the k-th
 * best score passes two of them, and then the strongest word's list (a third of the owner's
 * documents) is still walked one by one. Instead, for each block, a word is required when the
 * most a document of the block's (shortest) length could score without it is below the k-th
 * best score (a tie may still enter by a lower id, so only below): the block's candidates are the
 * documents holding every required word and any of the others, one AND and OR per word. Once
 * the best answers hold all the words, that is the intersection `all` walks. Lengths only grow
 * along the slots and the k-th best score only rises, so a word required at a block's first
 * slot is required for all of it: the answer is the walk's.
 */
function rankAnyByBits<Id extends string | number>(
  owner: OwnerIndex<Id>,
  lists: readonly TermList[],
  order: readonly number[],
  top: TopK<Id>,
  found: number[],
  score: (slot: number) => number,
  cannotEnter: (slot: number) => boolean,
  accept: (slot: number) => boolean,
): Array<IndexedHit<Id>> {
  const { lengths, avgLength, rows } = owner;
  const n = lengths.length;
  const bits = order.map((li) => lists[li]!.bits!);
  const most = new Array<number>(order.length).fill(0);
  for (let w = 0; w * 32 < n; w++) {
    let required = -1;
    if (top.full) {
      const first = w * 32;
      if (cannotEnter(first)) return top.sorted(rows);
      const length = lengths[first]!;
      const threshold = top.threshold;
      for (let e = 0; e < order.length; e++) {
        const list = lists[order[e]!]!;
        most[e] = termScore(list.idf, list.maxFreq, length, avgLength);
      }
      // Summed in query order (`order` ascends), as a document's score is, so that the bound
      // is never below the score of a document without the word.
      for (let e = 0; e < order.length; e++) {
        let without = 0;
        for (let k = 0; k < order.length; k++) if (k !== e) without += most[k]!;
        if (without < threshold) required &= bits[e]![w]!;
      }
    }
    let anyWord = 0;
    for (let e = 0; e < order.length; e++) anyWord |= bits[e]![w]!;
    let m = anyWord & required;
    while (m !== 0) {
      const low = m & -m;
      m ^= low;
      const slot = w * 32 + 31 - Math.clz32(low);
      if (cannotEnter(slot)) return top.sorted(rows);
      if (!accept(slot)) continue;
      for (let e = 0; e < order.length; e++) {
        const list = lists[order[e]!]!;
        found[order[e]!] = (bits[e]![w]! & low) === 0 ? 0 : (list.uniform ?? list.dense![slot]!);
      }
      top.offer(score(slot), slot);
    }
  }
  return top.sorted(rows);
}

/** Frequent words of an `any` query ranked by which of them a document holds, at most (see rankAnyByPatterns). */
const PATTERN_WORDS = 6;

/**
 * By pattern (bit e set: a document holds the query's e-th frequent word), the most a document
 * of one length can score, summed in query order; and each word's term. Shared as `accumulated`
 * is: a ranking runs to its end without yielding.
 */
const patternSums = new Float64Array(1 << PATTERN_WORDS);
const wordTerms = new Float64Array(PATTERN_WORDS);
const blockBits = new Int32Array(PATTERN_WORDS);

/**
 * Fills `patternSums` for documents of this length, each word at its largest frequency (its
 * only one when `uniform`), and answers the length. A pattern's sum is the sum without its last
 * word plus that word's term: the additions a document's score makes, in the same order, so
 * that with one frequency per word it is the score itself, the same double.
 */
function sumPatterns(chosen: readonly TermList[], length: number, avgLength: number): number {
  const sums = patternSums;
  for (let e = 0; e < chosen.length; e++) wordTerms[e] = termScore(chosen[e]!.idf, chosen[e]!.maxFreq, length, avgLength);
  sums[0] = 0;
  const all = (1 << chosen.length) - 1;
  for (let p = 1; p <= all; p++) {
    const last = 31 - Math.clz32(p);
    sums[p] = sums[p ^ (1 << last)]! + wordTerms[last]!;
  }
  return length;
}

/**
 * `any` over at most PATTERN_WORDS frequent words (each has a bitset), in two passes over the
 * blocks of 32 documents. The first offers the documents holding every word (the bitsets
 * ANDed, as `all` walks them) until no later document can enter: they score most at each
 * length, and with three words in a third of 10,000 skills the best 20 are all such documents,
 * so the k-th best score is already where it ends. The second offers the documents holding
 * some of the words but not all, over the same blocks: per block, the most each pattern of
 * words can score at the block's first (shortest) length is known (sumPatterns), so it stops
 * at once when no pattern short of all the words reaches the k-th best score, requires (ANDs)
 * a word when the pattern of all the others is below it, and passes over a document whose own
 * pattern is below it (a tie may still enter by a lower id: only below). The walk in slot
 * order offered hundreds of one- and two-word documents to the heap while it filled with them
 * before the three-word ones pushed them out. The heap keeps the best k by score and id
 * whatever order they are offered in, lengths only grow along the slots and the k-th best score
 * only rises, so nothing passed over could have entered: the answer is the walk's (the tests
 * compare ids and scores with a ranking of every document).
 */
function rankAnyByPatterns<Id extends string | number>(
  owner: OwnerIndex<Id>,
  lists: readonly TermList[],
  order: readonly number[],
  top: TopK<Id>,
  found: number[],
  score: (slot: number) => number,
  accept: (slot: number) => boolean,
): Array<IndexedHit<Id>> {
  const { lengths, avgLength, rows } = owner;
  const words = order.length;
  const all = (1 << words) - 1;
  const bits = order.map((li) => lists[li]!.bits!);
  const chosen = order.map((li) => lists[li]!);
  const uniform = chosen.every((list) => list.uniform !== undefined);
  const sums = patternSums;
  let sumsLength = -1;
  /** The score of the document at `slot` holding the words of `pattern`. */
  const scoreOf = (slot: number, pattern: number): number => {
    if (uniform && lengths[slot] === sumsLength) return sums[pattern]!;
    for (let e = 0; e < words; e++) {
      const list = chosen[e]!;
      found[order[e]!] = (pattern & (1 << e)) === 0 ? 0 : (list.uniform ?? list.dense![slot]!);
    }
    return score(slot);
  };
  const blocks = Math.ceil(lengths.length / 32);
  let end = blocks;
  for (let w = 0; w < blocks; w++) {
    const first = w * 32;
    if (lengths[first] !== sumsLength) sumsLength = sumPatterns(chosen, lengths[first]!, avgLength);
    // No document from here on can score more than every word at this length.
    if (sums[all]! < top.threshold) {
      end = w;
      break;
    }
    let m = -1;
    for (let e = 0; e < words; e++) m &= bits[e]![w]!;
    while (m !== 0) {
      const low = m & -m;
      m ^= low;
      const slot = first + 31 - Math.clz32(low);
      if (accept(slot)) top.offer(scoreOf(slot, all), slot);
    }
  }
  if (words === 1) return top.sorted(rows);
  for (let w = 0; w < end; w++) {
    const first = w * 32;
    if (lengths[first] !== sumsLength) sumsLength = sumPatterns(chosen, lengths[first]!, avgLength);
    const threshold = top.threshold;
    let m = 0;
    let every = -1;
    let most = -Infinity;
    for (let e = 0; e < words; e++) {
      blockBits[e] = bits[e]![w]!;
      m |= blockBits[e]!;
      every &= blockBits[e]!;
      if (sums[all ^ (1 << e)]! > most) most = sums[all ^ (1 << e)]!;
    }
    // No document short of every word can enter from here on.
    if (most < threshold) break;
    m &= ~every;
    for (let e = 0; e < words; e++) if (sums[all ^ (1 << e)]! < threshold) m &= blockBits[e]!;
    while (m !== 0) {
      const low = m & -m;
      m ^= low;
      let pattern = 0;
      for (let e = 0; e < words; e++) if ((blockBits[e]! & low) !== 0) pattern |= 1 << e;
      if (sums[pattern]! < top.threshold) continue;
      const slot = first + 31 - Math.clz32(low);
      if (accept(slot)) top.offer(scoreOf(slot, pattern), slot);
    }
  }
  return top.sorted(rows);
}
