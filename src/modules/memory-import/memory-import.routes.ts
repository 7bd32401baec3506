import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { AppError, InputError, inRequestPart } from '../../http/errors.js';
import { readForm, type FormReading } from '../../http/multipart.js';
import { clipPath } from './memory-import.echo.js';
import { IMPORT_FORMATS, type ImportFormat } from './memory-import.formats.js';
import { MemoryImportBody, MemoryImportResult } from './memory-import.schemas.js';
import { IMPORT_MAX_BYTES, type MemoryImportInput, type MemoryImportService } from './memory-import.service.js';

const PATH = '/api/v1/memory/import';
const FORMATS_TEXT = IMPORT_FORMATS.join(', ');

/** The form: one file of at most IMPORT_MAX_BYTES, and the format and dryRun fields. */
const FORM: FormReading = {
  limits: { fileSize: IMPORT_MAX_BYTES, files: 2, fields: 10, parts: 12, fieldSize: 1024, fieldNameSize: 100, headerPairs: 100 },
  fileParts: ['file'],
  fields: ['format', 'dryRun'],
  says: {
    unexpectedFile: (name) => `Unexpected file part "${name}": send the file in a part named file`,
    secondFile: 'Send one file per import',
    tooLarge: () => new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${IMPORT_MAX_BYTES} bytes (10 MiB), the most an import reads. Import it in parts; nothing was imported`),
    tooManyParts: (detail) => `The form has too many parts (${detail}); send one file, format and dryRun`,
    unreadable: (detail) => `The multipart body could not be read (${detail}); send multipart/form-data with a file part`,
  },
};

/** A JSON body holds the text escaped: room for the quotes and escapes of 10 MiB of it. */
const JSON_BODY_LIMIT = 2 * IMPORT_MAX_BYTES + 64 * 1024;

function formatOf(value: string | undefined): ImportFormat {
  if (value === undefined || value === '') {
    throw new InputError('body.format', 'is required', `Say which tool the memory comes from: format is one of ${FORMATS_TEXT}`);
  }
  if (!(IMPORT_FORMATS as readonly string[]).includes(value)) {
    throw new InputError('body.format', `must be one of ${FORMATS_TEXT}`, `format ${JSON.stringify(value.slice(0, 40))} is not one Hearth reads: use one of ${FORMATS_TEXT}`);
  }
  return value as ImportFormat;
}

function dryRunOf(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new InputError('body.dryRun', 'must be true or false', 'dryRun must be true or false');
}

/** A form: the one file part (`file`), `format` and `dryRun`, in any order. */
async function readImportForm(request: FastifyRequest): Promise<MemoryImportInput> {
  const { file, fields } = await readForm(request, FORM);
  if (!file) {
    throw new AppError('VALIDATION_ERROR', 'No file in the form: send it in a part named file (curl -F file=@memory.json), or send JSON with the text as content', {
      details: [{ field: 'body.file', message: 'is required' }],
    });
  }
  // The name only labels messages (nothing is written to disk), cut as every name the answer
  // repeats is, keeping its extension.
  const name = clipPath(file.filename.split(/[\\/]/).pop()!) || 'the file';
  return { format: formatOf(fields.format), dryRun: dryRunOf(fields.dryRun), data: file.data, file: name };
}

/** A JSON body: the text to import as `content`. */
function readJson(body: unknown): MemoryImportInput {
  if (!Value.Check(MemoryImportBody, body)) {
    const first = [...Value.Errors(MemoryImportBody, body)].slice(0, 5);
    const issues = first.map((error) => ({ field: `body${error.path.replace(/\//g, '.')}`, message: error.message }));
    throw new InputError(issues, `The import body is not valid: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}. Send { format, content, dryRun? }`);
  }
  const input = body as { format: ImportFormat; content?: string; file?: string; dryRun?: boolean };
  if (input.file !== undefined) throw new InputError('body.file', 'is for multipart/form-data', 'file is the part of a multipart/form-data upload; in JSON, send the text as content');
  if (input.content === undefined) throw new InputError('body.content', 'is required', 'content is required: the text to import (or upload the file as multipart/form-data)');
  return { format: input.format, dryRun: input.dryRun ?? false, data: Buffer.from(input.content, 'utf8'), file: 'The pasted text' };
}

export function memoryImportRoutes(deps: { memoryImport: MemoryImportService }): FastifyPluginAsyncTypebox {
  const { memoryImport } = deps;
  return async (app) => {
    // A plugin of its own, so that the multipart parser is known only here.
    await app.register(async (imports) => {
      await imports.register(multipart, { limits: FORM.limits });
      imports.post(
        PATH,
        {
          config: { access: access.scope('memory'), actionClass: 'memory.write' },
          bodyLimit: JSON_BODY_LIMIT,
          schema: {
            operationId: 'importMemory',
            summary: 'Bring memory from another tool (mem0, the MCP memory server, Letta, Obsidian or basic-memory notes, pasted text): all entries or none, with dryRun to see them first',
            description: `JSON { format, content, dryRun? } with the text, or multipart/form-data with a file part named file (at most 10 MiB; a .zip of Markdown notes) and format and dryRun fields. Entries are written on the import channel, the tool named in their source. format: ${FORMATS_TEXT}.`,
            tags: ['memory'],
            consumes: ['application/json', 'multipart/form-data'],
            body: MemoryImportBody,
            response: { 200: MemoryImportResult },
          },
          // The body is checked by the handler: a form is read as a stream, JSON against the schema above.
          validatorCompiler: () => () => true,
        },
        async (request) => {
          const input = request.isMultipart() ? await readImportForm(request) : readJson(request.body);
          const principal = principalOf(request);
          return { data: await inRequestPart('body', memoryImport.run(principal.ownerId, input, { principal, channel: 'import' })) };
        },
      );
    });
  };
}
