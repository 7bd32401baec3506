import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Connectors: services the owner defines by base address and credential (a vault token), used
 * through execute and proxy by name like the built-in catalogue. The vault token is referenced
 * by id without a foreign key: the vault module owns its table, and a connector whose token
 * was deleted reads as not connected instead of disappearing.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('connectors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // `name` lower-cased in JavaScript: unique per owner whatever the case, on both engines.
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    .addColumn('vault_token_id', 'text')
    .addColumn('header_name', 'text')
    .addColumn('query_param', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('connectors_owner_name').unique().on('connectors').columns(['owner_id', 'name_key']).execute();
  await db.schema.createIndex('connectors_owner').on('connectors').columns(['owner_id', 'id']).execute();
}
