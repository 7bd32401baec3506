/**
 * The other tool's words as an import's answer repeats them: a Letta block's label, an agent's or
 * an entity's name, an id, a path. They are outside input of any length, and one of them can be
 * named many times in one file (an agent's `block_ids` naming one block hundreds of times): a
 * 2 MB label quoted in 200 skipped lines was a 400 MB answer, and at 3 MB a string too long to
 * make (a 500). So every such word is cut before it is put into a message.
 */

/** The most characters of one of the other tool's words that a skipped line's `where` or `reason` repeats. */
export const ECHO_MAX = 100;

const ELLIPSIS = '\u2026';

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * `text` cut to at most `max` UTF-16 units, `mark` (an ellipsis) saying it was, on a whole
 * character: never between the two halves of a surrogate pair, which would leave half a
 * character (shown as U+FFFD, or refused by PostgreSQL's JSON reader). Costs the length of the
 * part kept, whatever the length of the text.
 */
export function clip(text: string, max: number, mark = ELLIPSIS): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - mark.length);
  if (end > 0 && isHigh(text.charCodeAt(end - 1))) end--;
  return `${text.slice(0, end)}${mark}`;
}

/**
 * A path or file name cut in its middle, so that what names the file (its name, its extension)
 * stays readable: `vault/Projects/…/Tea.md`. On whole characters, as `clip`.
 */
export function clipPath(path: string, max = ECHO_MAX): string {
  if (path.length <= max) return path;
  let head = Math.floor((max - ELLIPSIS.length) * 0.4);
  if (head > 0 && isHigh(path.charCodeAt(head - 1))) head--;
  let tail = path.length - (max - ELLIPSIS.length - head);
  if (tail < path.length && isLow(path.charCodeAt(tail)) && isHigh(path.charCodeAt(tail - 1))) tail++;
  return `${path.slice(0, head)}${ELLIPSIS}${path.slice(tail)}`;
}

/** One of the other tool's words, quoted in a message: at most ECHO_MAX characters. */
export const echo = (text: string): string => clip(text, ECHO_MAX);
