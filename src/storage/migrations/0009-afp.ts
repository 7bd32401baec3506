import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Remote PCs (AFP): one row per device an owner's daemon registered. A daemon registers by name,
 * so (owner_id, name) is unique: the same owner and name reconnect as the same device. Whether
 * a device is online is not stored: it is whether its daemon holds a connection now.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('afp_devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('privilege', 'text', (c) => c.notNull())
    .addColumn('root', 'text', (c) => c.notNull())
    .addColumn('daemon_version', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('afp_devices_owner_name').unique().on('afp_devices').columns(['owner_id', 'name']).execute();
}
