import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * SQLite: memory entries lose the unique index of their text keys (migration 0037); the process
 * keeps each owner's keys instead (src/modules/memory/memory.keys.ts, docs/decisions/memory.md,
 * "The text keys in the process"). Its hashed keys made every new entry write a leaf page of its
 * own: the whole gap of the write row. SQLite has one writer, this process, so the rule "one
 * current entry holds each text" is kept there. PostgreSQL, written by several nodes, keeps it.
 *
 * Nothing stored changes: `content_key` stays on every row, as before, and is what the process
 * reads its keys from.
 */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`DROP INDEX memory_entries_owner_content_key`.execute(db);
}
