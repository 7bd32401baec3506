import { porterStem } from './stemmer.js';
import { searchTerms, tokenize } from './tokenizer.js';

/**
 * Where a text holds the words of a query, by the ranker's own rule (ranker.ts): the text is cut
 * as the index cuts documents (tokenize), each word stemmed (Porter), and a word matches a query
 * word whose stem is a prefix of its stem. So a span marked here is a word the ranking counted,
 * and a hit found by its words shows them marked.
 *
 * Offsets are the text's own (UTF-16 code units, [start, end)), not those of the lower-cased,
 * diacritics-folded copy the tokenizer reads: each run of letters, digits and combining marks of
 * the text is tokenized on its own, so folding never shifts an offset.
 */

/** A run of what the tokenizer keeps (letters, digits, private use) with combining marks, which it folds away. */
const RUN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

/**
 * A query's stems, as the ranker resolves them: one per distinct search term, in the query's
 * order. The last query's are kept: one search asks for them once per kind and once to merge
 * the kinds (the array answered is shared: read it, never change it).
 */
export function queryStems(q: string): readonly string[] {
  if (q === lastQuery) return lastStems;
  const stems: string[] = [];
  for (const term of searchTerms(q)) {
    const tokens = tokenize(term);
    // searchTerms answers single tokens; a term that is not one matches nothing (the ranker asks the database then).
    if (tokens.length === 1) stems.push(stemOf(tokens[0]!));
  }
  lastQuery = q;
  lastStems = [...new Set(stems)];
  return lastStems;
}

let lastQuery: string | undefined;
let lastStems: readonly string[] = [];

export interface WordMarks {
  /** Spans of the text that match a query word, in order, [start, end). */
  marks: Array<[number, number]>;
  /** For each query stem (queryStems' order), whether the text holds it. */
  matched: boolean[];
}

/**
 * Stems of the words marked lately: every hit of an answer is stemmed word by word, and the same
 * words recur across hits and answers, so stemming them again cost an answer more than ranking it.
 * Bounded: emptied when full (a stem is a pure function of its word).
 */
const stemCache = new Map<string, string>();
const STEMS_KEPT = 50_000;

function stemOf(token: string): string {
  let stem = stemCache.get(token);
  if (stem === undefined) {
    if (stemCache.size >= STEMS_KEPT) stemCache.clear();
    stem = porterStem(token);
    stemCache.set(token, stem);
  }
  return stem;
}

/** Spans marked at most in one text: a long entry of one repeated word cannot make a long answer. */
const MAX_MARKS = 1_000;

/**
 * Stems by the word as the text spells it (case kept), for the ASCII words of `markWords`' fast
 * path: the same words recur across the hits of an answer and across answers, and a lookup by
 * the text's own slice saves lower-casing it first. Bounded as `stemCache`.
 */
const spelledStems = new Map<string, string>();

function stemOfSpelled(word: string): string {
  let stem = spelledStems.get(word);
  if (stem === undefined) {
    if (spelledStems.size >= STEMS_KEPT) spelledStems.clear();
    stem = stemOf(word.toLowerCase());
    spelledStems.set(word, stem);
  }
  return stem;
}

/** Whether an ASCII code is a letter or a digit: what a run of ASCII text is made of (RUN). */
function isAsciiWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/**
 * The ASCII letters and digits query stems begin with, as bits: a to z in the low 26 bits, any
 * digit the next (a word beginning with a digit is looked at whenever a stem does). Porter's rules only ever change a word's ending and never leave a stem empty
 * (stemmer.ts), so a word's stem begins with the word's own first letter: a word whose first
 * letter begins no query stem cannot match one, and is neither stemmed nor looked up.
 */
function asciiFirsts(stems: readonly string[]): number {
  let firsts = 0;
  for (const stem of stems) firsts |= firstBit(stem.charCodeAt(0));
  return firsts;
}

/** The bit of an ASCII letter (either case) or digit in asciiFirsts' set; 0 for any other code. */
function firstBit(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 65 && code <= 90) return 1 << (code - 65);
  if (code >= 48 && code <= 57) return 1 << 26;
  return 0;
}

/** Where `text` holds the query's words (`stems` from queryStems). */
export function markWords(text: string, stems: readonly string[]): WordMarks {
  if (stems.length > 0 && text.length >= TABLE_MIN_CHARS) {
    const table = wordTableOf(text);
    const marked = table && markByTable(table, stems);
    if (marked) return marked;
  }
  return scanWords(text, stems);
}

/** markWords read code by code (the rule itself, for any text). */
function scanWords(text: string, stems: readonly string[]): WordMarks {
  const marks: Array<[number, number]> = [];
  const matched = stems.map(() => false);
  if (stems.length === 0) return { marks, matched };
  const firsts = asciiFirsts(stems);
  // Most text is ASCII: a run is then letters and digits, one token, its stem the lower-cased
  // run's. Read code by code, without a regular expression's match arrays; the first character
  // past ASCII hands the whole text to the general rule below.
  const n = text.length;
  for (let i = 0; i < n; ) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return markRuns(text, stems);
    if (!isAsciiWordCode(code)) {
      i++;
      continue;
    }
    const start = i;
    let next = text.charCodeAt(++i);
    while (i < n && isAsciiWordCode(next)) next = text.charCodeAt(++i);
    if (i < n && next >= 0x80) return markRuns(text, stems);
    if ((firsts & firstBit(code)) === 0) continue;
    const stem = stemOfSpelled(text.slice(start, i));
    let hit = false;
    for (let k = 0; k < stems.length; k++) {
      if (stem.startsWith(stems[k]!)) {
        matched[k] = true;
        hit = true;
      }
    }
    if (hit) {
      marks.push([start, i]);
      if (marks.length >= MAX_MARKS) break;
    }
  }
  return { marks, matched };
}

/**
 * The words of a long ASCII text by their stems, so that marking it again costs a lookup per
 * query stem instead of a read of every word: the same passages and long notes are answered
 * question after question (a passage of a few hundred words took a search more time to mark
 * than to rank). Offsets fit 16 bits (TABLE_MAX_CHARS).
 */
interface WordTable {
  /** The text's distinct stems, sorted, so that a query stem's prefix range is found by bisection. */
  stems: string[];
  /**
   * One array, so that a table is one allocation: from 0, where each stem's words begin (stem
   * g's are pairs `spans[g]` up to `spans[g + 1]`); from `stems.length + 1`, the words as pairs
   * [start, end) of the text, grouped by stem, each group in the text's order.
   */
  spans: Uint16Array;
  /** Bytes held, about. */
  cost: number;
}

/** Texts shorter than this are read each time (a table would cost more than it saves); longer than the other, too (16-bit offsets). */
const TABLE_MIN_CHARS = 128;
const TABLE_MAX_CHARS = 65_535;
/**
 * The bytes all tables hold together, about, with their texts (some 1.2 KB a passage of 60
 * words, 6 KB one of a few hundred; the bench's 1,118 passages of a hundred documents take about
 * 1.6 MB). Null marks a text that is not ASCII (marked by the general rule, markRuns).
 */
const TABLES_MAX_BYTES = 2 * 1024 * 1024;
const tables = new Map<string, WordTable | null>();
let tablesBytes = 0;
/** Texts scanned since the tables filled up. */
let missesWhenFull = 0;

function wordTableOf(text: string): WordTable | null | undefined {
  if (text.length > TABLE_MAX_CHARS) return undefined;
  let table = tables.get(text);
  if (table !== undefined) return table;
  if (tablesBytes >= TABLES_MAX_BYTES) {
    // Full: the text is scanned, as it would be without tables (building one to drop another
    // would cost more than scanning). Once as many texts have missed as are held, the held ones
    // are mostly not what is asked any more (texts since edited, or more texts than fit): all
    // are dropped and the tables fill again.
    if (++missesWhenFull < tables.size) return undefined;
    tables.clear();
    tablesBytes = 0;
    missesWhenFull = 0;
  }
  table = buildWordTable(text);
  tables.set(text, table);
  // The text is held as the key (a byte a character when ASCII).
  tablesBytes += (table?.cost ?? 0) + 64 + text.length;
  return table;
}

/** The text's words by stem, as scanWords reads them; null when the text is not ASCII. */
function buildWordTable(text: string): WordTable | null {
  const starts: number[] = [];
  const ends: number[] = [];
  const stemOfWord: string[] = [];
  const n = text.length;
  for (let i = 0; i < n; ) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return null;
    if (!isAsciiWordCode(code)) {
      i++;
      continue;
    }
    const start = i;
    let next = text.charCodeAt(++i);
    while (i < n && isAsciiWordCode(next)) next = text.charCodeAt(++i);
    if (i < n && next >= 0x80) return null;
    starts.push(start);
    ends.push(i);
    stemOfWord.push(stemOfSpelled(text.slice(start, i)));
  }
  const byStem = new Map<string, number[]>();
  for (let t = 0; t < stemOfWord.length; t++) {
    const stem = stemOfWord[t]!;
    const group = byStem.get(stem);
    if (group) group.push(t);
    else byStem.set(stem, [t]);
  }
  const stems = [...byStem.keys()].sort();
  const d = stems.length;
  const spans = new Uint16Array(d + 1 + 2 * stemOfWord.length);
  let pair = 0;
  for (let g = 0; g < d; g++) {
    spans[g] = pair;
    for (const t of byStem.get(stems[g]!)!) {
      spans[d + 1 + 2 * pair] = starts[t]!;
      spans[d + 2 + 2 * pair] = ends[t]!;
      pair++;
    }
  }
  spans[d] = pair;
  return { stems, spans, cost: 256 + d * 10 + stemOfWord.length * 4 };
}

function lowerBound(sorted: readonly string[], prefix: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * scanWords' answer from a text's table: each query stem's words are those whose stem it
 * prefixes, a range of the sorted stems. Undefined when the marks reach MAX_MARKS, where the
 * scan stops early (and with it what `matched` says): the scan answers that text.
 */
function markByTable(table: WordTable, stems: readonly string[]): WordMarks | undefined {
  const matched = stems.map(() => false);
  // Each word as start × 65,536 + end: ordered by where it starts, as the scan finds them.
  const hits: number[] = [];
  const { stems: sorted, spans } = table;
  const base = sorted.length + 1;
  let ranges = 0;
  for (let k = 0; k < stems.length; k++) {
    const stem = stems[k]!;
    for (let g = lowerBound(sorted, stem); g < sorted.length && sorted[g]!.startsWith(stem); g++) {
      matched[k] = true;
      ranges++;
      for (let p = spans[g]!; p < spans[g + 1]!; p++) hits.push(spans[base + 2 * p]! * 65_536 + spans[base + 2 * p + 1]!);
    }
  }
  // Words of several stems, or of a stem two query stems prefix, come in several groups.
  if (ranges > 1) {
    hits.sort((a, b) => a - b);
    let kept = 0;
    for (let i = 0; i < hits.length; i++) if (i === 0 || hits[i] !== hits[i - 1]) hits[kept++] = hits[i]!;
    hits.length = kept;
  }
  if (hits.length >= MAX_MARKS) return undefined;
  const marks = new Array<[number, number]>(hits.length);
  for (let i = 0; i < hits.length; i++) marks[i] = [Math.floor(hits[i]! / 65_536), hits[i]! % 65_536];
  return { marks, matched };
}

/** markWords for any text: each run of letters, digits and combining marks tokenized on its own. */
function markRuns(text: string, stems: readonly string[]): WordMarks {
  const marks: Array<[number, number]> = [];
  const matched = stems.map(() => false);
  for (const run of text.matchAll(RUN)) {
    const start = run.index;
    const tokens = tokenize(run[0]);
    let hit = false;
    for (const token of tokens) {
      const stem = stemOf(token);
      for (let i = 0; i < stems.length; i++) {
        if (stem.startsWith(stems[i]!)) {
          matched[i] = true;
          hit = true;
        }
      }
    }
    if (hit) {
      marks.push([start, start + run[0].length]);
      if (marks.length >= MAX_MARKS) break;
    }
  }
  return { marks, matched };
}

/**
 * How many of the query's stems the texts hold together, from each text's `matched` (markWords):
 * a word is marked within its run of letters, so what `${a}\n${b}` holds is what a or b holds.
 */
export function wordsHeld(...matched: ReadonlyArray<readonly boolean[]>): number {
  let held = 0;
  for (let i = 0; i < (matched[0]?.length ?? 0); i++) if (matched.some((m) => m[i])) held++;
  return held;
}

export interface Excerpt {
  /** The text, or the part of it around the query's words, at most `maxChars` (plus an ellipsis at a cut end). */
  text: string;
  /** Spans of `text` that match a query word, [start, end). */
  marks: Array<[number, number]>;
  /** For each query stem, whether `text` (the excerpt, as answered) holds it. */
  matched: boolean[];
  /** Whether `text` is the whole text given. */
  whole: boolean;
}

const ELLIPSIS = '\u2026';

/**
 * The part of `text` an answer shows: all of it when short enough; else the `maxChars` window
 * holding the most distinct query words (then the most marks), widened to whole words, with an
 * ellipsis where it was cut, and the marks inside it.
 */
export function excerpt(text: string, stems: readonly string[], maxChars: number): Excerpt {
  const { marks, matched } = markWords(text, stems);
  if (text.length <= maxChars) return { text, marks, matched, whole: true };
  const start = bestWindowStart(text, marks, stems, maxChars);
  let from = start;
  // Whole words: start after a space shortly before, end at a space shortly before the bound.
  if (from > 0) {
    const space = text.lastIndexOf(' ', from);
    if (space >= 0 && from - space < 40) from = space + 1;
  }
  let to = Math.min(text.length, from + maxChars);
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space > from && to - space < 40) to = space;
  }
  // Never cut a surrogate pair in two, nor a letter from its accents (a combining mark left at
  // the start would sit on the ellipsis).
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from++;
  while (from > 0 && from < to && COMBINING.test(text.charAt(from))) from++;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to--;
  if (to < text.length && COMBINING.test(text.charAt(to))) {
    while (to > from && COMBINING.test(text.charAt(to))) to--;
  }
  const head = from > 0 ? ELLIPSIS : '';
  const tail = to < text.length ? ELLIPSIS : '';
  const shift = head.length - from;
  const inside = marks.filter(([s, e]) => s >= from && e <= to).map(([s, e]): [number, number] => [s + shift, e + shift]);
  const cut = head + text.slice(from, to) + tail;
  // A word cut at either end may hold another stem than it did whole: the cut text's own.
  return { text: cut, marks: inside, matched: markWords(cut, stems).matched, whole: false };
}

/**
 * Where the `width` characters of `text` that an excerpt would show start: before the window
 * holding the most distinct query words (then the most marks), with some words before the
 * first of them; 0 when none is in the text. For callers that cut their own excerpt.
 */
export function excerptStart(text: string, stems: readonly string[], width: number): number {
  return bestWindowStart(text, markWords(text, stems).marks, stems, width);
}

/** A combining mark of the Basic Multilingual Plane (an accent written after its letter). */
const COMBINING = /\p{M}/u;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Where the window of `width` holding the most distinct query words starts (two pointers over the marks). */
function bestWindowStart(text: string, marks: ReadonlyArray<[number, number]>, stems: readonly string[], width: number): number {
  if (marks.length === 0) return 0;
  // Which stems each mark holds (a word may match several).
  const holds = marks.map(([s, e]) => markWords(text.slice(s, e), stems).matched);
  const counts = new Array<number>(stems.length).fill(0);
  let distinct = 0;
  let best = { distinct: -1, marks: -1, start: 0 };
  let left = 0;
  for (let right = 0; right < marks.length; right++) {
    holds[right]!.forEach((has, i) => {
      if (!has) return;
      if (counts[i] === 0) distinct++;
      counts[i] = counts[i]! + 1;
    });
    while (marks[right]![1] - marks[left]![0] > width) {
      holds[left]!.forEach((has, i) => {
        if (!has) return;
        counts[i] = counts[i]! - 1;
        if (counts[i] === 0) distinct--;
      });
      left++;
    }
    const inWindow = right - left + 1;
    if (distinct > best.distinct || (distinct === best.distinct && inWindow > best.marks)) best = { distinct, marks: inWindow, start: marks[left]![0] };
  }
  // Some words of context before the first mark, as far as the window allows.
  const span = marks.reduce((end, [, e]) => (e <= best.start + width ? Math.max(end, e) : end), best.start) - best.start;
  const before = Math.min(best.start, Math.max(0, Math.floor((width - span) / 3)));
  return Math.max(0, Math.min(best.start - before, text.length - width));
}
