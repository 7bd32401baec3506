import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Webhooks that fail, and owners who queue too much (docs/decisions/webhooks.md, "Webhooks: fairness and
 * the circuit breaker"):
 * - `webhook_endpoints.consecutive_failures` and `failing_since`: the attempts that failed in a
 *   row and when the first of them was made (both reset by a success); `paused_until`: set when
 *   the circuit breaker pauses the webhook, null while it is sent to. The endpoint row is also
 *   what a claim locks, so that the attempts in flight to one webhook stay within the limit on
 *   every node;
 * - `webhook_deliveries.failure_reason`: why a delivery failed without an attempt telling it
 *   (an event past the pending caps is recorded so, never sent);
 * - an index to count an owner's pending deliveries.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('failing_since', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('paused_until', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('failure_reason', 'text').execute();
  await db.schema.createIndex('webhook_deliveries_owner_state').on('webhook_deliveries').columns(['owner_id', 'state']).execute();
}
