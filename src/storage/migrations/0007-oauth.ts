import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * OAuth connections to outside providers (Google first) and the short-lived authorization
 * states of the flows in progress. Tokens and PKCE verifiers are sealed by the vault keyring;
 * a state is kept only as its SHA-256, so the table alone can neither finish a flow nor call
 * the provider.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  const owner = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade');

  await db.schema
    .createTable('oauth_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', owner)
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_email', 'text')
    .addColumn('account_id', 'text')
    // JSON array of the scopes the provider says it granted.
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('access_token_sealed', 'text', (c) => c.notNull())
    .addColumn('refresh_token_sealed', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // Bumped on every token write: a refresh only stores its result over the version it started from.
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(1))
    // Why the connection needs re-authorisation (the provider's error code and text; never a secret).
    .addColumn('last_error', 'text')
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .addColumn('refreshed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_connections_owner_provider').unique().on('oauth_connections').columns(['owner_id', 'provider']).execute();

  await db.schema
    .createTable('oauth_states')
    // SHA-256 (hex) of the state sent to the provider; the state itself is never stored.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', owner)
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('verifier_sealed', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_states_expires').on('oauth_states').columns(['expires_at']).execute();
  await db.schema.createIndex('oauth_states_owner').on('oauth_states').columns(['owner_id']).execute();
}
