import { Type } from '@sinclair/typebox';
import { Data, IsoDateTime, NullableDateTime } from '../../http/schemas.js';
import { MIN_PASSPHRASE_LENGTH } from './portability.crypto.js';

const Password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'The account password: needed from a login session (the console), not with the master token. Checked under the same attempt limits as login, never stored',
});

const Passphrase = Type.String({
  minLength: MIN_PASSPHRASE_LENGTH,
  maxLength: 1024,
  description: `A passphrase of your choice (at least ${MIN_PASSPHRASE_LENGTH} characters) that encrypts the secrets in the archive (scrypt + AES-256-GCM). Keep it: without it the secrets cannot be read or imported`,
});

export const ExportBody = Type.Object(
  {
    includeSecrets: Type.Optional(
      Type.Boolean({ description: 'Also carry vault secrets, OAuth tokens and webhook signing secrets, encrypted with passphrase (never in clear). Default false' }),
    ),
    passphrase: Type.Optional(Passphrase),
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
);

export const ExportJobSchema = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed'), Type.Literal('expired')], {
      description: 'running, then done (the archive can be downloaded until expiresAt) or failed (error says why); expired once the archive is removed',
    }),
    includesSecrets: Type.Boolean(),
    progress: Type.Object({ done: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 0 }) }, { description: 'Records written of the records to write' }),
    sizeBytes: Type.Union([Type.Integer(), Type.Null()]),
    sha256: Type.Union([Type.String(), Type.Null()], { description: 'The SHA-256 of the archive file, once done' }),
    error: Type.Union([Type.String(), Type.Null()]),
    createdAt: IsoDateTime,
    finishedAt: NullableDateTime,
    expiresAt: NullableDateTime,
    downloadUrl: Type.Union([Type.String(), Type.Null()], { description: 'Once done: where the archive downloads (with the same credentials)' }),
  },
  { title: 'ExportJob' },
);

export const ExportJobResponse = Data(ExportJobSchema);

export const ExportIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const ImportQuery = Type.Object({
  dryRun: Type.Optional(Type.Boolean({ description: 'Check the archive and answer what would change, changing nothing. Default false' })),
});

export const ImportForm = Type.Object({
  file: Type.Optional(Type.String({ format: 'binary', description: 'The archive (.zip) an export made' })),
  passphrase: Type.Optional(Type.String({ maxLength: 1024, description: 'The passphrase of the export, to bring its secrets too' })),
  dryRun: Type.Optional(Type.String({ description: '"true" for a dry run (as the dryRun query parameter)' })),
});

const TableReport = Type.Object({
  added: Type.Integer(),
  unchanged: Type.Integer({ description: 'Already in the account, identical: skipped' }),
  conflicts: Type.Integer({ description: 'Already in the account with other content, or taking a name in use: not applied' }),
  skipped: Type.Integer({ description: 'Left out: records kept for reference only (tokens, devices), secrets not in the archive, or pointing at a record left out' }),
  renumbered: Type.Integer({ description: 'Added with a new id, as another account on this server holds theirs' }),
});

export const ImportReportSchema = Type.Object(
  {
    dryRun: Type.Boolean(),
    format: Type.Object({ name: Type.String(), version: Type.Integer(), createdAt: Type.String() }),
    tables: Type.Record(Type.String(), TableReport),
    issues: Type.Array(
      Type.Object({
        table: Type.String(),
        id: Type.String(),
        outcome: Type.Union([Type.Literal('conflict'), Type.Literal('skipped')]),
        reason: Type.String(),
      }),
      { description: 'The first 200 conflicts and skipped records, each with why' },
    ),
    notes: Type.Array(Type.String()),
  },
  { title: 'ImportReport' },
);

export const ImportResponse = Data(ImportReportSchema);
