import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Finished webhook deliveries are deleted once older than WEBHOOK_DELIVERY_RETENTION_DAYS
 * (docs/decisions/webhooks.md, "Webhooks: how long deliveries are kept"). The delete picks them by state
 * and by when they finished (`updated_at`, which no change touches after that): without this
 * index each batch would read every finished delivery to find the old ones, as the existing
 * indexes lead with the owner, the webhook, or a due time that finished deliveries no longer have.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').columns(['state', 'updated_at']).execute();
}
