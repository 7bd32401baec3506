import type { Executor } from '../../storage/columns.js';
import type { ChatConversationsTable, ChatMessagesTable, ChatTables } from './chat.tables.js';
import type { Source } from './chat.schemas.js';


const CONVERSATION_COLUMNS = ['id', 'title', 'created_at', 'updated_at'] as const;
const MESSAGE_COLUMNS = ['id', 'role', 'content', 'sources', 'mode', 'model', 'created_at'] as const;

export type ConversationRow = Pick<ChatConversationsTable, (typeof CONVERSATION_COLUMNS)[number]>;
export type MessageRow = Pick<ChatMessagesTable, (typeof MESSAGE_COLUMNS)[number]>;

/** Conversations and messages; every query is scoped to the owner. */
export function createChatRepo(db: Executor<ChatTables>) {
  return {
    async getConversation(ownerId: string, id: string, trx: Executor<ChatTables> = db): Promise<ConversationRow | undefined> {
      return trx
        .selectFrom('chat_conversations')
        .select(CONVERSATION_COLUMNS)
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Newest updated first; the cursor is the (updated_at, id) of the last row of the previous page. */
    async listConversations(
      ownerId: string,
      query: { limit: number; after?: { updatedAt: string; id: string } | undefined },
    ): Promise<Array<ConversationRow & { message_count: number }>> {
      let q = db
        .selectFrom('chat_conversations as c')
        .select(['c.id', 'c.title', 'c.created_at', 'c.updated_at'])
        .select((eb) =>
          eb
            .selectFrom('chat_messages as m')
            .whereRef('m.conversation_id', '=', 'c.id')
            .select(eb.fn.countAll<number>().as('n'))
            .as('message_count'),
        )
        .where('c.owner_id', '=', ownerId);
      const after = query.after;
      if (after) {
        q = q.where((eb) =>
          eb.or([eb('c.updated_at', '<', after.updatedAt), eb.and([eb('c.updated_at', '=', after.updatedAt), eb('c.id', '<', after.id)])]),
        );
      }
      const rows = await q.orderBy('c.updated_at', 'desc').orderBy('c.id', 'desc').limit(query.limit).execute();
      return rows.map((r) => ({ ...r, message_count: Number(r.message_count ?? 0) }));
    },

    async insertConversation(row: ChatConversationsTable, trx: Executor<ChatTables> = db): Promise<void> {
      await trx.insertInto('chat_conversations').values(row).execute();
    },

    /** Marks the conversation as changed; false when it no longer exists (deleted meanwhile). */
    async touchConversation(ownerId: string, id: string, at: string, trx: Executor<ChatTables> = db): Promise<boolean> {
      const result = await trx
        .updateTable('chat_conversations')
        .set({ updated_at: at })
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteConversation(ownerId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('chat_conversations').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async insertMessages(rows: ChatMessagesTable[], trx: Executor<ChatTables> = db): Promise<void> {
      if (rows.length > 0) await trx.insertInto('chat_messages').values(rows).execute();
    },

    /** The newest `limit` messages before `before` (a message id), newest first. */
    async recentMessages(ownerId: string, conversationId: string, query: { limit: number; before?: string | undefined }): Promise<MessageRow[]> {
      let q = db
        .selectFrom('chat_messages')
        .select(MESSAGE_COLUMNS)
        .where('owner_id', '=', ownerId)
        .where('conversation_id', '=', conversationId);
      if (query.before) q = q.where('id', '<', query.before);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /**
     * The ids of the memory entries the replies of these conversations cite, by conversation:
     * every entry that was ever in one of their prompts (chat.prompt.ts cites each entry it quotes).
     */
    async citedMemory(ownerId: string, conversationIds: readonly string[]): Promise<Map<string, Set<string>>> {
      const cited = new Map<string, Set<string>>();
      if (conversationIds.length === 0) return cited;
      const rows = await db
        .selectFrom('chat_messages')
        .select(['conversation_id', 'sources'])
        .where('owner_id', '=', ownerId)
        .where('conversation_id', 'in', [...conversationIds])
        .where('role', '=', 'assistant')
        .where('sources', '<>', '[]')
        .execute();
      for (const row of rows) {
        for (const source of sourcesOf(row.sources)) {
          if (source.type !== 'memory') continue;
          let ids = cited.get(row.conversation_id);
          if (!ids) cited.set(row.conversation_id, (ids = new Set()));
          ids.add(source.id);
        }
      }
      return cited;
    },

    async countMessages(ownerId: string, conversationId: string): Promise<number> {
      const row = await db
        .selectFrom('chat_messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .where('conversation_id', '=', conversationId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type ChatRepo = ReturnType<typeof createChatRepo>;

/**
 * The sources stored with a reply. Replies stored before chat cited memory hold knowledge-base
 * documents only, without a `type`: they are read as knowledge.
 */
export function sourcesOf(raw: string): Source[] {
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((s: unknown): Source[] => {
      if (typeof s !== 'object' || s === null) return [];
      const { id, title, type, text } = s as Record<string, unknown>;
      if (typeof id !== 'string' || typeof title !== 'string') return [];
      if (type === 'memory') return [{ id, title, type, ...(typeof text === 'string' ? { text } : {}) }];
      return [{ id, title, type: 'knowledge' }];
    });
  } catch {
    return [];
  }
}
