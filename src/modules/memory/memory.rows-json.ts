/**
 * New memory entries as the JSON that PostgreSQL's batched INSERT reads (`json_to_recordset`, see
 * memory.repo.ts). JSON.stringify of a whole row writes 24 keys and escapes the author's JSON
 * text again for every row, about a microsecond a row; most rows of a batch are plain notes by a
 * few writers, whose columns but the text, its key, the id and the times are the same from row
 * to row. Those columns are written once per writer and reused; a key left out is read as NULL,
 * so only columns that are not null are written. Any other row is written whole.
 */
import type { MemoryEntriesTable } from './memory.tables.js';

/** Writers' kept parts; the cache is emptied whole when it reaches this many (it holds a few per writer). */
const KEPT_PARTS_MAX = 10_000;

/** The parts kept, by author text, then channel, then owner: each string the same object from row to row. */
const keptParts = new Map<string, Map<string, Map<string, string>>>();
let keptCount = 0;

/** Whether every column but those a note varies by holds what a new plain note holds. */
function isPlainNote(row: MemoryEntriesTable): boolean {
  return (
    row.kind === 'note' &&
    row.tags === '[]' &&
    row.pinned === 0 &&
    row.seen_count === 1 &&
    row.supersedes === '[]' &&
    row.source === null &&
    row.editor === null &&
    row.valid_from === null &&
    row.valid_until === null &&
    row.superseded_by === null &&
    row.superseded_at === null &&
    row.pin_order === null &&
    row.last_seen_at === null &&
    row.last_seen_by === null
  );
}

/** The JSON of a plain note's columns that come from its writer and owner (no braces, a leading comma). */
function writerPart(row: MemoryEntriesTable): string {
  const byChannel = keptParts.get(row.author!) ?? new Map<string, Map<string, string>>();
  const byOwner = byChannel.get(row.channel) ?? new Map<string, string>();
  let part = byOwner.get(row.owner_id);
  if (part === undefined) {
    const common = { owner_id: row.owner_id, author_token_id: row.author_token_id, channel: row.channel, author: row.author, kind: 'note', tags: '[]', pinned: 0, supersedes: '[]', seen_count: 1 };
    part = `,${JSON.stringify(common).slice(1, -1)}`;
    if (keptCount >= KEPT_PARTS_MAX) {
      keptParts.clear();
      keptCount = 0;
    }
    byOwner.set(row.owner_id, part);
    byChannel.set(row.channel, byOwner);
    keptParts.set(row.author!, byChannel);
    keptCount++;
  }
  return part;
}

/** `rows` as a JSON array of objects keyed by column, as JSON.stringify(rows) would read back. */
export function rowsJson(rows: readonly MemoryEntriesTable[]): string {
  let json = '[';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (i > 0) json += ',';
    if (row.author === null || row.author_token_id === null || !isPlainNote(row)) {
      json += JSON.stringify(row);
      continue;
    }
    json +=
      `{"id":${JSON.stringify(row.id)},"content":${JSON.stringify(row.content)},"content_key":${JSON.stringify(row.content_key)},` +
      `"created_at":${JSON.stringify(row.created_at)},"updated_at":${JSON.stringify(row.updated_at)}${writerPart(row)}}`;
  }
  return `${json}]`;
}
