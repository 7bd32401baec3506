import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Stripe webhook events already handled, by Stripe's event id: a delivery Stripe repeats (it
 * retries until it sees a 2xx, and may deliver twice) is recognised and not acted on again.
 * No foreign key to users: it is a ledger of what Stripe said, kept when an account goes.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('billing_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('plan_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('billing_events_user').on('billing_events').columns(['user_id', 'received_at']).execute();

  // The knowledgeBytes limit sums an owner's document sizes on every write. Covering the sum
  // (and the size of one document by id) with an index keeps SQLite from reading each row,
  // whose text is stored before size_bytes.
  await db.schema.createIndex('kb_documents_owner_id_size').on('kb_documents').columns(['owner_id', 'id', 'size_bytes']).execute();
}
