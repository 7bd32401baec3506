import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const chatTables = ownedTables({
  chat_conversations: table({
    id: column.text(),
    owner_id: column.text(),
    /** From the first message, shortened to one line. */
    title: column.text(),
    created_at: column.time(),
    updated_at: column.time(),
  }),
  chat_messages: table({
    id: column.text(),
    conversation_id: column.text(),
    owner_id: column.text(),
    role: column.text<'user' | 'assistant'>(),
    content: column.text(),
    /** JSON array of `{ id, title }`: the documents the reply used (empty for user messages). */
    sources: column.json(),
    /** `llm` or `retrieval` on assistant messages; null on user messages. */
    mode: column.text<'llm' | 'retrieval'>().orNull(),
    /** The model that wrote an `llm` reply. */
    model: column.text().orNull(),
    created_at: column.time(),
  }),
});

export type ChatTables = TablesOf<typeof chatTables>;
export type ChatConversationsTable = ChatTables['chat_conversations'];
export type ChatMessagesTable = ChatTables['chat_messages'];
