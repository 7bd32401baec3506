import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * When the administrator disabled an account; null while it is enabled. A time rather than a
 * flag, so the administrator's list says since when. Every account stored before is enabled.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
}
