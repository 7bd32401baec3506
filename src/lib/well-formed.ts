/**
 * `text` with each lone surrogate (half of a UTF-16 pair without its other half, which JSON
 * escapes such as `"\ud800"` can carry) replaced by U+FFFD. That is what both databases store
 * of such text anyway, as every UTF-8 encoder writes it; doing it before the text is kept makes
 * the answer show what is stored, and lets text go on as JSON to PostgreSQL, whose JSON reader
 * refuses a lone surrogate's escape. `String.prototype.toWellFormed` (Node 20; typed from ES2024).
 */
export function wellFormed(text: string): string {
  const unicode = text as unknown as { isWellFormed(): boolean; toWellFormed(): string };
  return unicode.isWellFormed() ? text : unicode.toWellFormed();
}
