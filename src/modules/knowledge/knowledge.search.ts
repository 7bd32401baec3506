import { hasScope } from '../../http/access.js';
import type { MatchMode } from '../../storage/search/full-text.js';
import { markWords, queryStems, wordsHeld } from '../../storage/search/marks.js';
import type { ProvidedHit, SearchProvider } from '../search/search.provider.js';
import type { SearchHit } from '../search/search.schemas.js';
import type { SearchSource } from '../search/search.source.js';
import type { KbPassageHit, KnowledgeService } from './knowledge.service.js';

/**
 * The knowledge base in search: its passages get vectors (the source), and the one search for
 * agents, MCP's search_knowledge and the passages route answer them as hits (the provider).
 */

/** Passages get vectors of what they are about: the document's title, the headings above them, and their text. */
export const knowledgeSearchSource: SearchSource = {
  source: 'knowledge_passage',
  table: 'kb_passages',
  key: 'id',
  columns: ['title', 'heading_path', 'content'],
  text: (row) => {
    let headings: unknown = [];
    try {
      headings = JSON.parse(String(row.heading_path ?? '[]'));
    } catch {
      // Stored by this module as a JSON array; anything else adds no headings.
    }
    const path = Array.isArray(headings) ? headings.filter((h): h is string => typeof h === 'string') : [];
    // The title is left out when the first heading repeats it, as a Markdown document's often does.
    const title = typeof row.title === 'string' && row.title !== path[0] ? [row.title] : [];
    return [...title, ...path, String(row.content ?? '')].filter((part) => part.length > 0).join('\n');
  },
};

/**
 * The longest passage text a hit carries. Passages are a few hundred words; a longer one (words
 * cut from a run without spaces) is answered as a window around its first match, with the
 * window's own offsets, so that the text is always the document's text between them.
 */
export const MAX_HIT_TEXT = 4_000;

/** Never start or end a window inside a surrogate pair. */
function wholeCharacters(text: string, start: number, end: number): [number, number] {
  const low = (at: number) => {
    const code = text.charCodeAt(at);
    return code >= 0xdc00 && code <= 0xdfff;
  };
  return [start > 0 && low(start) ? start - 1 : start, end < text.length && low(end) ? end - 1 : end];
}

/**
 * A passage as a search hit: its text bounded, its offsets those of that text, its matching words
 * marked by the ranker's rule (`stems` from queryStems, made once per query: marks.ts), and how
 * many of them its title and text hold.
 */
export function passageHit(hit: KbPassageHit, stems: readonly string[]): ProvidedHit {
  let { text, start, end } = hit;
  let { marks, matched } = markWords(text, stems);
  if (text.length > MAX_HIT_TEXT) {
    // From a little before the first match, so that it is read in its sentence.
    const begin = Math.max(0, Math.min((marks[0]?.[0] ?? 0) - 200, text.length - MAX_HIT_TEXT));
    const [from, until] = wholeCharacters(text, begin, begin + MAX_HIT_TEXT);
    text = text.slice(from, until);
    start = hit.start + from;
    end = hit.start + until;
    marks = marks.filter(([a, b]) => a >= from && b <= until).map(([a, b]) => [a - from, b - from]);
    // A word cut at either end of the window may hold another stem than it did whole.
    matched = markWords(text, stems).matched;
  }
  return {
    hit: {
      id: hit.id,
      type: 'knowledge',
      title: hit.title,
      text,
      score: hit.score,
      matched: hit.matched,
      marks,
      document: { id: hit.documentId, title: hit.title, headingPath: hit.headingPath, start, end },
    },
    wordsHeld: wordsHeld(matched, markWords(hit.title, stems).matched),
  };
}

/** The best passages for `q` as search hits, with the words each holds. */
async function providedPassages(knowledge: Pick<KnowledgeService, 'searchPassages'>, ownerId: string, q: string, limit: number, mode: MatchMode = 'any'): Promise<ProvidedHit[]> {
  const hits = await knowledge.searchPassages(ownerId, q, { limit, mode });
  const stems = queryStems(q);
  return hits.map((hit) => passageHit(hit, stems));
}

/** The best passages for `q` as search hits. */
export async function searchPassageHits(knowledge: Pick<KnowledgeService, 'searchPassages'>, ownerId: string, q: string, limit: number, mode: MatchMode = 'any'): Promise<SearchHit[]> {
  return (await providedPassages(knowledge, ownerId, q, limit, mode)).map((provided) => provided.hit);
}

/** The knowledge base's part of the one search for agents: passages, for tokens holding `knowledge`. */
export function createKnowledgeSearchProvider(knowledge: Pick<KnowledgeService, 'searchPassages'>): SearchProvider {
  return {
    type: 'knowledge',
    visibleTo: (principal) => hasScope(principal, 'knowledge'),
    search: (ownerId, q, limit) => providedPassages(knowledge, ownerId, q, limit),
  };
}
