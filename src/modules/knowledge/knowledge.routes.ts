import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { AppError, inRequestPart } from '../../http/errors.js';
import { readForm, type FormReading } from '../../http/multipart.js';
import { DocumentUsageResponse } from '../attachments/attachments.schemas.js';
import type { AttachmentsService } from '../attachments/attachments.service.js';
import {
  CreateKBBody,
  DeleteKBResponse,
  KBIdParams,
  KBDocumentPage,
  KBPassageHits,
  SearchKBPassagesQuery,
  KBDocumentResponse,
  ListKBQuery,
  UpdateKBBody,
  UploadKBForm,
  UpsertKBBody,
  UpsertKBResponse,
} from './knowledge.schemas.js';
import { searchPassageHits } from './knowledge.search.js';
import { KB_JSON_BODY_LIMIT, KB_MAX_UPLOAD_BYTES, type KbUploadInput, type KnowledgeService } from './knowledge.service.js';

const tags = ['knowledge'];
const BASE = '/api/v1/brain/knowledge-base';

/** The names the specification allows for the file part of an upload. */
export const FILE_PART_NAMES = ['file', 'document', 'upload', 'kbFile'] as const;
const PART_NAMES_TEXT = 'file, document, upload or kbFile';

/** An upload form: one file of at most 10 MiB and a few short text fields, `title` and `source` kept. */
const UPLOAD_FORM: FormReading = {
  limits: { fileSize: KB_MAX_UPLOAD_BYTES, files: 4, fields: 20, parts: 30, fieldSize: 16 * 1024, fieldNameSize: 100, headerPairs: 100 },
  fileParts: FILE_PART_NAMES,
  fields: ['title', 'source'],
  says: {
    unexpectedFile: (name) => `Unexpected file part "${name}": name the file part ${PART_NAMES_TEXT}`,
    secondFile: 'Send one file per upload',
    textAsFile: (name) => `The part "${name}" has no filename, so it is not a file: send it as a file (curl -F ${name}=@notes.txt)`,
    tooLarge: () => new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${KB_MAX_UPLOAD_BYTES} bytes (10 MiB), the upload limit. Split it, or send its text in parts`),
    tooManyParts: (detail) => `The form has too many parts (${detail}); send one file and at most the title and source fields`,
    unreadable: (detail) => `The multipart body could not be read (${detail}); send multipart/form-data with one file part`,
  },
};

/**
 * Reads an upload form: the one file part (kept in memory, at most 10 MiB) and the optional
 * `title` and `source` fields, in whatever order the client sent them. Other text fields are
 * ignored, as forms often carry extra inputs.
 */
async function readUploadForm(request: FastifyRequest): Promise<KbUploadInput> {
  if (!request.isMultipart()) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the file as multipart/form-data, in a part named ${PART_NAMES_TEXT} (curl -F file=@notes.pdf); to send text as JSON use POST ${BASE}`,
    );
  }
  const { file, fields } = await readForm(request, UPLOAD_FORM);
  if (!file) {
    throw new AppError('VALIDATION_ERROR', `No file in the form: send the file in a part named ${PART_NAMES_TEXT}`, {
      details: [{ field: 'file', message: 'is required' }],
    });
  }
  return { ...file, title: fields.title, source: fields.source };
}

export function knowledgeRoutes(deps: { knowledge: KnowledgeService; attachments: Pick<AttachmentsService, 'usageOfDocument'> }): FastifyPluginAsyncTypebox {
  const { knowledge, attachments } = deps;
  return async (app) => {
    const config = { access: access.scope('knowledge') };

    app.get(
      BASE,
      {
        config,
        schema: {
          operationId: 'listKBDocuments',
          summary: 'List knowledge-base documents, newest first, or search them with q',
          tags,
          querystring: ListKBQuery,
          response: { 200: KBDocumentPage },
        },
      },
      async (request) => {
        const { limit = 50, cursor, q, match = 'any' } = request.query;
        const ownerId = principalOf(request).ownerId;
        if (q !== undefined) {
          if (cursor !== undefined) {
            throw new AppError('VALIDATION_ERROR', 'Search results (q) come in one page: send q without cursor, and a larger limit for more', {
              details: [{ field: 'querystring.cursor', message: 'cannot be combined with q' }],
            });
          }
          return { data: await knowledge.searchSummaries(ownerId, q, limit, match), nextCursor: null };
        }
        const page = await knowledge.list(ownerId, { limit, cursor });
        return { data: page.items, nextCursor: page.nextCursor };
      },
    );

    app.get(
      `${BASE}/passages`,
      {
        config,
        schema: {
          operationId: 'searchKBPassages',
          summary: 'The passages of knowledge-base documents that best answer q',
          description:
            "Documents are cut into passages of a few hundred words by their headings and paragraphs. Each hit is one passage: its text (at most 4,000 characters), the document's id and title, the headings above it, and its offsets in the document's text (UTF-16 code units, end exclusive: the text is exactly content.slice(start, end)), with a score (higher is better) and the spans of the text that matched words of q.",
          tags,
          querystring: SearchKBPassagesQuery,
          response: { 200: KBPassageHits },
        },
      },
      async (request) => {
        const { q, limit = 10, match = 'any' } = request.query;
        return { data: await searchPassageHits(knowledge, principalOf(request).ownerId, q, limit, match) };
      },
    );

    app.post(
      BASE,
      {
        config: { ...config, actionClass: 'knowledge.write' },
        bodyLimit: KB_JSON_BODY_LIMIT,
        schema: {
          operationId: 'createKBDocument',
          summary: 'Create a document; a title already in use answers 409 (use upsert to replace)',
          tags,
          body: CreateKBBody,
          response: { 200: KBDocumentResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', knowledge.create(principalOf(request).ownerId, request.body)) }),
    );

    app.post(
      `${BASE}/upsert`,
      {
        config: { ...config, actionClass: 'knowledge.write' },
        bodyLimit: KB_JSON_BODY_LIMIT,
        schema: {
          operationId: 'upsertKBDocument',
          summary: 'Create the document with this title, or replace its content if it exists',
          tags,
          body: UpsertKBBody,
          response: { 200: UpsertKBResponse },
        },
      },
      async (request) => {
        const result = await inRequestPart('body', knowledge.upsert(principalOf(request).ownerId, request.body));
        return { ok: true, action: result.action, document: result.document };
      },
    );

    // The upload route lives in a plugin of its own, so that the multipart parser is known
    // only here: the JSON routes keep answering 415 to a form.
    await app.register(async (uploads) => {
      await uploads.register(multipart, { limits: UPLOAD_FORM.limits });
      uploads.post(
        `${BASE}/upload`,
        {
          config: { ...config, actionClass: 'knowledge.write' },
          schema: {
            operationId: 'uploadKBDocument',
            summary: 'Upload a .txt, .md, .html, .pdf or .docx file (at most 10 MiB); its text becomes a document',
            description: `multipart/form-data with one file part named ${PART_NAMES_TEXT}, and optional title (default: the file name) and source (default: upload) fields.`,
            tags,
            consumes: ['multipart/form-data'],
            body: UploadKBForm,
            response: { 201: KBDocumentResponse },
          },
          // The form is read as a stream by the handler; the body schema above only documents it.
          validatorCompiler: () => () => true,
        },
        async (request, reply) => {
          const form = await readUploadForm(request);
          const document = await knowledge.createFromFile(principalOf(request).ownerId, form);
          return reply.status(201).send({ data: document });
        },
      );
    });

    app.get(
      `${BASE}/:id`,
      {
        config,
        schema: { operationId: 'getKBDocument', summary: 'Get a document with its full text', tags, params: KBIdParams, response: { 200: KBDocumentResponse } },
      },
      async (request) => ({ data: await knowledge.get(principalOf(request).ownerId, request.params.id) }),
    );

    app.put(
      `${BASE}/:id`,
      {
        config: { ...config, actionClass: 'knowledge.write' },
        bodyLimit: KB_JSON_BODY_LIMIT,
        schema: {
          operationId: 'updateKBDocument',
          summary: "Replace a document's content, and its title or source when given",
          tags,
          params: KBIdParams,
          body: UpdateKBBody,
          response: { 200: KBDocumentResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', knowledge.update(principalOf(request).ownerId, request.params.id, request.body)) }),
    );

    app.delete(
      `${BASE}/:id`,
      {
        config: { ...config, actionClass: 'knowledge.delete' },
        schema: {
          operationId: 'deleteKBDocument',
          summary: 'Delete a document; it is detached from every persona and skill',
          tags,
          params: KBIdParams,
          response: { 200: DeleteKBResponse },
        },
      },
      async (request) => ({ data: await knowledge.remove(principalOf(request).ownerId, request.params.id) }),
    );

    app.get(
      `${BASE}/:id/attachments`,
      {
        config,
        schema: {
          operationId: 'getKBDocumentAttachments',
          summary: 'The personas and skills this document is attached to',
          tags,
          params: KBIdParams,
          response: { 200: DocumentUsageResponse },
        },
      },
      async (request) => ({ data: await attachments.usageOfDocument(principalOf(request).ownerId, request.params.id) }),
    );
  };
}
