import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * A remote PC is bound to the daemon that registered it: the daemon keeps a random device key
 * of its own, and the server keeps its SHA-256 (never the key). A later connection for that
 * device must present the same key, whatever `devices` token it carries. Devices registered
 * before this migration have no key (NULL): nothing tells which daemon is theirs, so a
 * connection for one is refused until its owner removes it and its daemon registers it anew.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('afp_devices').addColumn('key_hash', 'text').execute();
}
