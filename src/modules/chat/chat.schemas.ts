import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery, RecordId } from '../../http/schemas.js';

/** The largest chat message, in bytes of UTF-8 (413 beyond). */
export const CHAT_MESSAGE_MAX_BYTES = 32 * 1024;

export const ChatBody = Type.Object(
  {
    message: Type.String({
      minLength: 1,
      description: 'What to say to the active persona: not blank, at most 32,768 bytes of UTF-8 (413 beyond)',
    }),
    conversationId: Type.Optional(
      Type.String({
        ...RecordId,
        description: 'Continue this conversation (its history is part of the prompt); omit to start a new one',
      }),
    ),
  },
  { additionalProperties: false },
);

/** How long a memory source's `text` may be, in characters: enough to recognise the entry. */
export const SOURCE_TEXT_MAX = 280;

export const SourceSchema = Type.Object(
  {
    id: Type.String({ description: 'The knowledge-base document id (`type` knowledge) or the memory entry id (`type` memory)' }),
    title: Type.String({ description: "The document's title, or a memory entry's first words" }),
    type: Type.Union([Type.Literal('knowledge'), Type.Literal('memory')], {
      description:
        'What the source is: a knowledge-base document (a persona document or a passage of one) or a memory entry. The prompt numbers the sources in their order, [1] first, so a reply citing [2] means the second',
    }),
    text: Type.Optional(Type.String({ maxLength: SOURCE_TEXT_MAX, description: "A memory entry's text, on one line, cut to 280 characters (`type` memory)" })),
  },
  { title: 'ChatSource' },
);
export type Source = Static<typeof SourceSchema>;

export const UsageSchema = Type.Object(
  {
    promptTokens: Type.Integer(),
    completionTokens: Type.Integer(),
    totalTokens: Type.Integer(),
  },
  { title: 'ChatUsage', description: "Token counts as the language model reported them (mode `llm`, when the endpoint reports them)" },
);
export type ChatUsage = Static<typeof UsageSchema>;

const Mode = Type.Union([Type.Literal('llm'), Type.Literal('retrieval')], {
  description:
    '`llm`: written by the configured language model (LLM_BASE_URL), named in `model`. `retrieval`: no model is configured; the reply quotes the best-matching knowledge-base passages and memory entries, and says that no model wrote it',
});
export type ChatMode = Static<typeof Mode>;

const PersonaRef = Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
  description: 'The persona that was active for this reply; null when none is',
});

export const ChatReplySchema = Type.Object(
  {
    conversationId: Type.String(),
    reply: Type.String(),
    sources: Type.Array(SourceSchema, {
      description: 'What the prompt (or the quoted answer) used, in the order the prompt numbers them: knowledge-base documents, then memory entries',
    }),
    mode: Mode,
    persona: PersonaRef,
    model: Type.Optional(Type.String({ description: 'The model that answered (mode `llm`)' })),
    usage: Type.Optional(UsageSchema),
  },
  { title: 'ChatReply' },
);
export type ChatReply = Static<typeof ChatReplySchema>;

export const ChatResponse = Data(ChatReplySchema);

export const ConversationSummarySchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String({ description: 'The start of the first message' }),
    messageCount: Type.Integer(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'ConversationSummary' },
);
export type ConversationSummary = Static<typeof ConversationSummarySchema>;

export const ChatMessageSchema = Type.Object(
  {
    id: Type.String(),
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String(),
    sources: Type.Array(SourceSchema, { description: 'Empty on user messages' }),
    mode: Type.Union([Mode, Type.Null()], { description: 'Null on user messages' }),
    model: Type.Union([Type.String(), Type.Null()]),
    createdAt: IsoDateTime,
  },
  { title: 'ChatMessage' },
);
export type ConversationMessage = Static<typeof ChatMessageSchema>;

export const ConversationSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    messageCount: Type.Integer({ description: 'All messages of the conversation' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    messages: Type.Array(ChatMessageSchema, { description: 'The newest `limit` messages, oldest of them first' }),
    olderMessagesCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `before` to read the messages older than these; null when there are none',
    }),
  },
  { title: 'Conversation' },
);
export type Conversation = Static<typeof ConversationSchema>;

export const ConversationIdParams = Type.Object({ id: RecordId });

export const ListConversationsQuery = Type.Object({ ...PageQuery });

export const GetConversationQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 200, description: 'How many of the newest messages, 1 to 500' })),
    before: Type.Optional(Type.String({ ...RecordId, description: 'Only messages older than this message id (`olderMessagesCursor`)' })),
  },
);

export const ConversationPage = Page(ConversationSummarySchema);
export const ConversationResponse = Data(ConversationSchema);
export const ConversationDeletedResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));
