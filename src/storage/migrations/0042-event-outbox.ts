import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Account events published by a process other than a server (`hearth reset-password` ending
 * login sessions): written here, then taken and published by a running server
 * (src/modules/events/events.outbox.ts), so that live streams, webhooks and the other nodes hear
 * them as they hear the server's own. `event` is the event's JSON with its id and time; a row
 * lives until a server has published it, and goes with its account.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('event_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
