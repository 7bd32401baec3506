import type { Schemas } from '../api/client';
import { markSpans, type Marks } from './marks';

type Hit = Schemas['SearchHit'];

/** What the console shows of any search hit, whichever the page. */
export type ShownHit = Omit<Hit, 'marks'> & { marks: Marks };

/**
 * A hit's text with the words that matched the search in <mark>. The text is rendered as text
 * (React escapes it), never as HTML, so markup inside a memory entry or a document shows as the
 * characters it is.
 */
export function MarkedText({ text, marks }: { text: string; marks: Marks }) {
  const parts: Array<string | { marked: string; at: number }> = [];
  let at = 0;
  for (const [start, end] of markSpans(marks, text.length)) {
    if (start > at) parts.push(text.slice(at, start));
    parts.push({ marked: text.slice(start, end), at: start });
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts.map((part, index) => (typeof part === 'string' ? part : <mark key={`${part.at}-${index}`}>{part.marked}</mark>))}</>;
}

const MATCHED_BY: Record<Hit['matched'], { label: string; why: string } | undefined> = {
  // Words are visible already: they are marked in the text.
  words: undefined,
  meaning: { label: 'Matched by meaning', why: 'None of the words searched for is in it; it was found because it is close in meaning.' },
  both: { label: 'Matched by words and meaning', why: 'It holds words searched for and is close in meaning as well.' },
};

/** Says that a hit was found by its meaning (alone or with its words); nothing for words alone, which the marks show. */
export function MatchedBy({ matched }: { matched: Hit['matched'] }) {
  const shown = MATCHED_BY[matched];
  if (!shown) return null;
  return (
    <span className={`tag matched-${matched}`} title={shown.why}>
      {shown.label}
    </span>
  );
}
