import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Memory entries lose the database's full-text index that migration 0003 gave them. No search
 * reads it any more: the in-memory words index ranks an owner's entries, or a scan of them where
 * the index is not kept (docs/decisions/search.md), yet every write still paid for it (on SQLite
 * an FTS5 row written by a trigger, on PostgreSQL a weighted tsvector and its GIN entries).
 *
 * Nothing stored is lost: the FTS5 table holds no text of its own (its content is the base
 * table's), and PostgreSQL's `search_vector` is generated from `content`. SQLite's `rid` stays:
 * it is the rows' own key there, and removing it would copy the whole table.
 */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect === 'sqlite') {
    for (const trigger of ['memory_entries_fts_ai', 'memory_entries_fts_ad', 'memory_entries_fts_au']) {
      await sql`DROP TRIGGER ${sql.id(trigger)}`.execute(db);
    }
    // FTS5 drops its shadow tables (_data, _idx, _docsize, _config) with it.
    await sql`DROP TABLE memory_entries_fts`.execute(db);
    return;
  }
  await sql`DROP INDEX memory_entries_search`.execute(db);
  await sql`ALTER TABLE memory_entries DROP COLUMN search_vector`.execute(db);
}
