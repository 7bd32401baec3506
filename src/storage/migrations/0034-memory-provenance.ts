import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Who wrote each memory entry and what kind of entry it is (docs/decisions/memory.md).
 *
 * Provenance, recorded by the server: `author_token_id` (indexed with the owner: "what did this
 * agent write"), `channel` (`api`, `mcp`, `console`, `import`), `author` (JSON: the token's name and
 * kind and the agent behind it, as they were when the entry was written, so that renaming or
 * deleting the token later changes nothing of the record), `editor` (the same for the last change),
 * and `source` (JSON: what the writer says the entry comes from).
 *
 * Structure, given by the writer: `kind`, `tags` (a JSON array of normalized tags), `pinned`,
 * `valid_from` / `valid_until`.
 *
 * Facts that change: `supersedes` (a JSON array of the ids a new entry replaced) and, on each
 * replaced entry, `superseded_by` and `superseded_at`: both ways linked, nothing deleted.
 *
 * Approvals: `channel`, the channel a held request was asked over, which its replay records.
 *
 * Entries stored before keep everything they had and read as notes by an unknown author over an
 * unknown channel: the defaults below, nothing rewritten.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  const table = () => db.schema.alterTable('memory_entries');
  await table().addColumn('author_token_id', 'text').execute();
  await table().addColumn('channel', 'text', (c) => c.notNull().defaultTo('unknown')).execute();
  await table().addColumn('author', 'text').execute();
  await table().addColumn('editor', 'text').execute();
  await table().addColumn('source', 'text').execute();
  await table().addColumn('kind', 'text', (c) => c.notNull().defaultTo('note')).execute();
  await table().addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await table().addColumn('pinned', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await table().addColumn('valid_from', 'text').execute();
  await table().addColumn('valid_until', 'text').execute();
  await table().addColumn('supersedes', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await table().addColumn('superseded_by', 'text').execute();
  await table().addColumn('superseded_at', 'text').execute();

  // The list filtered by author pages newest first within the owner's entries of that token.
  await db.schema.createIndex('memory_entries_owner_author').on('memory_entries').columns(['owner_id', 'author_token_id', 'id']).execute();
  // A held request's channel, so that its replay records the channel it was asked over, not
  // the approval's. Requests held before were asked with bearer tokens: `api`, or MCP unknown to them.
  await db.schema.alterTable('approvals').addColumn('channel', 'text', (c) => c.notNull().defaultTo('api')).execute();

  // Pinned entries are few: a partial index finds them without reading the owner's other entries.
  await db.schema
    .createIndex('memory_entries_owner_pinned')
    .on('memory_entries')
    .columns(['owner_id', 'id'])
    .where(sql.ref('pinned'), '=', 1)
    .execute();
}
