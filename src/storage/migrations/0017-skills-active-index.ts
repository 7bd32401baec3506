import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The active skills of an owner (the gateway context lists them on every call) are found by an
 * index: without it, the query read every skill of the owner to keep the few active ones, tens
 * of milliseconds with ten thousand skills. Ordered by id like the query, so no sort either.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.createIndex('skills_owner_active').on('skills').columns(['owner_id', 'active', 'id']).execute();
}
