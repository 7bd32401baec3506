import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { createAnsweredQueries, rawQuery } from '../../http/front-door.js';
import { actorOf, type AuditService } from '../audit/audit.service.js';
import { requestChannel } from '../../http/channel.js';
import { inRequestPart } from '../../http/errors.js';
import { createSerializedBodies } from '../../http/serialized.js';
import { IdParams } from '../../http/schemas.js';
import {
  ClearMemoryResponse,
  DeletedMemoryResponse,
  ForgetMemoryBody,
  ForgetMemoryResponse,
  ListMemoryQuery,
  MemoryBody,
  MemoryAuthors,
  MemoryDuplicateResponse,
  MemoryHistory,
  MemoryPage,
  MemoryPatchBody,
  MemoryProfile,
  MemoryProfileOrderBody,
  MemoryResponse,
  PROFILE_MAX,
} from './memory.schemas.js';
import type { KeptPageKey, MemoryService, MemoryWriter } from './memory.service.js';

/** The tags the caller's memory is limited to, when its token is limited (see docs/decisions/memory.md). */
function scopeOf(request: FastifyRequest): readonly string[] | null {
  return principalOf(request).memoryTags ?? null;
}

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
    // Pages this route answered, per owner and query string: asked again while the owner's
    // entries are unchanged, the front door sends the same bytes. The caller's scope is not part
    // of what is remembered: the door looks the page up for its own caller's.
    const answeredPages = createAnsweredQueries<KeptPageKey>();

    app.get(
      '/api/v1/memory',
      {
        config: {
          ...config,
          preparedQueries: true,
          prepared: (principal, _parameter, query) => {
            if (!principal) return undefined;
            const key = answeredPages.recall(principal.ownerId, query);
            const page = key && memory.cachedPage(key, principal.memoryTags ?? undefined);
            return page && pageBodies.made(page);
          },
        },
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
        const ownerId = principalOf(request).ownerId;
        const page = await inRequestPart('querystring', memory.list(ownerId, { limit, cursor, q, match, filter, include, asOf, scope: scopeOf(request) }));
        // A page the service keeps, asked for without a token in the query (its secret would be
        // kept with the query string), is one the door may send again.
        const kept = memory.pageKey(ownerId, { limit, cursor, q, filter, include, asOf });
        if (kept && (request.query as Record<string, unknown>).token === undefined) answeredPages.remember(ownerId, rawQuery(request.raw.url ?? ''), kept);
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
      async (request) => ({ success: true, deleted: await memory.clear(principalOf(request).ownerId, scopeOf(request)) }),
    );

    app.get(
      '/api/v1/memory/authors',
      {
        // The owner's review: names and counts of every writer, which no agent needs (and which
        // a token limited to some entries must not learn about the others).
        config: { access: access.owner() },
        schema: {
          operationId: 'listMemoryAuthors',
          summary:
            "Who wrote the owner's memory entries: each token (named as its newest entry records it, even once revoked or deleted) with how many entries it wrote, newest writer first, at most 500; token null for entries stored before authors were recorded",
          tags,
          response: { 200: MemoryAuthors },
        },
      },
      async (request) => ({ data: await memory.authors(principalOf(request).ownerId) }),
    );

    app.post(
      '/api/v1/memory/forget',
      {
        // The owner's review: an agent never forgets another's entries (nor its own, in bulk).
        config: { access: access.owner() },
        schema: {
          operationId: 'forgetMemoryAuthor',
          summary:
            'Forget everything one token (an agent) wrote: every entry whose author is that token, on any channel, current or not, and nothing else. dryRun counts first; expectedCount makes the deletion refuse (409) if the count changed since. Entries of others that a forgotten entry had replaced are current again when nothing kept replaced them',
          tags,
          body: ForgetMemoryBody,
          response: { 200: ForgetMemoryResponse },
        },
      },
      async (request) => {
        const { author, dryRun, expectedCount } = request.body;
        const ownerId = principalOf(request).ownerId;
        const done = await memory.forget(ownerId, author, { dryRun, expectedCount });
        if (!done.dryRun) {
          await audit.record(actorOf(request), {
            action: 'memory.forget_author',
            outcome: 'success',
            targetType: 'token',
            targetId: author,
            details: { deleted: done.deleted, restored: done.restored },
          });
        }
        return { data: done };
      },
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
      async (request) => ({ data: await memory.history(principalOf(request).ownerId, request.params.id, scopeOf(request)) }),
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
      async (request) => ({ data: await memory.remove(principalOf(request).ownerId, request.params.id, scopeOf(request)) }),
    );

    app.get(
      '/api/v1/memory/profile',
      {
        config,
        schema: {
          operationId: 'getMemoryProfile',
          summary: "The pinned profile: the owner's current pinned entries (core facts, standing instructions) in the owner's order; they lead the gateway context",
          tags,
          response: { 200: MemoryProfile },
        },
      },
      async (request) => ({ data: await memory.profile(principalOf(request).ownerId, PROFILE_MAX, scopeOf(request)) }),
    );

    app.put(
      '/api/v1/memory/profile/order',
      {
        // The owner's order of the owner's profile: not an agent's to rearrange.
        config: { access: access.owner() },
        schema: {
          operationId: 'orderMemoryProfile',
          summary: 'Set the order of the pinned profile at once: the ids named first, in that order, the other pinned entries after them as they were',
          tags,
          body: MemoryProfileOrderBody,
          response: { 200: MemoryProfile },
        },
      },
      async (request) => {
        const ownerId = principalOf(request).ownerId;
        await inRequestPart('body', memory.orderProfile(ownerId, request.body.order));
        return { data: await memory.profile(ownerId, PROFILE_MAX) };
      },
    );
  };
}
