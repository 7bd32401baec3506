import type { SearchSource } from '../search/search.source.js';

/** Skills get vectors of what an agent would ask for: name, description and category (not the script). */
export const skillsSearchSource: SearchSource = {
  source: 'skill',
  table: 'skills',
  key: 'id',
  columns: ['name', 'description', 'category'],
  text: (row) => [row.name, row.description, row.category].filter((part) => typeof part === 'string' && part.length > 0).join('\n'),
};
