import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';
import type { Channel } from '../../http/channel.js';
import type { MemoryKind } from './memory.schemas.js';

export const memoryTables = ownedTables({
  memory_entries: table(
    {
      id: column.text(),
      owner_id: column.text(),
      content: column.text(),
      created_at: column.time(),
      updated_at: column.time(),
      /** The token that wrote the entry; null for entries stored before authors were recorded. */
      author_token_id: column.text().orNull(),
      channel: column.text<Channel>(),
      /** JSON: the token (id, name, kind) and the agent behind it when the entry was written. */
      author: column.json().orNull(),
      /** JSON: the same for the entry's last change; null while it was never changed. */
      editor: column.json().orNull(),
      /** JSON: what the writer says the entry comes from (kind, ref, quote). */
      source: column.json().orNull(),
      kind: column.text<MemoryKind>(),
      /** JSON array of normalized tags. */
      tags: column.json(),
      pinned: column.boolean(),
      valid_from: column.time().orNull(),
      valid_until: column.time().orNull(),
      /** JSON array of the ids of the entries this one replaced. */
      supersedes: column.json(),
      /** The entry that replaced this one, and when; null while it is current. */
      superseded_by: column.text().orNull(),
      superseded_at: column.time().orNull(),
      /** The pinned entry's place in the owner's profile (0 first); null when not pinned or not placed yet. */
      pin_order: column.integer().orNull(),
      /**
       * The hash of the content in its compared form (lib/same-text.ts) while the entry is
       * current, else null: unique per owner, so one current entry holds each text (a unique
       * index on PostgreSQL; on SQLite the process keeps the keys, memory.keys.ts).
       */
      content_key: column.text().orNull(),
      /** How many times a writer stored this content (1: only its author). */
      seen_count: column.integer(),
      /** When a writer last stored it again, and who (JSON, as `editor`); null while only its author has. */
      last_seen_at: column.time().orNull(),
      last_seen_by: column.json().orNull(),
    },
    // No database full-text index since migration 0043: the words are ranked in memory.
    { sqliteRid: true },
  ),
});

export type MemoryTables = TablesOf<typeof memoryTables>;
export type MemoryEntriesTable = MemoryTables['memory_entries'];
