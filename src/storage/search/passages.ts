/**
 * Splits a document into passages for retrieval: by its Markdown headings, then into runs of a
 * few hundred words that end at a paragraph break where one is near, each overlapping the one
 * before so that a sentence cut at a boundary is whole in one of them. Pure: the knowledge base
 * stores the passages of each document with it (kb_passages, migration 0033) and ranks them.
 *
 * Every passage carries its offsets in UTF-16 code units, such that
 * `text.slice(passage.start, passage.end) === passage.text`, and the path of the headings it sits
 * under. A "word" is a run of non-space characters; a run longer than `maxWordChars` (a base64
 * blob, a URL, a line without spaces) is cut into pieces of that length, never inside a
 * surrogate pair.
 */

export interface Passage {
  text: string;
  start: number;
  end: number;
  /** The titles of the headings above the passage, outermost first; empty before any heading. */
  headings: string[];
}

export interface PassageOptions {
  /** Words a passage aims at. */
  targetWords?: number;
  /** Words a passage holds at most; it ends at the last paragraph break within this, if one is past half the target. */
  maxWords?: number;
  /** Words a passage repeats from the end of the one before it (same section). */
  overlapWords?: number;
  /** Characters in one word at most. */
  maxWordChars?: number;
}

interface Span {
  start: number;
  end: number;
  /** A blank line comes before this word (a paragraph starts here). */
  paragraph: boolean;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+([^\r\n]*?)[ \t#]*\r?$/gm;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The words of text[from, to), long runs cut, each marked when a blank line precedes it. */
function wordsOf(text: string, from: number, to: number, maxWordChars: number): Span[] {
  const spans: Span[] = [];
  const word = /\S+/g;
  word.lastIndex = from;
  let previousEnd = from;
  for (let m = word.exec(text); m && m.index < to; m = word.exec(text)) {
    const end = Math.min(m.index + m[0].length, to);
    const gap = text.slice(previousEnd, m.index);
    let paragraph = spans.length === 0 || /\n[ \t\r]*\n/.test(gap);
    for (let start = m.index; start < end; ) {
      let cut = Math.min(start + maxWordChars, end);
      if (cut < end && isLowSurrogate(text.charCodeAt(cut)) && cut - 1 > start) cut--;
      spans.push({ start, end: cut, paragraph });
      paragraph = false;
      start = cut;
    }
    previousEnd = end;
  }
  return spans;
}

export function splitPassages(text: string, options: PassageOptions = {}): Passage[] {
  const targetWords = Math.max(1, options.targetWords ?? 300);
  const maxWords = Math.max(targetWords, options.maxWords ?? Math.round(targetWords * 1.3));
  const overlapWords = Math.min(Math.max(0, options.overlapWords ?? 40), Math.floor(targetWords / 2));
  const maxWordChars = Math.max(2, options.maxWordChars ?? 200);

  // Sections: from each heading line to the next; the text before the first heading has no path.
  const sections: Array<{ start: number; headings: string[] }> = [{ start: 0, headings: [] }];
  const stack: Array<{ level: number; title: string }> = [];
  for (const m of text.matchAll(HEADING)) {
    const level = m[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, title: m[2]!.trim() });
    sections.push({ start: m.index, headings: stack.map((h) => h.title) });
  }

  const passages: Passage[] = [];
  sections.forEach((section, s) => {
    const to = s + 1 < sections.length ? sections[s + 1]!.start : text.length;
    const words = wordsOf(text, section.start, to, maxWordChars);
    let i = 0;
    while (i < words.length) {
      let j = Math.min(i + targetWords, words.length);
      if (j < words.length) {
        // End at the last paragraph break within maxWords, if it leaves at least half the target.
        for (let k = Math.min(i + maxWords, words.length - 1); k > i + targetWords / 2; k--) {
          if (words[k]!.paragraph) {
            j = k;
            break;
          }
        }
      }
      const start = words[i]!.start;
      const end = words[j - 1]!.end;
      passages.push({ text: text.slice(start, end), start, end, headings: section.headings });
      if (j >= words.length) break;
      i = Math.max(j - overlapWords, i + 1);
    }
  });
  return passages;
}
