import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * The vault: each owner's data keys (wrapped by a root key, see modules/keyring/keyring.service.ts) and
 * the stored third-party tokens, whose secrets are sealed with the owner's data key.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  const owner = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade');

  await db.schema
    .createTable('vault_data_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', owner)
    // The root key that wraps this data key now; re-wrapping changes it, never the data key.
    .addColumn('root_key_id', 'text', (c) => c.notNull())
    // base64url of IV (12 bytes) | ciphertext (32 bytes) | GCM tag (16 bytes).
    .addColumn('wrapped_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('rewrapped_at', 'text')
    .execute();
  await db.schema.createIndex('vault_data_keys_owner').on('vault_data_keys').columns(['owner_id', 'id']).execute();
  // Rotation walks the data keys still wrapped by an old root key.
  await db.schema.createIndex('vault_data_keys_root').on('vault_data_keys').columns(['root_key_id', 'id']).execute();

  await db.schema
    .createTable('vault_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', owner)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    // `service` lower-cased in JavaScript, so both engines match service names alike.
    .addColumn('service_key', 'text', (c) => c.notNull())
    .addColumn('website_url', 'text', (c) => c.notNull())
    // The secret, sealed by the keyring (`v1.<dataKeyId>.<iv>.<ciphertext>.<tag>`).
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    // `…abcd`: the last four characters, to recognise the token; never more.
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('discover_api', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON of what API discovery found (not secret); null when discovery was not asked for.
    .addColumn('api_metadata', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('vault_tokens_owner').on('vault_tokens').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('vault_tokens_owner_service').on('vault_tokens').columns(['owner_id', 'service_key', 'id']).execute();
}
