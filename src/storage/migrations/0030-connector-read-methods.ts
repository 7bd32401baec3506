import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * A connector's API style and, for an RPC-style API, its read methods (a JSON array of paths
 * after the base address). Existing connectors are REST: their GETs stay reads, as before.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('connectors').addColumn('api_style', 'text', (col) => col.notNull().defaultTo('rest')).execute();
  await db.schema.alterTable('connectors').addColumn('read_methods', 'text').execute();
}
