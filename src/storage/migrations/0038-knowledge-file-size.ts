import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The size of the file a knowledge-base document was read from (an upload), beside the size of
 * its text: the console shows what the owner uploaded, not the text extracted from it. Null for
 * text sent as JSON and for documents stored before this column (their file size was not kept).
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('kb_documents').addColumn('file_bytes', 'integer').execute();
}
