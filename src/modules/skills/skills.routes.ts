import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { access, principalOf, type Access } from '../../http/access.js';
import { AppError, inRequestPart } from '../../http/errors.js';
import { createAnsweredQueries, rawQuery } from '../../http/front-door.js';
import { listEnvelope } from '../../http/prepared.js';
import { createSerializedBodies, createSerializedLists } from '../../http/serialized.js';
import {
  AttachDocumentBody,
  AttachedDocumentList,
  AttachingPersonaList,
  AttachResultResponse,
} from '../attachments/attachments.schemas.js';
import {
  BatchQuery,
  SKILL_BATCH_MAX,
  CreateSkillBody,
  DetachedResponse,
  ListSkillsQuery,
  MARKDOWN_TYPES,
  MarkdownBody,
  SkillContentResponse,
  SkillDeletedResponse,
  SkillDocumentParams,
  SkillIdParams,
  SkillList,
  SkillPage,
  SkillResponse,
  SkillSuggestionList,
  SkillSummarySchema,
  SlugParams,
  SuggestionsQuery,
  UpdateSkillBody,
} from './skills.schemas.js';
import { prefersMarkdown } from '../../http/accept.js';
import type { SkillsService } from './skills.service.js';


const tags = ['skills'];
const MARKDOWN = 'text/markdown; charset=utf-8';
/** The longest slug the by-slug route's params schema takes. */
const SLUG_MAX_LENGTH = SlugParams.properties.slug.maxLength ?? 0;


/** The app a route plugin is handed, typed by TypeBox. */
type App = Parameters<FastifyPluginAsyncTypebox>[0];
/** The route config every skills route starts from: the `skills` scope. */
type SkillsConfig = { access: Access };

const owner = (request: Parameters<typeof principalOf>[0]) => principalOf(request).ownerId;

/**
 * The skills API. Its routes are added by three functions, by what they work on, called in the
 * order the routes have always been registered, which the OpenAPI document follows.
 */
export function skillsRoutes(deps: { skills: SkillsService }): FastifyPluginAsyncTypebox {
  const { skills } = deps;
  return async (app) => {
    const config: SkillsConfig = { access: access.scope('skills') };
    addCollectionRoutes(app, skills, config);
    await addSkillRoutes(app, skills, config);
    addDocumentRoutes(app, skills, config);
  };
}

/**
 * The collection and its lookups: the list and its search, creation, suggestions, by slug, in
 * batches, by id. The list's searches and the by-slug route keep the bodies they serialized,
 * which the front door sends again for the same request while the skills are unchanged.
 */
function addCollectionRoutes(app: App, skills: SkillsService, config: SkillsConfig): void {
  // A skill the service serves from its cache is serialized once (see http/serialized.ts).
  const skillBodies = createSerializedBodies();
  // Search answers: each skill's JSON is made once and joined into every answer it appears in
  // (a new query is a new list, mostly of skills earlier answers held).
  const searchBodies = createSerializedLists(SkillSummarySchema);
  /** A search answer's envelope around its items (`{ data, nextCursor: null }`), as the route's SkillPage writes it; made on the first search. */
  let searchEnvelope: { open: string; close: string } | undefined;

  // Searches this route answered, per owner: asked again word for word while the skills are
  // unchanged, the front door sends the same bytes.
  const answeredSearches = createAnsweredQueries<string>();
  app.get(
    '/api/v1/skills',
    {
      config: {
        ...config,
        preparedQueries: true,
        prepared: (principal, _parameter, query) => {
          if (!principal) return undefined;
          const searchKey = answeredSearches.recall(principal.ownerId, query);
          const answer = searchKey === undefined ? undefined : skills.cachedSearch(principal.ownerId, searchKey);
          return answer && searchBodies.made(answer);
        },
      },
      schema: {
        operationId: 'listSkills',
        summary: 'List skills, newest first; filter by slug or category, or search with q (any word ranked, best first; every word with match=all)',
        description:
          'Items carry every field of a skill except `scriptContent`, which can be large: read it from GET /api/v1/skills/{id} or /content.',
        tags,
        querystring: ListSkillsQuery,
        response: { 200: SkillPage },
      },
    },
    async (request, reply) => {
      // Field by field: an object rest or spread of the parsed query copies its keys one by one
      // in V8's runtime, which cost a searching request as much as the rest of its work.
      const { slug, category, q, match, limit = 50, cursor } = request.query;
      const ownerId = owner(request);
      const page = await inRequestPart('querystring', skills.list(ownerId, { slug, category, q, match, limit, cursor }));
      // A search's answer is the list the service keeps while the skills are unchanged, and it
      // has no cursor: its body is serialized once for as long as that list lives.
      if (page.search !== undefined) {
        const { key, kept } = page.search;
        // Only an answer the cache keeps can be the front door's; not a query that carries a
        // token either: its secret would be kept in memory with it.
        if (kept && (request.query as Record<string, unknown>).token === undefined) {
          answeredSearches.remember(ownerId, rawQuery(request.raw.url ?? ''), key);
        }
        searchEnvelope ??= listEnvelope(SkillPage, 'data', { nextCursor: null });
        return searchBodies.send(reply as FastifyReply, page.skills, searchEnvelope.open, searchEnvelope.close, kept);
      }
      return { data: page.skills, nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/api/v1/skills',
    {
      config: { ...config, actionClass: 'skills.write' },
      schema: {
        operationId: 'createSkill',
        summary: 'Create a skill; the YAML frontmatter of scriptContent is sanitized',
        tags,
        body: CreateSkillBody,
        response: { 201: SkillResponse },
      },
    },
    async (request, reply) => reply.status(201).send({ data: await inRequestPart('body', skills.create(owner(request), request.body)) }),
  );

  // Static segments: find-my-way prefers them to /skills/:id, whatever the order of registration.
  app.get(
    '/api/v1/skills/suggestions',
    {
      config,
      schema: {
        operationId: 'getSkillSuggestions',
        summary: 'Up to 10 skills matching what was typed so far, best first',
        tags,
        querystring: SuggestionsQuery,
        response: { 200: SkillSuggestionList },
      },
    },
    async (request) => ({ data: await skills.suggestions(owner(request), request.query.q) }),
  );

  app.get(
    '/api/v1/skills/_by_slug/:slug',
    {
      // A skill the cache holds, once this route has serialized it, is the front door's to send.
      config: {
        ...config,
        prepared: (principal, slug) => {
          // Only a slug the params schema takes; the cache holds no other, but the door should not rely on that.
          if (!principal || slug.length > SLUG_MAX_LENGTH) return undefined;
          const skill = skills.cachedBySlug(principal.ownerId, slug);
          return skill && skillBodies.made(skill);
        },
      },
      schema: {
        operationId: 'getSkillBySlug',
        summary: 'Get a skill by its slug, in any case',
        tags,
        params: SlugParams,
        response: { 200: SkillResponse },
      },
    },
    async (request, reply) => {
      const skill = await skills.getBySlug(owner(request), request.params.slug);
      return skillBodies.send(reply as FastifyReply, skill, (s): Static<typeof SkillResponse> => ({ data: s }));
    },
  );

  app.get(
    '/api/v1/skills/_batch',
    {
      config,
      schema: {
        operationId: 'batchGetSkills',
        summary: 'Get several skills at once by id and by slug (at most 200 together); unknown ones are left out',
        tags,
        querystring: BatchQuery,
        response: { 200: SkillList },
      },
    },
    async (request) => {
      const ids = request.query.id ?? [];
      const slugs = request.query.slug ?? [];
      // Each list has its own maxItems; together they are bounded too, and the query is what says so.
      if (ids.length + slugs.length > SKILL_BATCH_MAX) {
        const message = `may name at most ${SKILL_BATCH_MAX} ids and slugs together`;
        throw new AppError('VALIDATION_ERROR', `Invalid request: querystring ${message}`, { details: [{ field: 'querystring', message }] });
      }
      return { data: await skills.batch(owner(request), ids, slugs) };
    },
  );

  app.get(
    '/api/v1/skills/:id',
    {
      config,
      schema: { operationId: 'getSkill', summary: 'Get a skill with its SKILL.md', tags, params: SkillIdParams, response: { 200: SkillResponse } },
    },
    async (request) => ({ data: await skills.getForOwner(owner(request), request.params.id) }),
  );
}

/** One skill: changing and deleting it, its SKILL.md (read, and replaced as raw markdown), activation. */
async function addSkillRoutes(app: App, skills: SkillsService, config: SkillsConfig): Promise<void> {
  app.put(
    '/api/v1/skills/:id',
    {
      config: { ...config, actionClass: 'skills.write' },
      schema: {
        operationId: 'updateSkill',
        summary: 'Change some fields of a skill; a new name is a new slug (409 when taken)',
        tags,
        params: SkillIdParams,
        body: UpdateSkillBody,
        response: { 200: SkillResponse },
      },
    },
    async (request) => ({ data: await inRequestPart('body', skills.update(owner(request), request.params.id, request.body)) }),
  );

  app.delete(
    '/api/v1/skills/:id',
    {
      config: { ...config, actionClass: 'skills.delete' },
      schema: {
        operationId: 'deleteSkill',
        summary: 'Delete a skill and its attachments',
        tags,
        params: SkillIdParams,
        response: { 200: SkillDeletedResponse },
      },
    },
    async (request) => ({ data: await skills.remove(owner(request), request.params.id) }),
  );

  app.get(
    '/api/v1/skills/:id/content',
    {
      config,
      schema: {
        operationId: 'getSkillContent',
        summary: 'The SKILL.md of a skill: JSON by default, raw markdown with Accept: text/markdown',
        tags,
        params: SkillIdParams,
        response: {
          200: {
            description: 'The SKILL.md, in the form the Accept header asks for',
            content: {
              'application/json': { schema: SkillContentResponse },
              'text/markdown': { schema: Type.String({ description: 'The raw SKILL.md' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const content = await skills.content(owner(request), request.params.id);
      reply.header('vary', 'Accept');
      if (prefersMarkdown(request.headers.accept)) return reply.type(MARKDOWN).send(content.content);
      return reply.send({ data: content });
    },
  );

  app.get(
    '/api/v1/skills/:id/skill.md',
    {
      config,
      schema: {
        operationId: 'getSkillMarkdown',
        summary: 'The raw SKILL.md of a skill',
        tags,
        params: SkillIdParams,
        response: {
          200: { description: 'The raw SKILL.md', content: { 'text/markdown': { schema: Type.String() } } },
        },
      },
    },
    async (request, reply) => {
      const content = await skills.content(owner(request), request.params.id);
      return reply.type(MARKDOWN).send(content.content);
    },
  );

  // The one route that takes a raw text body: its parser lives in a child context, so every
  // other route keeps refusing text (415) and this one refuses JSON (415).
  await app.register(async (child) => {
    const markdown = child.withTypeProvider<TypeBoxTypeProvider>();
    markdown.removeAllContentTypeParsers();
    markdown.addContentTypeParser([...MARKDOWN_TYPES], { parseAs: 'string' }, (_request, body, done) => done(null, body));
    markdown.put(
      '/api/v1/skills/:id/skill.md',
      {
        config: { ...config, actionClass: 'skills.write' },
        schema: {
          operationId: 'putSkillMarkdown',
          summary: 'Replace the SKILL.md with a raw text/markdown body; its YAML frontmatter is sanitized',
          tags,
          params: SkillIdParams,
          body: { content: { 'text/markdown': { schema: MarkdownBody }, 'text/plain': { schema: MarkdownBody } } },
          response: { 200: SkillResponse },
        },
      },
      async (request) => {
        if (typeof request.body !== 'string') {
          throw new AppError('VALIDATION_ERROR', 'Send the SKILL.md as the request body, with Content-Type: text/markdown', {
            details: [{ field: 'body', message: 'is required' }],
          });
        }
        return { data: await skills.setMarkdown(owner(request), request.params.id, request.body) };
      },
    );
  });

  app.post(
    '/api/v1/skills/:id/activate',
    {
      config: { ...config, actionClass: 'skills.write' },
      schema: { operationId: 'activateSkill', summary: 'Mark a skill active', tags, params: SkillIdParams, response: { 200: SkillResponse } },
    },
    async (request) => ({ data: await skills.setActive(owner(request), request.params.id, true) }),
  );

  app.post(
    '/api/v1/skills/:id/deactivate',
    {
      config: { ...config, actionClass: 'skills.write' },
      schema: {
        operationId: 'deactivateSkill',
        summary: 'Mark a skill inactive',
        tags,
        params: SkillIdParams,
        response: { 200: SkillResponse },
      },
    },
    async (request) => ({ data: await skills.setActive(owner(request), request.params.id, false) }),
  );
}

/** What a skill is attached to: its knowledge-base documents, and the personas that use it. */
function addDocumentRoutes(app: App, skills: SkillsService, config: SkillsConfig): void {
  app.get(
    '/api/v1/skills/:id/documents',
    {
      config,
      schema: {
        operationId: 'listSkillDocuments',
        summary: 'The knowledge-base documents attached to a skill',
        tags,
        params: SkillIdParams,
        response: { 200: AttachedDocumentList },
      },
    },
    async (request) => ({ data: await skills.listDocuments(owner(request), request.params.id) }),
  );

  app.post(
    '/api/v1/skills/:id/documents',
    {
      config: { ...config, actionClass: 'skills.write' },
      schema: {
        operationId: 'attachSkillDocument',
        summary: 'Attach one of your knowledge-base documents to a skill (201 when new, 200 when already attached)',
        tags,
        params: SkillIdParams,
        body: AttachDocumentBody,
        response: { 200: AttachResultResponse, 201: AttachResultResponse },
      },
    },
    async (request, reply) => {
      const { created } = await skills.attachDocument(owner(request), request.params.id, request.body.documentId);
      return reply.status(created ? 201 : 200).send({ data: { attached: true, created } });
    },
  );

  app.delete(
    '/api/v1/skills/:id/documents/:docId',
    {
      config: { ...config, actionClass: 'skills.write' },
      schema: {
        operationId: 'detachSkillDocument',
        summary: 'Detach a document from a skill (the document itself stays)',
        tags,
        params: SkillDocumentParams,
        response: { 200: DetachedResponse },
      },
    },
    async (request) => {
      await skills.detachDocument(owner(request), request.params.id, request.params.docId);
      return { data: { detached: true as const } };
    },
  );

  app.get(
    '/api/v1/skills/:id/attachments',
    {
      config,
      schema: {
        operationId: 'listSkillAttachments',
        summary: 'The personas this skill is attached to',
        tags,
        params: SkillIdParams,
        response: { 200: AttachingPersonaList },
      },
    },
    async (request) => ({ data: await skills.listPersonas(owner(request), request.params.id) }),
  );
}
