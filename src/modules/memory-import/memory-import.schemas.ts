import { Type, type Static } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';
import { MemoryEntrySchema } from '../memory/memory.schemas.js';
import { IMPORT_FORMATS } from './memory-import.formats.js';

const FORMAT_DESCRIPTION =
  "mem0 (its JSON export: get_all's results), mcp-memory (the MCP reference memory server's memory.json, JSON Lines of entities and relations), letta (an agent file, .af), markdown (an Obsidian vault or basic-memory folder as a .zip, or one .md note), text (lines or bullets pasted from ChatGPT's or Claude's \"what do you remember about me\")";

export const ImportFormatSchema = Type.Union(
  IMPORT_FORMATS.map((format) => Type.Literal(format)),
  { description: FORMAT_DESCRIPTION },
);

/**
 * The request, as JSON (`content`: the file's text, pasted) or as multipart/form-data (`file`:
 * the file itself, with `format` and `dryRun` as fields). One schema documents both.
 */
export const MemoryImportBody = Type.Object(
  {
    format: ImportFormatSchema,
    content: Type.Optional(
      Type.String({ minLength: 1, description: 'JSON requests: the text to import (what the file holds), at most 10 MiB of UTF-8. A zip is sent as a file' }),
    ),
    file: Type.Optional(Type.String({ format: 'binary', description: 'multipart/form-data requests: the file (at most 10 MiB); a zip for a folder of Markdown notes' })),
    dryRun: Type.Optional(Type.Boolean({ description: 'true: answer what would be imported, and change nothing (default false)' })),
  },
  { additionalProperties: false },
);
export type MemoryImportJson = Static<typeof MemoryImportBody>;

const ImportedEntry = Type.Composite(
  [
    Type.Omit(MemoryEntrySchema, ['id']),
    Type.Object({ id: Type.Union([Type.String(), Type.Null()], { description: 'The stored entry\'s id; null in a dry run, which stores nothing' }) }),
  ],
  { title: 'ImportedMemoryEntry' },
);

export const MemoryImportResult = Data(
  Type.Object(
    {
      format: ImportFormatSchema,
      dryRun: Type.Boolean(),
      counts: Type.Object(
        {
          entries: Type.Integer({ description: 'Entries added (or, in a dry run, that would be)' }),
          skipped: Type.Integer({ description: 'Lines, records or files left out, duplicates included' }),
          duplicates: Type.Integer({ description: 'Entries that repeat an earlier one of the same import (imported once)' }),
          split: Type.Integer({ description: 'Notes or records longer than an entry holds (64 KiB), split into several entries' }),
        },
        { additionalProperties: false },
      ),
      entries: Type.Array(ImportedEntry, { description: 'The entries, in the order written (oldest first); the first 500 when there are more (see entriesTruncated)' }),
      entriesTruncated: Type.Boolean(),
      skipped: Type.Array(
        Type.Object({
          where: Type.String({ description: 'The line, record or file: "line 4", "memory 2", "notes/tea.md"' }),
          reason: Type.String(),
        }),
        { description: 'What was left out and why; the first 200 when there are more (counts.skipped has them all)' },
      ),
    },
    { title: 'MemoryImport', additionalProperties: false },
  ),
);
export type MemoryImportResultData = Static<typeof MemoryImportResult>['data'];
