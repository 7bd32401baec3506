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
 * Whether `text` has more than `max` opening brackets (`{` or `[`, strings not told apart).
 * indexOf runs natively, far faster than a loop over every character in JavaScript.
 */
export function openingsExceed(text: string, max: number): boolean {
  let count = 0;
  for (const open of ['{', '[']) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) {
      if (++count > max) return true;
    }
  }
  return false;
}

/**
 * Whether `text`, read as JSON, nests arrays and objects deeper than `max`. Nesting deeper than
 * `max` needs more than `max` opening brackets, so text with fewer (almost every body) is
 * cleared by a native count. Otherwise one linear pass counts brackets outside strings: it
 * cannot itself recurse. Malformed text is judged only by its brackets; the parser then
 * refuses it for what it is.
 */
export function jsonNestingExceeds(text: string, max: number = MAX_JSON_DEPTH): boolean {
  if (!openingsExceed(text, max)) return false;
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
