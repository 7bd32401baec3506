/**
 * Tokens of text as a language model's tokenizer would count them, estimated without one: a
 * quarter token per ASCII character, one per other character (a surrogate pair is one). BPE
 * tokenizers give English about four characters a token and CJK text about one, so the estimate
 * is close for both and on the safe side for most other scripts; no tokenizer is bundled.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) ascii++;
    // The low half of a surrogate pair was counted with its high half.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/**
 * The estimate for a value as JSON (what an agent puts into its prompt). Adding the estimates of
 * the parts of a text never gives less than the estimate of the whole (each part rounds up), so a
 * sum of parts is a safe bound.
 */
export function estimateJsonTokens(value: unknown): number {
  return estimateTokens(JSON.stringify(value) ?? '');
}
