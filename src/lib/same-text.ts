import { hash } from 'node:crypto';

/** Text NFKC leaves as it is: every ASCII character is its own compatibility form. */
const ASCII = /^[\x00-\x7f]*$/;

/** Whitespace sameTextForm changes: a run of two, or any but a plain space. */
const SPACES_TO_FOLD = /\s\s|[^\S ]/u;

/** A last character after which sameTextForm may drop trailing punctuation: the punctuation, or a closing quote or bracket. */
const MAY_END_IN_PUNCTUATION = /[.!?\u2026;:,\u3002\uFF01\uFF1F\uFF1B\uFF1A\uFF0C"'\u201D\u2019)\]]$/u;

/**
 * The text two memory entries are compared by to find duplicates (docs/decisions/memory.md,
 * "No duplicates"): what a person reading both would call the same words.
 * - Unicode compatibility form (NFKC): full-width letters, ligatures and composed accents
 *   compare as their plain forms;
 * - lower case (locale-independent);
 * - every run of whitespace (spaces, tabs, line breaks, no-break spaces) as one space, none at
 *   either end;
 * - trailing sentence punctuation dropped (`. ! ? … ; : ,` and their full-width forms, also
 *   after a closing quote or bracket), so "I like tea" and "I like tea." are one fact.
 * Nothing else: words, digits, inner punctuation and markdown stay, so "was" and "is", "2024"
 * and "2025", or a list and a paragraph are different entries.
 */
export function sameTextForm(text: string): string {
  // Most notes are ASCII, and normalizing is the costliest step of a write's key. The two
  // replacements below run only where they would change something: most texts are single-spaced
  // and end in a letter or one full stop, and each replacement copies the text.
  let form = (ASCII.test(text) ? text : text.normalize('NFKC')).toLowerCase();
  if (SPACES_TO_FOLD.test(form)) form = form.replace(/\s+/gu, ' ');
  form = form.trim();
  if (!MAY_END_IN_PUNCTUATION.test(form)) return form;
  // . ! ? … ; : , and their full-width forms, before any closing quotes or brackets.
  return form.replace(/[.!?\u2026;:,\u3002\uFF01\uFF1F\uFF1B\uFF1A\uFF0C]+(?=["'\u201D\u2019)\]]*$)/u, '').trim();
}

/**
 * The key an entry's content is stored under for the unique index of current entries: a hash of
 * `sameTextForm`, so the index stays small whatever the content's length. `v1:` names the
 * normalization, should it ever change.
 */
export function sameTextKey(text: string): string {
  return `v1:${hash('sha256', sameTextForm(text), 'base64url')}`;
}

/**
 * The key of a text written by a token limited to memory tags (`tags`, normalized: no comma, no
 * line break): the tags are part of what is compared, so that the text is matched only with
 * entries written within the same tags (in any order). The `v1t:` prefix keeps these keys apart
 * from every key of an unlimited writer's text; a key made by hashing the tags joined to the
 * text would not be (the tag `work` with "I like tea" compared as the text "Work: I like tea").
 */
export function scopedTextKey(tags: readonly string[], text: string): string {
  const scope = [...tags].sort().join(',');
  return `v1t:${hash('sha256', `${scope}\n${sameTextForm(text)}`, 'base64url')}`;
}
