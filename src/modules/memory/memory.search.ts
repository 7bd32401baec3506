import type { SearchSource } from '../search/search.source.js';

/** Memory entries get vectors of their content. */
export const memorySearchSource: SearchSource = {
  source: 'memory',
  table: 'memory_entries',
  key: 'id',
  columns: ['content'],
  text: (row) => String(row.content ?? ''),
};
