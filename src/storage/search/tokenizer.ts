/**
 * Words as the full-text index cuts them: SQLite's FTS5 `unicode61 remove_diacritics 2`
 * tokenizer, lower-cased, so that the in-memory index (owner-index.ts) and FTS5 see the same
 * tokens; each is then stemmed with Porter's algorithm (stemmer.ts), as FTS5's `porter` does.
 */

const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING = /\p{M}+/gu;
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** Words of a text as FTS5's unicode61 tokenizer with remove_diacritics 2 cuts them, lower-cased. */
export function tokenize(text: string): string[] {
  let t = text.toLowerCase();
  if (NON_ASCII.test(t)) t = t.normalize('NFD').replace(COMBINING, '');
  return t.match(TOKEN) ?? [];
}

/** Words of a free-text query, as the engines' tokenizers see them; at most 32. */
export function queryTerms(q: string): string[] {
  const words = q.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words)].slice(0, 32);
}

/**
 * English function words a ranked query leaves out: they carry no subject, and as prefixes
 * ("a"*, "i"*, "s"* from "Emma's") they would match most of an owner's words. The pieces the
 * tokenizer cuts contractions into ("don't" → "don", "t") are here too. English only: the
 * stemmer is English's, and a word of another language is never dropped (docs/decisions/search.md).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren as at be because been before being below
  between both but by can cannot could couldn d did didn do does doesn doing don down during each few for
  from further had hadn has hasn have haven having he her here hers herself him himself his how i if in
  into is isn it its itself just ll m me more most mustn my myself no nor not now of off on once only or
  other our ours ourselves out over own re s same shan she should shouldn so some such t than that the
  their theirs them themselves then there these they this those through to too under until up ve very
  was wasn we were weren what when where which while who whom why will with won would wouldn you your
  yours yourself yourselves`
    .trim()
    .split(/\s+/),
);

/** A query's characters read at most: the rest is ignored (routes bound `q` below this). */
export const MAX_QUERY_CHARS = 1_000;
/** A query's distinct words ranked at most, in the order they come. */
export const MAX_QUERY_TERMS = 32;

/**
 * The words a ranked search looks for: the query cut as documents are cut (tokenize), each once,
 * stop words left out, at most MAX_QUERY_TERMS. A query of stop words only ("who are you") keeps
 * them: matching those words answers better than nothing.
 */
export function searchTerms(q: string): string[] {
  const words = [...new Set(tokenize(q.length > MAX_QUERY_CHARS ? q.slice(0, MAX_QUERY_CHARS) : q))];
  const content = words.filter((word) => !STOP_WORDS.has(word));
  return (content.length > 0 ? content : words).slice(0, MAX_QUERY_TERMS);
}
