import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const webhooksTables = ownedTables({
  webhook_endpoints: table({
    id: column.text(),
    owner_id: column.text(),
    url: column.text(),
    /** JSON array of event types. */
    events: column.json(),
    enabled: column.boolean(),
    /** The signing secret (`whsec_…`), sealed by the keyring. */
    secret_sealed: column.text(),
    created_at: column.time(),
    updated_at: column.time(),
    /** Attempts failed in a row, and when the first of them was made; reset by a success (migration 0029). */
    consecutive_failures: column.integer(),
    failing_since: column.time().orNull(),
    /** Set while the circuit breaker pauses the webhook: no attempt until then, then one probe. */
    paused_until: column.time().orNull(),
  }),
  webhook_deliveries: table({
    id: column.text(),
    owner_id: column.text(),
    endpoint_id: column.text(),
    /** The event's id: the `webhook-id` of every attempt. */
    event_id: column.text(),
    event_type: column.text(),
    /** The JSON body sent (and signed), the same on every attempt: sent as stored, never decoded. */
    body: column.text(),
    state: column.text<'pending' | 'delivered' | 'failed'>(),
    attempt_count: column.integer(),
    /** When the next attempt is due; null once delivered or failed. */
    next_attempt_at: column.time().orNull(),
    /** Who holds the attempt being made, and until when (see migration 0022). */
    lease: column.text().orNull(),
    lease_until: column.time().orNull(),
    /** Why it failed when no attempt says so (an event past the pending caps, never sent). */
    failure_reason: column.text().orNull(),
    created_at: column.time(),
    updated_at: column.time(),
  }),
  webhook_attempts: table({
    id: column.text(),
    delivery_id: column.text(),
    attempted_at: column.time(),
    outcome: column.text<'succeeded' | 'failed'>(),
    response_status: column.integer().orNull(),
    error: column.text().orNull(),
    duration_ms: column.integer(),
  }),
});

export type WebhooksTables = TablesOf<typeof webhooksTables>;
export type WebhookEndpointsTable = WebhooksTables['webhook_endpoints'];
export type WebhookDeliveriesTable = WebhooksTables['webhook_deliveries'];
export type WebhookAttemptsTable = WebhooksTables['webhook_attempts'];
