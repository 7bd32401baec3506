import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/** Chat conversations and their messages; deleting a conversation deletes its messages. */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('chat_conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The list is newest-updated first, paged by (updated_at, id).
  await db.schema.createIndex('chat_conversations_owner_updated').on('chat_conversations').columns(['owner_id', 'updated_at', 'id']).execute();

  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('chat_conversations.id').onDelete('cascade'))
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('sources', 'text', (c) => c.notNull())
    .addColumn('mode', 'text')
    .addColumn('model', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Messages are read per conversation in id (creation) order.
  await db.schema.createIndex('chat_messages_conversation').on('chat_messages').columns(['conversation_id', 'id']).execute();
}
