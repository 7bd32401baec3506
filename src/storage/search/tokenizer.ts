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
