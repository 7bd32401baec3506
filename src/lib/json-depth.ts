/**
 * The deepest nesting of arrays and objects a JSON body may have. Deeper values parse, but
 * everything that walks them recursively afterwards (JSON.stringify when a body is forwarded or
 * answered, schema validation, merges) can overflow the stack and answer 500. No API body
 * needs more than a few levels; 64 leaves room for any real document.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether `text`, read as JSON, nests arrays and objects deeper than `max`. One linear pass
 * that counts brackets outside strings, so it costs far less than the parse it guards and
 * cannot itself recurse. Malformed text is judged only by its brackets; the parser then
 * refuses it for what it is.
 */
export function jsonNestingExceeds(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
