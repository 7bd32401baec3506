import { hasScope } from '../../http/access.js';
import { excerpt, markWords, queryStems, wordsHeld } from '../../storage/search/marks.js';
import type { Fusion } from '../search/search.fusion.js';
import type { ProvidedHit, SearchProvider } from '../search/search.provider.js';
import { SEARCH_HIT_TEXT_MAX } from '../search/search.schemas.js';
import type { SearchSource } from '../search/search.source.js';
import type { SkillSummary } from './skills.schemas.js';
import type { SkillsService } from './skills.service.js';

/** Skills get vectors of what an agent would ask for: name, description and category (not the script). */
export const skillsSearchSource: SearchSource = {
  source: 'skill',
  table: 'skills',
  key: 'id',
  columns: ['name', 'description', 'category'],
  text: (row) => [row.name, row.description, row.category].filter((part) => typeof part === 'string' && part.length > 0).join('\n'),
};

/**
 * Skills in the one search for agents (`GET /api/v1/search`, the MCP `search` tool), under the
 * `skills` scope: ranked by the words of name, description and category (the index and weights
 * of `GET /api/v1/skills?q=`, any word), handed to fusion; a hit is the skill's name, its
 * description with the query's words marked, and its slug, which `get_skill` takes.
 */
export function createSkillsSearchProvider(skills: Pick<SkillsService, 'rankByWords' | 'summaries'>, fusion: Fusion): SearchProvider {
  return {
    type: 'skills',
    visibleTo: (principal) => hasScope(principal, 'skills'),
    async search(ownerId, q, limit) {
      const words = await skills.rankByWords(ownerId, q, Math.max(limit, fusion.candidates));
      const known = new Map<string, SkillSummary>(words.map(({ skill }) => [String(skill.id), skill]));
      const ranked = await fusion.rank(
        ownerId,
        'skill',
        q,
        words.map(({ skill, score }) => ({ id: String(skill.id), score })),
        limit,
      );
      // Found by meaning alone: not among the words' hits, read by id (the owner's own only).
      const missing = ranked.filter((item) => !known.has(item.id)).map((item) => Number(item.id)).filter(Number.isSafeInteger);
      for (const skill of await skills.summaries(ownerId, missing)) known.set(String(skill.id), skill);
      const stems = queryStems(q);
      return ranked.flatMap((item): ProvidedHit[] => {
        const skill = known.get(item.id);
        if (!skill) return [];
        // The description is what says what the skill does; a skill without one shows its category.
        const { text, marks, matched } = excerpt(skill.description || skill.category, stems, SEARCH_HIT_TEXT_MAX);
        const hit = { id: String(skill.id), type: 'skills' as const, title: skill.name, text, score: item.score, matched: item.matched, marks, slug: skill.slug };
        return [{ hit, wordsHeld: wordsHeld(matched, markWords(skill.name, stems).matched) }];
      });
    },
  };
}
