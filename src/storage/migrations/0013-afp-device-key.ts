import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * A remote PC is bound to the daemon that registered it: the daemon keeps a random device key
 * of its own, and the server keeps its SHA-256 (never the key). A later connection for that
 * device must present the same key, whatever `devices` token it carries. Devices registered
 * before this migration have no key yet (NULL): the first daemon that connects for them with a
 * key binds them.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('afp_devices').addColumn('key_hash', 'text').execute();
}
