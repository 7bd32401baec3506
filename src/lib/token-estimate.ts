/**
 * Tokens of text as a language model's tokenizer would count them, estimated without one (none is
 * bundled). Modelled on how byte-pair tokenizers (GPT's, Llama's) cut text:
 * - a run of ASCII letters is about one token per four letters ("flights" 2, "epinephrine" 3);
 * - a run of digits, one token per three digits (they split numbers into groups of up to three);
 * - a space before a word joins that word's token; other whitespace, one token per four;
 * - a run of other ASCII characters (quotes, colons, commas, slashes, braces), one token per
 *   two (tokenizers merge the common pairs of JSON, `":"`, `","`, into one);
 * - every other character one token (CJK text is about one a character; most other scripts
 *   take one or more a character), the second half of a surrogate pair nothing.
 * Prose comes out close to a quarter token per character. Ids and timestamps, which tokenizers
 * cut into many short pieces, come out at two or three times that, as they do in practice:
 * `2026-11-29T08:39:23.141Z` is 15, each number, letter and mark a token, much as GPT's
 * tokenizers cut it.
 *
 * Every count rounds up per run, so the estimate of a text is never more than the sum of its
 * parts' estimates, wherever it is cut: a JSON answer can be counted item by item, safely.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let run = 0;
  /** What the current run is: 0 none, 1 letters, 2 digits, 3 whitespace, 4 other ASCII. */
  let kind = 0;
  const close = () => {
    if (kind === 1) tokens += Math.ceil(run / 4);
    else if (kind === 2) tokens += Math.ceil(run / 3);
    // A single space joins the word after it; longer whitespace is a token per four.
    else if (kind === 3) tokens += Math.ceil((run - 1) / 4);
    else if (kind === 4) tokens += Math.ceil(run / 2);
    run = 0;
    kind = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const next =
      (code >= 65 && code <= 90) || (code >= 97 && code <= 122) ? 1
      : code >= 48 && code <= 57 ? 2
      : code === 32 || code === 9 || code === 10 || code === 13 ? 3
      : code < 128 ? 4
      : 0;
    if (next !== 0) {
      if (next !== kind) close();
      kind = next;
      run++;
      continue;
    }
    close();
    // The low half of a surrogate pair was counted with its high half.
    if (code < 0xdc00 || code > 0xdfff) tokens++;
  }
  close();
  return tokens;
}

/** The estimate for a value as JSON (what an agent puts into its prompt). */
export function estimateJsonTokens(value: unknown): number {
  return estimateTokens(JSON.stringify(value) ?? '');
}
