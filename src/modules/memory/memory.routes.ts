import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { requestChannel } from '../../http/channel.js';
import { inRequestPart } from '../../http/errors.js';
import { createSerializedBodies } from '../../http/serialized.js';
import { IdParams } from '../../http/schemas.js';
import {
  ClearMemoryResponse,
  DeletedMemoryResponse,
  ListMemoryQuery,
  MemoryBody,
  MemoryDuplicateResponse,
  MemoryHistory,
  MemoryPage,
  MemoryPatchBody,
  MemoryResponse,
} from './memory.schemas.js';
import type { MemoryService, MemoryWriter } from './memory.service.js';
import { actorOf, type AuditService } from '../audit/audit.service.js';

/** The writer of a request, as the server knows it: the caller's token and how the request came. */
function writerOf(request: FastifyRequest): MemoryWriter {
  return { principal: principalOf(request), channel: requestChannel(request) };
}

export function memoryRoutes(deps: { memory: MemoryService; audit: Pick<AuditService, 'record'> }): FastifyPluginAsyncTypebox {
  const { memory, audit } = deps;
  return async (app) => {
    const config = { access: access.scope('memory') };
    const tags = ['memory'];
    // A page served from the service's cache is serialized once (see http/serialized.ts).
    const pageBodies = createSerializedBodies();

    app.get(
      '/api/v1/memory',
      {
        config,
        schema: {
          operationId: 'listMemory',
          summary:
            'Current memory entries, newest first; with q, a ranked search by words and meaning (or every word with match=all), best match first; author, channel, kind, tag and pinned narrow either; include=history adds superseded and expired entries, asOf answers what was current then',
          tags,
          querystring: ListMemoryQuery,
          response: { 200: MemoryPage },
        },
      },
      async (request, reply) => {
        const { limit = 50, cursor, q, match = 'any', author, channel, kind, tag, pinned, include, asOf } = request.query;
        const filter = { author, channel, kind, tag, pinned };
        const page = await inRequestPart('querystring', memory.list(principalOf(request).ownerId, { limit, cursor, q, match, filter, include, asOf }));
        return pageBodies.send(reply as FastifyReply, page, (p): Static<typeof MemoryPage> => ({ data: p.entries, nextCursor: p.nextCursor }));
      },
    );

    app.post(
      '/api/v1/memory',
      {
        config: { ...config, actionClass: 'memory.write' },
        schema: {
          operationId: 'createMemory',
          summary:
            'Store a memory entry (a note unless kind says otherwise); its author and channel are recorded by the server. 201: stored. 200 with duplicateOf: a current entry already says this, nothing was added (the attempt is counted on it)',
          tags,
          body: MemoryBody,
          response: { 201: MemoryResponse, 200: MemoryDuplicateResponse },
        },
      },
      async (request, reply) => {
        const written = await inRequestPart('body', memory.create(principalOf(request).ownerId, request.body, writerOf(request)));
        if (written.duplicateOf === undefined) return reply.status(201).send({ data: written.entry });
        await audit.record(actorOf(request), {
          action: 'memory.duplicate',
          outcome: 'success',
          targetType: 'memory_entry',
          targetId: written.duplicateOf,
          details: { matchedBy: written.matchedBy, channel: requestChannel(request), seenCount: written.entry.seenCount },
        });
        return reply.status(200).send({ data: written.entry, duplicateOf: written.duplicateOf, matchedBy: written.matchedBy });
      },
    );

    app.delete(
      '/api/v1/memory',
      {
        config: { ...config, actionClass: 'memory.delete' },
        schema: {
          operationId: 'clearMemory',
          summary: 'Delete every memory entry of the owner (irreversible)',
          tags,
          response: { 200: ClearMemoryResponse },
        },
      },
      async (request) => ({ success: true, deleted: await memory.clear(principalOf(request).ownerId) }),
    );

    app.patch(
      '/api/v1/memory/:id',
      {
        config: { ...config, actionClass: 'memory.write' },
        schema: {
          operationId: 'updateMemory',
          summary: "Change a memory entry: its content, or any of kind, tags, pinned, validFrom, validUntil and source (the others stay); the caller is recorded as its last editor",
          tags,
          params: IdParams,
          body: MemoryPatchBody,
          response: { 200: MemoryResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', memory.update(principalOf(request).ownerId, request.params.id, request.body, writerOf(request))) }),
    );

    app.get(
      '/api/v1/memory/:id/history',
      {
        config,
        schema: {
          operationId: 'getMemoryHistory',
          summary: 'The chain of entries this one belongs to: the ones it replaced and the ones that replaced it, oldest first',
          tags,
          params: IdParams,
          response: { 200: MemoryHistory },
        },
      },
      async (request) => ({ data: await memory.history(principalOf(request).ownerId, request.params.id) }),
    );

    app.delete(
      '/api/v1/memory/:id',
      {
        config: { ...config, actionClass: 'memory.delete' },
        schema: {
          operationId: 'deleteMemory',
          summary: 'Delete a memory entry',
          tags,
          params: IdParams,
          response: { 200: DeletedMemoryResponse },
        },
      },
      async (request) => ({ data: await memory.remove(principalOf(request).ownerId, request.params.id) }),
    );
  };
}
