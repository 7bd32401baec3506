import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * One-time password reset links (`hearth reset-password`, src/modules/accounts): the SHA-256 of
 * the link's secret, never the secret itself, so a copy of the database opens no account. A link
 * works once (`used_at`), until `expires_at`, and only while no newer link was made for its
 * account (`superseded_at`). Rows go with their account.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('superseded_at', 'text')
    .execute();
  await db.schema.createIndex('password_resets_owner').on('password_resets').columns(['owner_id', 'created_at']).execute();
}
