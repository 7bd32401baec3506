import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery, NoNul, SearchMatch } from '../../http/schemas.js';
import { SearchHitSchema } from '../search/search.schemas.js';


export const KBIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, ...NoNul }) });

const Title = Type.String({
  minLength: 1,
  maxLength: 500,
  description: "Unique among the owner's documents: the upsert key. Leading and trailing spaces are removed",
});
const Content = Type.String({ description: 'Markdown or plain text, at most 10 MiB (UTF-8)' });
const SOURCE_TEXT = 'Where the text came from, e.g. agent, upload, web';
const sourceSchema = (extra: { default?: string; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: 100, description: SOURCE_TEXT, ...extra });
const Source = sourceSchema();
const MimeType = Type.Union([Type.String(), Type.Null()], {
  description: 'The type of the file the text was extracted from; text/markdown for text sent as JSON',
});
const SizeBytes = Type.Integer({ description: 'Size of the stored text in bytes (UTF-8)' });
const FileBytes = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'Size in bytes of the uploaded file the text was read from; null for text sent as JSON (and for uploads stored before it was kept)',
});

export const KBDocumentSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    content: Type.String(),
    source: Type.String(),
    mimeType: MimeType,
    sizeBytes: SizeBytes,
    fileBytes: FileBytes,
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'KBDocument' },
);
export type KbDocument = Static<typeof KBDocumentSchema>;

export const KBDocumentSummarySchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    source: Type.String(),
    mimeType: MimeType,
    sizeBytes: SizeBytes,
    fileBytes: FileBytes,
    excerpt: Type.String({ description: 'About 200 characters: the start of the text, or, with `q`, around the first matching word' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    rank: Type.Optional(Type.Number({ description: 'Only with `q`: relevance, higher is better' })),
  },
  { title: 'KBDocumentSummary' },
);
export type KbDocumentSummary = Static<typeof KBDocumentSummarySchema>;

export const ListKBQuery = Type.Object({
  ...PageQuery,
  cursor: Type.Optional(Type.String({ maxLength: 200, ...NoNul, description: 'The `nextCursor` of the previous page' })),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        "Search in natural language: documents holding any of its words (each a word prefix, stemmed), ranked by their best passage, in one page, each excerpt taken from that passage; see match (`all`: documents holding every word anywhere in their text)",
    }),
  ),
  match: Type.Optional(SearchMatch),
});

export const SearchKBPassagesQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 500, ...NoNul, description: 'What to look for, in natural language: a question or words' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Passages answered at most, 1 to 50' })),
  match: Type.Optional(SearchMatch),
});

/** The best passages, each with its document, the headings above it and its offsets in the document's text. */
export const KBPassageHits = Data(Type.Array(SearchHitSchema, { title: 'KBPassageHits' }));

export const CreateKBBody = Type.Object(
  { title: Title, content: Content, source: Type.Optional(sourceSchema({ default: 'agent' })) },
  { additionalProperties: false },
);

export const UpsertKBBody = Type.Object(
  {
    title: Title,
    content: Content,
    source: Type.Optional(sourceSchema({ description: `${SOURCE_TEXT}. Default agent when created; kept as it is when updated and not given` })),
  },
  { additionalProperties: false },
);

export const UpdateKBBody = Type.Object(
  { content: Content, title: Type.Optional(Title), source: Type.Optional(Source) },
  { additionalProperties: false },
);

/** The multipart body of an upload; documents the form (the handler reads it as a stream). */
export const UploadKBForm = Type.Object({
  file: Type.Optional(
    Type.String({
      format: 'binary',
      description: 'The file (.txt, .md, .html, .pdf or .docx, at most 10 MiB); the part may also be named document, upload or kbFile',
    }),
  ),
  title: Type.Optional(Type.String({ maxLength: 500, description: 'Default: the file name' })),
  source: Type.Optional(Type.String({ maxLength: 100, description: 'Default: upload' })),
});

export const KBDocumentResponse = Data(KBDocumentSchema);
export const KBDocumentPage = Page(KBDocumentSummarySchema);

/** Exactly the specification's fields: `ok`, `action`, `document` { `id`, `title` }. */
export const UpsertKBResponse = Type.Object(
  {
    ok: Type.Boolean(),
    action: Type.Union([Type.Literal('created'), Type.Literal('updated')]),
    document: Type.Object({ id: Type.String(), title: Type.String() }),
  },
  { title: 'KBUpsertResult' },
);

export const DeleteKBResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Boolean() }, { title: 'KBDocumentDeleted' }));
