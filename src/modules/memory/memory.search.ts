import { hasScope } from '../../http/access.js';
import { excerpt, markWords, queryStems, wordsHeld } from '../../storage/search/marks.js';
import type { Fusion } from '../search/search.fusion.js';
import type { ProvidedHit, SearchProvider } from '../search/search.provider.js';
import { SEARCH_HIT_TEXT_MAX, SEARCH_HIT_TITLE_MAX } from '../search/search.schemas.js';
import type { SearchSource } from '../search/search.source.js';
import type { IndexedEntry } from './memory.repo.js';
import type { MemoryService } from './memory.service.js';

/** Memory entries get vectors of their content. */
export const memorySearchSource: SearchSource = {
  source: 'memory',
  table: 'memory_entries',
  key: 'id',
  columns: ['content'],
  text: (row) => String(row.content ?? ''),
};

/** How many hits more than asked the provider ranks first, so that leaving out entries no longer current most often still fills the answer. */
const SUPERSEDED_MARGIN = 10;
/**
 * The most entries ranked for one answer. Superseded and expired entries, and for a token
 * limited to tags the entries it may not see, are ranked too and left out after; when they took
 * the places, the ranking is asked again for four times as many, up to this.
 */
const RANKED_MAX = 5_000;

/** An entry's title: its first line that is not blank, without a markdown heading's marks, bounded. */
export function firstLineTitle(content: string, max = SEARCH_HIT_TITLE_MAX): string {
  return bounded(firstLine(content), max);
}

function bounded(title: string, max: number): string {
  if (title.length <= max) return title;
  // Never half of a surrogate pair (an emoji's first half alone is not text).
  const end = /[\ud800-\udbff]/.test(title.charAt(max - 2)) ? max - 2 : max - 1;
  return `${title.slice(0, end).trimEnd()}\u2026`;
}

/** An entry's first line that is not blank, trimmed, without a markdown heading's marks. */
function firstLine(content: string): string {
  for (let start = 0; start < content.length; ) {
    const newline = content.indexOf('\n', start);
    const end = newline < 0 ? content.length : newline;
    const line = content.slice(start, end).trim();
    if (line !== '') return line.replace(/^#{1,6}\s+/, '');
    start = end + 1;
  }
  return '';
}

/**
 * Memory in the one search for agents (`GET /api/v1/search`, the MCP `search` tool), under the
 * `memory` scope: the entries' words ranked by the same index as `GET /api/v1/memory?q=` (any
 * word), handed to fusion, and each hit with its entry's text around the query's words. The
 * words index keeps the entries' texts (memory.repo.ts, SEARCH_PAYLOAD): a hit it found is
 * answered from there, and only one it does not hold (found by meaning alone, or an owner too
 * large to keep them) is read.
 */
export function createMemorySearchProvider(memory: Pick<MemoryService, 'rankByWords' | 'hitTexts' | 'visibleIds'>, fusion: Fusion): SearchProvider {
  return {
    type: 'memory',
    visibleTo: (principal) => hasScope(principal, 'memory'),
    async search(ownerId, q, limit, principal) {
      const scope = principal?.memoryTags ?? null;
      // Words only (no candidates for fusion): the top the page needs, a few more for the entries
      // left out below. When those took the places, both rankings are asked again for more (up to
      // RANKED_MAX): a token limited to tags once lost its own entry behind 50 hidden ones, which
      // also told it that many hidden entries held the word, and a current entry was lost behind
      // ten it had replaced.
      let wordsWanted = Math.max(limit, fusion.candidates || limit) + SUPERSEDED_MARGIN;
      let fusedWanted = limit + SUPERSEDED_MARGIN;
      let ranked: Awaited<ReturnType<Fusion['rank']>>;
      let texts: Array<{ id: string; content: string }>;
      for (;;) {
        const words = await memory.rankByWords(ownerId, q, wordsWanted);
        let lexical = words;
        if (scope) {
          // A token limited to tags: the words' hits it may not see are left out before fusion,
          // so that neither they nor their scores (fusion scales by the best one) reach it.
          const visible = await memory.visibleIds(ownerId, lexical, scope);
          lexical = lexical.filter((hit) => visible.has(hit.id));
        }
        ranked = await fusion.rank(ownerId, 'memory', q, lexical, fusedWanted);
        const known = new Map<string, IndexedEntry>();
        for (const hit of lexical) if (hit.entry) known.set(hit.id, hit.entry);
        // Deleted between the ranking and the read, superseded, expired or hidden: left out.
        texts = await memory.hitTexts(ownerId, ranked.map((item) => item.id), known, scope);
        const exhausted = words.length < wordsWanted && ranked.length < fusedWanted;
        if (texts.length >= limit || exhausted || fusedWanted >= RANKED_MAX) break;
        wordsWanted = Math.min(wordsWanted * 4, RANKED_MAX);
        fusedWanted = Math.min(fusedWanted * 4, RANKED_MAX);
      }
      const found = new Map(ranked.map((item) => [item.id, item]));
      const stems = queryStems(q);
      const hits = texts.slice(0, limit).map(({ id, content }): ProvidedHit => {
        const item = found.get(id)!;
        const line = firstLine(content);
        const title = bounded(line, SEARCH_HIT_TITLE_MAX);
        const { text, marks, matched, whole } = excerpt(content, stems, SEARCH_HIT_TEXT_MAX);
        // The title is a line of the text: when neither is cut, the text holds every word the title does.
        const held = whole && title === line ? wordsHeld(matched) : wordsHeld(matched, markWords(title, stems).matched);
        return { hit: { id, type: 'memory', title, text, score: item.score, matched: item.matched, marks }, wordsHeld: held };
      });
      // A limited token is answered its hits' places, not their scores: bm25 weighs a word by how
      // many of the owner's entries hold it and by their lengths, hidden ones included, so a score
      // would tell it how many entries it cannot see say a word (it writes one entry with the
      // word, searches it, and reads the weight). Its order stays the ranking's.
      return scope ? hits.map((provided, place) => ({ ...provided, hit: { ...provided.hit, score: 1 / (place + 1) } })) : hits;
    },
  };
}
