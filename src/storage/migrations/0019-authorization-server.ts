import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Hearth as an OAuth 2.1 authorization server for its own API (MCP clients):
 * - `authorization_clients`: clients registered dynamically (RFC 7591) or known by their client
 *   metadata document (a URL as client_id), server-wide since a client registers before any
 *   owner is known;
 * - `authorization_requests`: an authorization request waiting for the owner's consent;
 * - `authorization_codes` and `authorization_refresh_tokens`: kept by the SHA-256 of the value,
 *   never the value; a code is used once, a refresh token once (its reuse revokes the grant);
 * - tokens issued this way are ordinary tokens of kind `oauth`, naming their client.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('authorization_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('auth_method', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('client_uri', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'text')
    .execute();

  await db.schema
    .createTable('authorization_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('csrf_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('authorization_requests_expires').on('authorization_requests').columns(['expires_at']).execute();

  await db.schema
    .createTable('authorization_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('token_id', 'text')
    .execute();
  await db.schema.createIndex('authorization_codes_expires').on('authorization_codes').columns(['expires_at']).execute();

  await db.schema
    .createTable('authorization_refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('authorization_refresh_tokens_token').on('authorization_refresh_tokens').columns(['token_id']).execute();
  await db.schema.createIndex('authorization_refresh_tokens_expires').on('authorization_refresh_tokens').columns(['expires_at']).execute();

  await db.schema.alterTable('tokens').addColumn('client_id', 'text').execute();
}
