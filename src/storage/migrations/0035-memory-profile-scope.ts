import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The pinned profile and memory scoped by tags (docs/decisions/memory.md).
 *
 * `memory_entries.pin_order`: the owner's order of the pinned entries (0 first); null for entries
 * not pinned, and for pinned ones the owner has not placed yet (they follow the placed ones,
 * oldest first). Pinned entries are found through the partial index of migration 0034.
 *
 * `tokens.memory_tags`: a JSON array of the normalized tags a token's memory is limited to; null
 * (every token before this) is no limit.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('memory_entries').addColumn('pin_order', 'integer').execute();
  await db.schema.alterTable('tokens').addColumn('memory_tags', 'text').execute();
}
