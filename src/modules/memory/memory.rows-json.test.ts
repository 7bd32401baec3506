import { describe, expect, it } from 'vitest';
import { rowsJson } from './memory.rows-json.js';
import type { MemoryEntriesTable } from './memory.tables.js';

const author = (token: string) => JSON.stringify({ token: { id: token, name: 'Agent "one" \\ two', kind: 'api' }, agent: null });

function note(i: number, overrides: Partial<MemoryEntriesTable> = {}): MemoryEntriesTable {
  return {
    id: `mem_${String(i).padStart(26, '0')}`,
    owner_id: 'usr_a',
    content: `Note ${i}: "quoted", back\\slash, line\nbreak, tab\t, é 😀 \u2028 end`,
    created_at: '2026-11-30T03:39:11.697Z',
    updated_at: '2026-11-30T03:39:11.697Z',
    author_token_id: 'tok_a',
    channel: 'api',
    author: author('tok_a'),
    editor: null,
    source: null,
    kind: 'note',
    tags: '[]',
    pinned: 0,
    valid_from: null,
    valid_until: null,
    supersedes: '[]',
    superseded_by: null,
    superseded_at: null,
    pin_order: null,
    content_key: `v1:key${i}`,
    seen_count: 1,
    last_seen_at: null,
    last_seen_by: null,
    ...overrides,
  };
}

/** What json_to_recordset reads of each column: the key's value, or NULL where the key is missing. */
function readBack(json: string, columns: readonly string[]): Array<Record<string, unknown>> {
  return (JSON.parse(json) as Array<Record<string, unknown>>).map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
}

describe('rowsJson', () => {
  const columns = Object.keys(note(0));

  it('reads back every column of every row as the row holds it: plain notes of several writers, and rows that are not', () => {
    const rows = [
      note(1),
      note(2, { owner_id: 'usr_b', author_token_id: 'tok_b', author: author('tok_b') }),
      note(3, { channel: 'mcp' }),
      note(4, { kind: 'fact', tags: '["work"]', pinned: 1, pin_order: 2 }),
      note(5, { source: JSON.stringify({ kind: 'url', ref: 'https://example.com/?a="b"' }), valid_from: '2026-01-01T00:00:00.000Z', valid_until: '2027-01-01T00:00:00.000Z' }),
      note(6, { supersedes: '["mem_1"]' }),
      note(7, { author: null, author_token_id: null, channel: 'import' }),
      note(8, { content_key: null, created_at: '2020-05-05T00:00:00.000Z' }),
      note(9),
      note(10, { seen_count: 3, last_seen_at: '2026-11-30T04:00:00.000Z', last_seen_by: author('tok_b'), editor: author('tok_b') }),
    ];
    expect(readBack(rowsJson(rows), columns)).toEqual(rows);
    // Twice: the second time from the writers' kept parts.
    expect(readBack(rowsJson(rows), columns)).toEqual(rows);
    expect(rowsJson([])).toBe('[]');
  });

  it('stays right past the bound of kept parts, which it empties and fills again', () => {
    const rows = Array.from({ length: 10_050 }, (_, i) => note(i, { owner_id: `usr_${i}` }));
    for (let start = 0; start < rows.length; start += 500) {
      const slice = rows.slice(start, start + 500);
      expect(readBack(rowsJson(slice), columns)).toEqual(slice);
    }
    expect(readBack(rowsJson(rows.slice(0, 3)), columns)).toEqual(rows.slice(0, 3));
  });
});
