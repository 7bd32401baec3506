import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * An OAuth flow is bound to the browser of the owner who signed in to start it: the SHA-256 of
 * a random value kept in that browser's cookie. The callback is refused unless the cookie it
 * carries hashes to this, so a consent link opened in anyone else's browser connects nothing.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('oauth_states').addColumn('browser_binding', 'text').execute();
}
