import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * A refresh of an OAuth connection is claimed with a lease instead of a row lock: one atomic
 * UPDATE writes who refreshes and until when, the provider is called with no transaction open,
 * and the result is stored only while the lease is still the caller's. A node that dies during
 * the call leaves a lease that simply runs out.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('oauth_connections').addColumn('refresh_lease', 'text').execute();
  await db.schema.alterTable('oauth_connections').addColumn('refresh_lease_until', 'text').execute();
}
