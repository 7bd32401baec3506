import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import {
  ChatBody,
  ChatResponse,
  ConversationDeletedResponse,
  ConversationIdParams,
  ConversationPage,
  ConversationResponse,
  GetConversationQuery,
  ListConversationsQuery,
} from './chat.schemas.js';
import type { ChatService } from './chat.service.js';
import { wantsEventStream } from '../../http/accept.js';
import { sseError, sseEvent } from '../../http/event-stream.js';

const tags = ['chat'];

const STREAM_DESCRIPTION = [
  'Builds the prompt from the active persona (its `soul_content` is the system message), the documents attached to it, the knowledge-base passages that best match the message, a few entries of the pinned memory profile and the memory entries relevant to the message (ranked as `GET /api/v1/memory?q=` ranks them, by words and meaning; a token limited to memory tags: only the entries it sees, and only in conversations whose replies cite no entry outside its tags; the others are 404 for it, and left out of its list), and the conversation history, within the context budget (CHAT_CONTEXT_TOKENS, docs/chat.md). The documents and entries are numbered [1], [2]… in the order of `sources`, and the model is asked to cite them by number.',
  'With LLM_BASE_URL set the reply comes from that OpenAI-compatible endpoint (`mode: "llm"`, the model that answered in `model`); without it the reply quotes the best-matching passages with their titles and the best-matching memory entries, and says that no language model wrote it (`mode: "retrieval"`, no `model`). `sources` lists what was used: documents (`type: "knowledge"`) and memory entries (`type: "memory"`, with a short `text`). Omit `conversationId` to start a conversation; the message and the reply are stored together once the reply is complete (a failed turn stores nothing). A failing model answers 502 `UPSTREAM_ERROR`.',
  'Streaming: send `Accept: text/event-stream` to receive the reply as server-sent events: `event: meta` (`{ conversationId, mode, sources, persona, model? }`) first, then `event: delta` (`{ "text": "…" }`) pieces, then `event: done` with the same object as the JSON answer\'s `data`. A failure after the stream began arrives as `event: error` (`{ "error", "message" }`) and ends the stream; failures before it began are ordinary JSON errors.',
].join('\n\n');

export function chatRoutes(deps: { chat: ChatService }): FastifyPluginAsyncTypebox {
  const { chat } = deps;
  return async (app) => {
    const config = { access: access.scope('chat') };
    const owner = (request: Parameters<typeof principalOf>[0]) => principalOf(request).ownerId;

    app.post(
      '/api/v1/brain/chat',
      {
        config,
        schema: {
          operationId: 'chat',
          summary: 'Chat with the active persona (JSON, or server-sent events with Accept: text/event-stream)',
          description: STREAM_DESCRIPTION,
          tags,
          body: ChatBody,
          response: {
            200: {
              description: 'The reply: JSON by default, a stream of server-sent events with Accept: text/event-stream',
              content: {
                'application/json': { schema: ChatResponse },
                'text/event-stream': {
                  schema: Type.String({
                    description:
                      'Events `meta` ({ conversationId, mode, sources, persona, model? }), then `delta` ({ text }) pieces, then `done` (the ChatReply); or `error` ({ error, message }) if the reply fails midway',
                  }),
                },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const ownerId = owner(request);
        // A client that goes away stops the model's work too.
        const controller = new AbortController();
        reply.raw.on('close', () => {
          if (!reply.raw.writableFinished) controller.abort();
        });
        reply.header('vary', 'Accept');
        if (!wantsEventStream(request.headers.accept)) {
          return reply.send({ data: await inRequestPart('body', chat.chat(ownerId, request.body, controller.signal, principalOf(request).memoryTags ?? null)) });
        }

        const turn = await inRequestPart('body', chat.chatStream(ownerId, request.body, controller.signal, principalOf(request).memoryTags ?? null));
        async function* frames(): AsyncGenerator<string> {
          yield sseEvent('meta', turn.meta);
          try {
            for await (const text of turn.deltas) yield sseEvent('delta', { text });
            yield sseEvent('done', turn.done());
          } catch (error) {
            // The client went away: nobody is left to tell, and it is not a failure of the server.
            if (controller.signal.aborted) return;
            yield sseError(request, error, 'chat stream');
          }
        }
        return reply
          .type('text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('x-accel-buffering', 'no')
          // A stream of the text/event-stream body; the type provider knows only the schemas' types.
          .send(Readable.from(frames()) as unknown as string);
      },
    );

    app.get(
      '/api/v1/brain/conversations',
      {
        config,
        schema: {
          operationId: 'listConversations',
          summary: 'Chat conversations, most recently active first',
          tags,
          querystring: ListConversationsQuery,
          response: { 200: ConversationPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor } = request.query;
        const page = await chat.listConversations(owner(request), { limit, cursor }, principalOf(request).memoryTags ?? null);
        return { data: page.conversations, nextCursor: page.nextCursor };
      },
    );

    app.get(
      '/api/v1/brain/conversations/:id',
      {
        config,
        schema: {
          operationId: 'getConversation',
          summary: 'A conversation with its newest messages (oldest of them first)',
          tags,
          params: ConversationIdParams,
          querystring: GetConversationQuery,
          response: { 200: ConversationResponse },
        },
      },
      async (request) => {
        const { limit = 200, before } = request.query;
        return { data: await chat.getConversation(owner(request), request.params.id, { limit, before }, principalOf(request).memoryTags ?? null) };
      },
    );

    app.delete(
      '/api/v1/brain/conversations/:id',
      {
        config: { ...config, actionClass: 'chat.delete' },
        schema: {
          operationId: 'deleteConversation',
          summary: 'Delete a conversation and all its messages',
          tags,
          params: ConversationIdParams,
          response: { 200: ConversationDeletedResponse },
        },
      },
      async (request) => ({ data: await chat.deleteConversation(owner(request), request.params.id, principalOf(request).memoryTags ?? null) }),
    );
  };
}
