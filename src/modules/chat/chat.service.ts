import { AppError, InputError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { ChatTables } from './chat.tables.js';
import type { AttachmentsService } from '../attachments/attachments.service.js';
import type { KnowledgeService } from '../knowledge/knowledge.service.js';
import type { MemoryService } from '../memory/memory.service.js';
import type { PersonasService } from '../personas/personas.service.js';
import type { LlmClient, LlmUsage } from './chat.llm.js';
import type { ConversationMessage, ChatMode, ChatReply, Conversation, ConversationSummary, Source } from './chat.schemas.js';
import {
  buildPrompt,
  contentTerms,
  DEFAULT_CONTEXT_TOKENS,
  MAX_PASSAGES,
  MEMORY_MATCHES,
  PROFILE_ENTRIES,
  RETRIEVAL_MEMORY,
  RETRIEVAL_PASSAGES,
  retrievalQuotes,
  retrievalReply,
  titleOf,
  type ChatMessage,
  type Passage,
  type PromptMemory,
} from './chat.prompt.js';
import { sourcesOf, type ChatRepo, type MessageRow } from './chat.repo.js';
import { CHAT_MESSAGE_MAX_BYTES } from './chat.schemas.js';
import { decodeTimeCursor, encodeTimeCursor } from '../../http/cursor.js';

/** History messages read for a prompt; the budget decides how many are used. */
const HISTORY_MESSAGES = 100;
/**
 * The longest text memory is searched with, in characters (as GET /api/v1/memory?q= takes): the
 * words of a longer message are searched instead, so that a 32 KiB message costs no more.
 */
const MEMORY_QUERY_MAX = 500;

/** What a streamed turn announces first, before any text. */
export type ChatStreamMeta = Pick<ChatReply, 'conversationId' | 'mode' | 'sources' | 'persona' | 'model'>;

export interface ChatStreamTurn {
  meta: ChatStreamMeta;
  /** The reply in pieces; the turn is stored once the last piece is read, then `done()` answers. */
  deltas: AsyncIterable<string>;
  /** The whole reply, after `deltas` ended. */
  done(): ChatReply;
}

export interface ChatInput {
  message: string;
  conversationId?: string | undefined;
}

export interface ChatServiceDeps {
  db: Executor<ChatTables>;
  repo: ChatRepo;
  personas: Pick<PersonasService, 'getActive'>;
  attachments: Pick<AttachmentsService, 'documentContentsOfPersona'>;
  knowledge: Pick<KnowledgeService, 'searchPassages'>;
  memory: Pick<MemoryService, 'list' | 'profile' | 'visibleIds'>;
  /** The configured language model; without one, chat answers in retrieval mode. */
  llm: LlmClient | undefined;
  contextTokens?: number;
}


/** The start of `words` (separated by spaces) that fits `max` characters, whole words only. */
function wordsWithin(words: string, max: number): string {
  if (words.length <= max) return words;
  const cut = words.lastIndexOf(' ', max);
  return cut > 0 ? words.slice(0, cut) : words.slice(0, max);
}

function toMessage(row: MessageRow): ConversationMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    sources: sourcesOf(row.sources),
    mode: row.mode,
    model: row.model,
    createdAt: row.created_at,
  };
}

function checkMessage(message: string): void {
  if (message.trim() === '') {
    throw new InputError('message', 'must not be blank');
  }
  if (message.includes('\u0000')) {
    throw new InputError('message', 'must not contain NUL characters', 'Invalid request: message must not contain NUL characters (U+0000)');
  }
  const bytes = Buffer.byteLength(message, 'utf8');
  if (bytes > CHAT_MESSAGE_MAX_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `message is ${bytes} bytes of UTF-8; a chat message holds at most ${CHAT_MESSAGE_MAX_BYTES}. Put long material into a knowledge-base document and ask about it`,
      { details: { bytes, maxBytes: CHAT_MESSAGE_MAX_BYTES } },
    );
  }
}

/**
 * Chat with the owner's active persona. A turn reads the persona, its documents, the best
 * knowledge-base passages for the message, the memory entries relevant to it (and a few of the
 * pinned profile) and the conversation's history; builds the prompt within the context budget
 * (chat.prompt.ts), its sources numbered for citing; asks the configured model, or without one
 * quotes the passages and entries; and stores the message and the reply together. A turn that
 * fails stores nothing, so the same message can simply be sent again.
 *
 * A token limited to memory tags (`memoryTags`) gives the model, and the answer's sources, only
 * the entries it may see itself: both memory reads take its scope. Memory also travels in a
 * conversation's history (a reply quotes or repeats what its prompt held, and later prompts carry
 * that reply), so such a token reads, lists, continues and deletes only the conversations whose
 * replies cite no entry outside its tags; the others are not found for it. A prompt quotes memory
 * only as numbered sources, so a conversation none of whose replies cites a hidden entry never
 * had one in any of its prompts.
 */
export function createChatService(deps: ChatServiceDeps) {
  const { db, repo, llm } = deps;
  const budgetTokens = deps.contextTokens ?? DEFAULT_CONTEXT_TOKENS;

  interface PreparedTurn {
    ownerId: string;
    message: string;
    conversationId: string;
    isNew: boolean;
    startedAt: string;
    persona: { id: string; name: string } | null;
    mode: ChatMode;
    /** What the model is sent (mode llm). */
    messages: ChatMessage[];
    /** The answer (mode retrieval). */
    retrieval?: string;
    sources: Source[];
  }

  /**
   * Which of these conversations a token limited to `memoryTags` may not see: those whose replies
   * cite a memory entry outside its tags (or one deleted since, which it cannot be shown to see).
   */
  async function hiddenFrom(ownerId: string, conversationIds: readonly string[], memoryTags: readonly string[] | null): Promise<Set<string>> {
    const hidden = new Set<string>();
    if (!memoryTags || conversationIds.length === 0) return hidden;
    const cited = await repo.citedMemory(ownerId, conversationIds);
    const all = [...new Set([...cited.values()].flatMap((ids) => [...ids]))];
    if (all.length === 0) return hidden;
    const visible = await deps.memory.visibleIds(ownerId, all.map((id) => ({ id })), memoryTags);
    for (const [conversationId, ids] of cited) {
      if ([...ids].some((id) => !visible.has(id))) hidden.add(conversationId);
    }
    return hidden;
  }

  /** The conversation, when it exists and the token may see it; otherwise not found. */
  async function conversationFor(ownerId: string, id: string, memoryTags: readonly string[] | null) {
    const conversation = await repo.getConversation(ownerId, id);
    if (!conversation || (await hiddenFrom(ownerId, [id], memoryTags)).has(id)) throw notFound('Conversation', id);
    return conversation;
  }

  async function prepare(ownerId: string, input: ChatInput, memoryTags: readonly string[] | null): Promise<PreparedTurn> {
    checkMessage(input.message);
    const startedAt = isoNow();
    let conversationId: string;
    let isNew = false;
    if (input.conversationId) {
      // Its history goes into the prompt: a conversation that drew on memory the token may not see is not continued by it.
      conversationId = (await conversationFor(ownerId, input.conversationId, memoryTags)).id;
    } else {
      conversationId = newId('conv');
      isNew = true;
    }

    // Knowledge: the words that carry the message's meaning, searched in the knowledge base's own
    // passages, ranked as its search ranks them for an agent (words and meaning fused).
    // Memory: the message itself, ranked as GET /api/v1/memory?q= ranks it for an agent (any of
    // its words, fused with meaning), among the entries the token may see.
    const searchQuery = contentTerms(input.message).join(' ');
    const memoryQuery = input.message.length <= MEMORY_QUERY_MAX ? input.message : wordsWithin(searchQuery, MEMORY_QUERY_MAX);
    const scope = memoryTags;
    const [persona, hits, relevant] = await Promise.all([
      deps.personas.getActive(ownerId),
      searchQuery ? deps.knowledge.searchPassages(ownerId, searchQuery, { limit: MAX_PASSAGES, mode: 'any' }) : Promise.resolve([]),
      memoryQuery.trim() ? deps.memory.list(ownerId, { q: memoryQuery, limit: llm ? MEMORY_MATCHES : RETRIEVAL_MEMORY, match: 'any', scope }) : Promise.resolve({ entries: [] }),
    ]);
    const personaRef = persona ? { id: persona.id, name: persona.name } : null;
    // An empty document's one passage, found by its title, has nothing to quote.
    const ranked: Passage[] = hits.filter((hit) => hit.text.trim() !== '').map((hit) => ({ documentId: hit.documentId, title: hit.title, text: hit.text, score: hit.score }));
    const matching: PromptMemory[] = relevant.entries.map((entry) => ({ id: entry.id, content: entry.content, created_at: entry.created_at, pinned: entry.pinned }));

    if (!llm) {
      // The retrieval answer quotes what matches the message; the profile, unasked, would be noise.
      const { quotes, sources } = retrievalQuotes(ranked.slice(0, RETRIEVAL_PASSAGES), matching);
      return {
        ownerId,
        message: input.message,
        conversationId,
        isNew,
        startedAt,
        persona: personaRef,
        mode: 'retrieval',
        messages: [],
        retrieval: retrievalReply(quotes),
        sources,
      };
    }

    const [personaDocuments, profile, history] = await Promise.all([
      persona ? deps.attachments.documentContentsOfPersona(ownerId, persona.id) : Promise.resolve([]),
      // The pinned profile describes the owner whatever the message: a few of its entries lead.
      deps.memory.profile(ownerId, PROFILE_ENTRIES, scope),
      isNew ? Promise.resolve([]) : repo.recentMessages(ownerId, conversationId, { limit: HISTORY_MESSAGES }),
    ]);
    const pinned: PromptMemory[] = profile.map((entry) => ({ id: entry.id, content: entry.content, created_at: entry.created_at, pinned: true }));
    const pinnedIds = new Set(pinned.map((entry) => entry.id));
    const prompt = buildPrompt({
      message: input.message,
      persona,
      personaDocuments,
      passages: ranked,
      memory: [...pinned, ...matching.filter((entry) => !pinnedIds.has(entry.id))],
      history: history.map((m) => ({ role: m.role, content: m.content })),
      budgetTokens,
    });
    return {
      ownerId,
      message: input.message,
      conversationId,
      isNew,
      startedAt,
      persona: personaRef,
      mode: 'llm',
      messages: prompt.messages,
      sources: prompt.sources,
    };
  }

  /** Stores the message and its reply in one transaction (and the conversation, if new). */
  async function store(turn: PreparedTurn, reply: string, model: string | undefined): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const at = isoNow();
      if (turn.isNew) {
        await repo.insertConversation(
          { id: turn.conversationId, owner_id: turn.ownerId, title: titleOf(turn.message), created_at: turn.startedAt, updated_at: at },
          trx,
        );
      } else if (!(await repo.touchConversation(turn.ownerId, turn.conversationId, at, trx))) {
        throw new AppError('NOT_FOUND', `Conversation ${turn.conversationId} was deleted while the reply was being written; nothing was stored`);
      }
      // Both ids are made here, one after the other, so a message and its reply stay adjacent in id order.
      await repo.insertMessages(
        [
          {
            id: newId('msg'),
            conversation_id: turn.conversationId,
            owner_id: turn.ownerId,
            role: 'user',
            content: turn.message,
            sources: '[]',
            mode: null,
            model: null,
            created_at: turn.startedAt,
          },
          {
            id: newId('msg'),
            conversation_id: turn.conversationId,
            owner_id: turn.ownerId,
            role: 'assistant',
            content: reply,
            sources: JSON.stringify(turn.sources),
            mode: turn.mode,
            model: model ?? null,
            created_at: at,
          },
        ],
        trx,
      );
    });
  }

  function result(turn: PreparedTurn, reply: string, model?: string, usage?: LlmUsage): ChatReply {
    return {
      conversationId: turn.conversationId,
      reply,
      sources: turn.sources,
      mode: turn.mode,
      persona: turn.persona,
      ...(model ? { model } : {}),
      ...(usage ? { usage } : {}),
    };
  }

  return {
    async chat(ownerId: string, input: ChatInput, signal?: AbortSignal, memoryTags: readonly string[] | null = null): Promise<ChatReply> {
      const turn = await prepare(ownerId, input, memoryTags);
      if (!llm || turn.retrieval !== undefined) {
        await store(turn, turn.retrieval!, undefined);
        return result(turn, turn.retrieval!);
      }
      const completion = await llm.complete(turn.messages, signal);
      await store(turn, completion.content, completion.model);
      return result(turn, completion.content, completion.model, completion.usage);
    },

    /**
     * A streamed turn. Everything that can fail before the first piece of the reply (a bad
     * request, an unknown conversation, an unreachable or refusing model, a stream that breaks
     * before any text) throws here, so it can still be answered as a plain error; later failures
     * surface from `deltas`.
     */
    async chatStream(ownerId: string, input: ChatInput, signal?: AbortSignal, memoryTags: readonly string[] | null = null): Promise<ChatStreamTurn> {
      const turn = await prepare(ownerId, input, memoryTags);
      let reply = '';
      let final: ChatReply | undefined;

      if (!llm || turn.retrieval !== undefined) {
        const text = turn.retrieval!;
        // A few pieces, paragraph by paragraph, so clients handle both modes alike.
        const pieces = text.split(/(?<=\n\n)/);
        return {
          meta: { conversationId: turn.conversationId, mode: turn.mode, sources: turn.sources, persona: turn.persona },
          deltas: (async function* () {
            for (const piece of pieces) yield piece;
            await store(turn, text, undefined);
            final = result(turn, text);
          })(),
          done: () => final!,
        };
      }

      const stream = await llm.stream(turn.messages, signal);
      const iterator = stream.deltas[Symbol.asyncIterator]();
      // Read up to the first piece now: a model that fails at once is a plain 502.
      const first = await iterator.next();
      return {
        meta: { conversationId: turn.conversationId, mode: turn.mode, sources: turn.sources, persona: turn.persona, model: stream.final().model },
        deltas: (async function* () {
          try {
            for (let next = first; !next.done; next = await iterator.next()) {
              reply += next.value;
              yield next.value;
            }
          } finally {
            // Stops the upstream request when the client went away mid-stream.
            await iterator.return?.();
          }
          const { model, usage } = stream.final();
          await store(turn, reply, model);
          final = result(turn, reply, model, usage);
        })(),
        done: () => final!,
      };
    },

    /**
     * A page of conversations. For a token limited to memory tags, those it may not see are left
     * out of the page (which may then hold fewer than `limit`; `nextCursor` still leads on).
     */
    async listConversations(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined },
      memoryTags: readonly string[] | null = null,
    ): Promise<{ conversations: ConversationSummary[]; nextCursor: string | null }> {
      const cursor = query.cursor ? decodeTimeCursor(query.cursor) : undefined;
      const rows = await repo.listConversations(ownerId, { limit: query.limit + 1, after: cursor && { updatedAt: cursor.time, id: cursor.id } });
      const page = rows.slice(0, query.limit);
      const hidden = await hiddenFrom(ownerId, page.map((r) => r.id), memoryTags);
      return {
        conversations: page.filter((r) => !hidden.has(r.id)).map((r) => ({ id: r.id, title: r.title, messageCount: r.message_count, createdAt: r.created_at, updatedAt: r.updated_at })),
        nextCursor: rows.length > query.limit ? encodeTimeCursor(page[page.length - 1]!.updated_at, page[page.length - 1]!.id) : null,
      };
    },

    /**
     * A conversation with its newest messages. Conversations are the owner's, read by any token
     * with the chat scope; a token limited to memory tags only those that cite no entry outside
     * its tags (their replies may quote them).
     */
    async getConversation(
      ownerId: string,
      id: string,
      query: { limit: number; before?: string | undefined },
      memoryTags: readonly string[] | null = null,
    ): Promise<Conversation> {
      const conversation = await conversationFor(ownerId, id, memoryTags);
      const [rows, messageCount] = await Promise.all([
        repo.recentMessages(ownerId, id, { limit: query.limit + 1, before: query.before }),
        repo.countMessages(ownerId, id),
      ]);
      const page = rows.slice(0, query.limit);
      const messages = page.map(toMessage).reverse();
      return {
        id: conversation.id,
        title: conversation.title,
        messageCount,
        createdAt: conversation.created_at,
        updatedAt: conversation.updated_at,
        messages,
        olderMessagesCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
      };
    },

    async deleteConversation(ownerId: string, id: string, memoryTags: readonly string[] | null = null): Promise<{ id: string; deleted: true }> {
      if (memoryTags) await conversationFor(ownerId, id, memoryTags);
      if (!(await repo.deleteConversation(ownerId, id))) throw notFound('Conversation', id);
      return { id, deleted: true };
    },
  };
}

export type ChatService = ReturnType<typeof createChatService>;
