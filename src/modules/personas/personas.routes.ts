import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { IdParams } from '../../http/schemas.js';
import {
  AttachDocumentBody,
  AttachedDocumentList,
  AttachedSkillList,
  AttachResultResponse,
  AttachSkillBody,
} from '../attachments/attachments.schemas.js';
import type { AttachmentsService } from '../attachments/attachments.service.js';
import {
  CreatePersonaBody,
  DeletedPersonaResponse,
  DetachResultResponse,
  ListPersonasQuery,
  PersonaDocumentParams,
  PersonaPage,
  PersonaResponse,
  PersonaSkillParams,
  UpdatePersonaBody,
} from './personas.schemas.js';
import type { PersonasService } from './personas.service.js';

const tags = ['personas'];

export function personasRoutes(deps: {
  personas: PersonasService;
  attachments: Pick<
    AttachmentsService,
    'attachDocument' | 'detachDocument' | 'listDocuments' | 'attachSkillToPersona' | 'detachSkillFromPersona' | 'listSkillsOfPersona'
  >;
}): FastifyPluginAsyncTypebox {
  const { personas, attachments } = deps;
  const holder = (id: string) => ({ type: 'persona' as const, id });

  return async (app) => {
    const scoped = { access: access.scope('personas') };

    app.get(
      '/api/v1/personas',
      {
        config: scoped,
        schema: {
          operationId: 'listPersonas',
          summary: "The owner's personas, newest first",
          tags,
          querystring: ListPersonasQuery,
          response: { 200: PersonaPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor } = request.query;
        const page = await personas.list(principalOf(request).ownerId, { limit, cursor });
        return { data: page.personas, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/personas',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'createPersona',
          summary: 'Create a persona (inactive until activated)',
          tags,
          body: CreatePersonaBody,
          response: { 201: PersonaResponse },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await personas.create(principalOf(request).ownerId, request.body) }),
    );

    app.get(
      '/api/v1/personas/active',
      {
        config: scoped,
        schema: {
          operationId: 'getActivePersona',
          summary: 'The active persona (404 NOT_FOUND when none is active)',
          tags,
          response: { 200: PersonaResponse },
        },
      },
      async (request) => {
        const active = await personas.getActive(principalOf(request).ownerId);
        if (!active) throw new AppError('NOT_FOUND', 'No persona is active; activate one with POST /api/v1/personas/{id}/activate');
        return { data: active };
      },
    );

    app.get(
      '/api/v1/personas/:id',
      {
        config: scoped,
        schema: { operationId: 'getPersona', summary: 'Read a persona', tags, params: IdParams, response: { 200: PersonaResponse } },
      },
      async (request) => ({ data: await personas.get(principalOf(request).ownerId, request.params.id) }),
    );

    app.put(
      '/api/v1/personas/:id',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'updatePersona',
          summary: 'Change some of name, description and soul_content',
          tags,
          params: IdParams,
          body: UpdatePersonaBody,
          response: { 200: PersonaResponse },
        },
      },
      async (request) => ({ data: await personas.update(principalOf(request).ownerId, request.params.id, request.body) }),
    );

    app.delete(
      '/api/v1/personas/:id',
      {
        config: { ...scoped, actionClass: 'personas.delete' },
        schema: {
          operationId: 'deletePersona',
          summary: 'Delete a persona and its attachments (the documents and skills themselves stay)',
          tags,
          params: IdParams,
          response: { 200: DeletedPersonaResponse },
        },
      },
      async (request) => ({ data: await personas.delete(principalOf(request).ownerId, request.params.id) }),
    );

    app.post(
      '/api/v1/personas/:id/activate',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'activatePersona',
          summary: 'Make this the active persona; the previously active one is deactivated in the same step',
          description: 'Exactly one persona is active afterwards. Its soul_content applies to POST /brain/chat and appears in GET /gateway/context.',
          tags,
          params: IdParams,
          response: { 200: PersonaResponse },
        },
      },
      async (request) => ({ data: await personas.activate(principalOf(request).ownerId, request.params.id) }),
    );

    app.post(
      '/api/v1/personas/:id/deactivate',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'deactivatePersona',
          summary: 'Deactivate a persona, leaving none active if it was the active one',
          description:
            'Added to the specification, which has no other way back to "no persona". Deactivating an inactive persona changes nothing and answers it.',
          tags,
          params: IdParams,
          response: { 200: PersonaResponse },
        },
      },
      async (request) => ({ data: await personas.deactivate(principalOf(request).ownerId, request.params.id) }),
    );

    app.get(
      '/api/v1/personas/:id/documents',
      {
        config: scoped,
        schema: {
          operationId: 'listPersonaDocuments',
          summary: 'The knowledge-base documents attached to a persona',
          tags,
          params: IdParams,
          response: { 200: AttachedDocumentList },
        },
      },
      async (request) => ({ data: await attachments.listDocuments(principalOf(request).ownerId, holder(request.params.id)) }),
    );

    app.post(
      '/api/v1/personas/:id/documents',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'attachPersonaDocument',
          summary: 'Attach one of the owner\'s knowledge-base documents; 201 when new, 200 when already attached',
          tags,
          params: IdParams,
          body: AttachDocumentBody,
          response: { 200: AttachResultResponse, 201: AttachResultResponse },
        },
      },
      async (request, reply) => {
        const ownerId = principalOf(request).ownerId;
        const { created } = await attachments.attachDocument(ownerId, holder(request.params.id), request.body.documentId);
        return reply.status(created ? 201 : 200).send({ data: { attached: true as const, created } });
      },
    );

    app.delete(
      '/api/v1/personas/:id/documents/:docId',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'detachPersonaDocument',
          summary: 'Detach a document from a persona (the document itself stays)',
          tags,
          params: PersonaDocumentParams,
          response: { 200: DetachResultResponse },
        },
      },
      async (request) => {
        await attachments.detachDocument(principalOf(request).ownerId, holder(request.params.id), request.params.docId);
        return { data: { detached: true as const } };
      },
    );

    app.get(
      '/api/v1/personas/:id/skills',
      {
        config: scoped,
        schema: {
          operationId: 'listPersonaSkills',
          summary: 'The skills attached to a persona',
          tags,
          params: IdParams,
          response: { 200: AttachedSkillList },
        },
      },
      async (request) => ({ data: await attachments.listSkillsOfPersona(principalOf(request).ownerId, request.params.id) }),
    );

    app.post(
      '/api/v1/personas/:id/skills',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'attachPersonaSkill',
          summary: 'Attach one of the owner\'s skills; 201 when new, 200 when already attached',
          tags,
          params: IdParams,
          body: AttachSkillBody,
          response: { 200: AttachResultResponse, 201: AttachResultResponse },
        },
      },
      async (request, reply) => {
        const ownerId = principalOf(request).ownerId;
        const { created } = await attachments.attachSkillToPersona(ownerId, request.params.id, request.body.skillId);
        return reply.status(created ? 201 : 200).send({ data: { attached: true as const, created } });
      },
    );

    app.delete(
      '/api/v1/personas/:id/skills/:skillId',
      {
        config: { ...scoped, actionClass: 'personas.write' },
        schema: {
          operationId: 'detachPersonaSkill',
          summary: 'Detach a skill from a persona (the skill itself stays)',
          tags,
          params: PersonaSkillParams,
          response: { 200: DetachResultResponse },
        },
      },
      async (request) => {
        await attachments.detachSkillFromPersona(principalOf(request).ownerId, request.params.id, request.params.skillId);
        return { data: { detached: true as const } };
      },
    );
  };
}
