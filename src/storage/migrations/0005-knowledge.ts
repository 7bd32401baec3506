import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The gateway context names each owner's most recently changed documents on every agent
 * session start. Without this index that is a sort of all the owner's documents; on SQLite
 * it would also read every document's whole text, because `updated_at` is stored after
 * `content` in the row.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.createIndex('kb_documents_owner_updated').on('kb_documents').columns(['owner_id', 'updated_at', 'id']).execute();
}
