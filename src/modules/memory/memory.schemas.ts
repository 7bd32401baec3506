import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery, SearchMatch } from '../../http/schemas.js';

export const MemoryEntrySchema = Type.Object(
  {
    id: Type.String(),
    content: Type.String({ description: 'Freeform markdown' }),
    created_at: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'MemoryEntry' },
);
/**
 * A memory entry as the API shows it. The specification spells `created_at`; every other field
 * is camelCase, as the conventions say.
 */
export type MemoryEntry = Static<typeof MemoryEntrySchema>;

// No maxLength: the limit is 64 KiB of UTF-8, checked by the service so that it answers 413, not 400.
const Content = Type.String({
  minLength: 1,
  description: 'Freeform markdown, not blank, at most 65,536 bytes of UTF-8 (413 beyond)',
});

export const MemoryBody = Type.Object({ content: Content }, { additionalProperties: false });

export const ListMemoryQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(
    Type.String({
      maxLength: 500,
      description:
        'Search in natural language: entries containing any of its words (each a word prefix, stemmed) and, when an embedder is on, entries close to it in meaning, best match first, in one page (`nextCursor` is null); see match',
    }),
  ),
  match: Type.Optional(SearchMatch),
});

export const MemoryPage = Page(MemoryEntrySchema);
export const MemoryResponse = Data(MemoryEntrySchema);

export const ClearMemoryResponse = Type.Object(
  {
    success: Type.Boolean(),
    deleted: Type.Integer({ description: 'How many entries were deleted' }),
  },
  { title: 'MemoryCleared', additionalProperties: false },
);

export const DeletedMemoryResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));
