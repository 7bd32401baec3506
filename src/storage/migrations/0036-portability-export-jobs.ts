import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The owner's export jobs (src/modules/portability): one row per export asked for, with its
 * progress and, once done, the archive's size and checksum (the file itself lives in
 * DATA_DIR/exports until it expires). At most one export runs per owner: a partial unique index,
 * so that two requests at once cannot both start one, on either engine.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('export_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('include_secrets', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done_items', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_items', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('size_bytes', 'integer')
    .addColumn('sha256', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('export_jobs_owner').on('export_jobs').columns(['owner_id', 'created_at']).execute();
  await sql`CREATE UNIQUE INDEX export_jobs_one_running ON export_jobs (owner_id) WHERE status = 'running'`.execute(db);
}
