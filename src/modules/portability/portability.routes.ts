import { createReadStream, type ReadStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { wantsEventStream } from '../../http/accept.js';
import { access, principalOf } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { sseError, sseEvent } from '../../http/event-stream.js';
import { PASSWORD_ATTEMPTS } from '../../http/rate-limit.js';
import { readForm, type FormReading } from '../../http/multipart.js';
import { actorOf } from '../audit/audit.service.js';
import { ExportBody, ExportIdParams, ExportJobResponse, ImportForm, ImportQuery, ImportResponse } from './portability.schemas.js';
import { IMPORT_MAX_BYTES, type PortabilityService } from './portability.service.js';

const MiB = 1024 * 1024;

function tooLarge(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The archive is larger than ${IMPORT_MAX_BYTES / MiB} MiB, the import limit. Nothing was imported`);
}

/** The import form: one archive and two short fields (passphrase, dryRun). */
const IMPORT_FORM: FormReading = {
  limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 5, parts: 8, fieldSize: 4096, fieldNameSize: 100, headerPairs: 100 },
  fileParts: ['file'],
  says: {
    unexpectedFile: (name) => `Unexpected file part "${name}": send the archive in a part named file`,
    secondFile: 'Send one archive per import',
    tooLarge,
    tooManyParts: (detail) => `The form has too many parts (${detail}); send the archive and at most passphrase and dryRun`,
    unreadable: (detail) => `The multipart body could not be read (${detail}); send multipart/form-data with the archive in a part named file`,
  },
};

/** Reads the import form: the archive (at most IMPORT_MAX_BYTES, refused as soon as it passes) and the passphrase and dryRun fields. */
async function readImportForm(request: FastifyRequest): Promise<{ data: Buffer; passphrase?: string; dryRun?: boolean }> {
  if (!request.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the archive as multipart/form-data in a part named file (curl -F file=@hearth-export.zip)');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > IMPORT_MAX_BYTES + MiB) throw tooLarge();
  const { file, fields } = await readForm(request, IMPORT_FORM);
  if (!file) throw new AppError('VALIDATION_ERROR', 'No archive in the form: send it in a part named file', { details: [{ field: 'file', message: 'is required' }] });
  return {
    data: file.data,
    ...(fields.passphrase ? { passphrase: fields.passphrase } : {}),
    ...(fields.dryRun !== undefined ? { dryRun: fields.dryRun === 'true' || fields.dryRun === '1' } : {}),
  };
}

export function portabilityRoutes(deps: { portability: PortabilityService }): FastifyPluginAsyncTypebox {
  const { portability } = deps;
  return async (app) => {
    const config = { access: access.owner() };
    const tags = ['portability'];

    app.post(
      '/api/v1/export',
      {
        // A login session sends the account password: checked, and counted, by the password
        // attempt limiter, as every route that checks it declares.
        config: { ...config, rateLimit: PASSWORD_ATTEMPTS },
        schema: {
          operationId: 'startExport',
          summary: 'Start an export of the whole account as one archive (Markdown, JSON Lines, a manifest with checksums); one at a time',
          description:
            'Answers 201 with the job; follow it with GET /api/v1/export/{id}, and download the archive from its downloadUrl once done (kept 24 hours). The master token, or a login session sending the account password. Secrets only with includeSecrets and a passphrase, encrypted with it. 409 while another export of the account runs.',
          tags,
          body: ExportBody,
          response: { 201: ExportJobResponse },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const { password, ...input } = request.body;
        const job = await portability.startExport(principal.ownerId, input, { callerKind: principal.kind, password }, actorOf(request));
        return reply.status(201).send({ data: job });
      },
    );

    app.get(
      '/api/v1/export/:id',
      {
        config,
        schema: { operationId: 'getExport', summary: "An export's progress, and where its archive downloads once done", tags, params: ExportIdParams, response: { 200: ExportJobResponse } },
      },
      async (request) => ({ data: await portability.getExport(principalOf(request).ownerId, request.params.id) }),
    );

    app.get(
      '/api/v1/export/:id/download',
      {
        config,
        schema: {
          operationId: 'downloadExport',
          summary: 'Download a finished export (a zip archive)',
          tags,
          params: ExportIdParams,
          response: {
            200: {
              description: 'The archive',
              content: { 'application/zip': { schema: Type.Unsafe<ReadStream>({ type: 'string', format: 'binary' }) } },
            },
          },
        },
      },
      async (request, reply) => {
        const { file, size, filename } = await portability.exportFile(principalOf(request).ownerId, request.params.id, actorOf(request));
        return reply
          .type('application/zip')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .header('content-length', size)
          .header('cache-control', 'no-store')
          .send(createReadStream(file));
      },
    );

    // The import route lives in a plugin of its own, so that the multipart parser is known only here.
    await app.register(async (imports) => {
      await imports.register(multipart, { limits: IMPORT_FORM.limits });
      imports.post(
        '/api/v1/import',
        {
          config,
          schema: {
            operationId: 'importArchive',
            summary: 'Import an archive an export made: into an empty account exactly as it was, into one with data as a merge that never overwrites',
            description: `multipart/form-data with the archive in a part named file (at most ${IMPORT_MAX_BYTES / MiB} MiB), and optional passphrase (to bring the secrets) and dryRun fields. With dryRun the answer says what would change and nothing changes. The import runs in one transaction: a refused archive changes nothing.`,
            tags,
            consumes: ['multipart/form-data'],
            querystring: ImportQuery,
            body: ImportForm,
            response: {
              200: {
                description: 'The report: JSON by default; with Accept: text/event-stream, the progress as server-sent events and then the report',
                content: {
                  'application/json': { schema: ImportResponse },
                  'text/event-stream': {
                    schema: Type.String({
                      description:
                        'Once the archive is checked: `progress` events ({ done, total }: records of the archive gone through, a few a second), then `done` with the report (the JSON answer\'s data), or `error` ({ error, message }) when the import fails midway (nothing imported). A refusal before the records are applied is an ordinary JSON error.',
                    }),
                  },
                },
              },
            },
          },
          // The form is read as a stream by the handler, and dryRun read from either place below;
          // the schemas above document them.
          validatorCompiler: () => () => true,
        },
        async (request, reply) => {
          // One import at a time on this server, taken before the archive is read into memory.
          const release = portability.reserveImport();
          try {
            const form = await readImportForm(request);
            const queried = (request.query as Record<string, unknown>).dryRun;
            const dryRun = form.dryRun ?? (queried === 'true' || queried === '1' || queried === true);
            const input = { data: form.data, passphrase: form.passphrase, dryRun };
            reply.header('vary', 'Accept');
            if (!wantsEventStream(request.headers.accept)) {
              return reply.send({ data: await portability.importArchive(principalOf(request).ownerId, input, actorOf(request)) });
            }
            // The stream begins with the first progress, once the archive is checked: a refusal
            // before that is an ordinary error with its status.
            let events: PassThrough | undefined;
            const importing = portability.importArchive(principalOf(request).ownerId, input, actorOf(request), (done, total) => {
              if (!events) {
                events = new PassThrough();
                void reply
                  .type('text/event-stream; charset=utf-8')
                  .header('cache-control', 'no-cache')
                  .header('x-accel-buffering', 'no')
                  // A stream of the text/event-stream body; the type provider knows only the schemas' types.
                  .send(events as unknown as string);
              }
              events.write(sseEvent('progress', { done, total }));
            });
            try {
              const report = await importing;
              if (!events) return reply.send({ data: report });
              events.end(sseEvent('done', report));
            } catch (error) {
              if (!events) throw error;
              events.end(sseError(request, error, 'import'));
            }
            return reply;
          } finally {
            release();
          }
        },
      );
    });
  };
}
