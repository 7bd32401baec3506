import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Consent given from the owner's console instead of with the password on the consent page.
 * An authorization request sent to the console keeps:
 * - `console_email_hash`: the SHA-256 of the email typed on the page, whether or not an account
 *   has it, so the per-email bound on waiting requests behaves the same either way;
 * - `owner_id`: the account with that email, if there is one (its console lists the request);
 * - `wait_hash`: the SHA-256 of the secret in the waiting page's address, never the secret;
 * - `decision`, `granted_scopes`, `decided_at`: the owner's answer in the console, which the
 *   waiting page turns into the code (or the denial) on its next refresh.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('authorization_requests').addColumn('console_email_hash', 'text').execute();
  await db.schema
    .alterTable('authorization_requests')
    .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('authorization_requests').addColumn('wait_hash', 'text').execute();
  await db.schema.alterTable('authorization_requests').addColumn('decision', 'text').execute();
  await db.schema.alterTable('authorization_requests').addColumn('granted_scopes', 'text').execute();
  await db.schema.alterTable('authorization_requests').addColumn('decided_at', 'text').execute();
  await db.schema.createIndex('authorization_requests_owner').on('authorization_requests').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('authorization_requests_console_email').on('authorization_requests').columns(['console_email_hash', 'created_at']).execute();
}
