import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CHANNELS } from '../../http/channel.js';
import { Data, IsoDateTime, List, NoNul, Page, PageQuery, SearchMatch, UrlSafe } from '../../http/schemas.js';

const literals = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );

/** What an entry is, for an agent deciding how to use it; an entry given only content is a note. */
export const MEMORY_KINDS = ['fact', 'preference', 'event', 'instruction', 'note'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
const MemoryKindSchema = literals(MEMORY_KINDS, {
  description: 'fact, preference, event, instruction or note (the default: an entry given only content is a note)',
});

export const SOURCE_KINDS = ['conversation', 'mail', 'document', 'url', 'other'] as const;

/** Bounds of what a writer may attach to an entry (400 beyond, from the schema). */
export const MEMORY_TAGS_MAX = 20;
export const MEMORY_TAG_MAX_LENGTH = 64;
export const SOURCE_REF_MAX_LENGTH = 2048;
export const SOURCE_QUOTE_MAX_LENGTH = 2000;
/** How many entries one write may supersede. */
export const SUPERSEDES_MAX = 20;

export const MemorySourceSchema = Type.Object(
  {
    kind: literals(SOURCE_KINDS, { description: 'conversation, mail, document, url or other' }),
    ref: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: SOURCE_REF_MAX_LENGTH,
        ...NoNul,
        description: `Where it comes from: a URL, a message or document id, a conversation id (at most ${SOURCE_REF_MAX_LENGTH} characters)`,
      }),
    ),
    quote: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: SOURCE_QUOTE_MAX_LENGTH,
        ...NoNul,
        description: `The words the entry was drawn from (at most ${SOURCE_QUOTE_MAX_LENGTH} characters)`,
      }),
    ),
  },
  {
    title: 'MemorySource',
    additionalProperties: false,
    description: "What the writer says the entry comes from: the writer's word, kept as given (the server records the author itself)",
  },
);
export type MemorySource = Static<typeof MemorySourceSchema>;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const MemoryAuthorSchema = Type.Object(
  {
    channel: literals(CHANNELS, {
      description: 'How the write reached Hearth: api (a bearer token), mcp (a tool call), console (the owner, signed in), import; unknown for entries stored before this was recorded',
    }),
    token: Nullable(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String({ description: 'The token\'s name when it wrote (renaming it later changes nothing here)' }),
          kind: literals(['master', 'session', 'api', 'handshake', 'oauth'] as const),
        },
        { title: 'MemoryAuthorToken' },
      ),
    ),
    agent: Nullable(
      Type.Object(
        {
          kind: literals(['oauth_client', 'handshake'] as const),
          id: Type.String({ description: "The OAuth client's id, or the handshake's" }),
          name: Type.String({ description: "The OAuth client's registered name, or the id the handshake's agent gave itself" }),
        },
        { title: 'MemoryAuthorAgent' },
      ),
    ),
  },
  {
    title: 'MemoryAuthor',
    description: 'Who wrote, as the server recorded it: never taken from the request body. token is null for entries stored before authors were recorded',
  },
);
export type MemoryAuthor = Static<typeof MemoryAuthorSchema>;

export const MemoryEntrySchema = Type.Object(
  {
    id: Type.String(),
    content: Type.String({ description: 'Freeform markdown' }),
    created_at: IsoDateTime,
    updatedAt: IsoDateTime,
    kind: MemoryKindSchema,
    tags: Type.Array(Type.String(), { description: 'Normalized tags (lower case, spaces as dashes)' }),
    pinned: Type.Boolean(),
    validFrom: Type.Union([IsoDateTime, Type.Null()], { description: 'From when the entry holds; null: always has' }),
    validUntil: Type.Union([IsoDateTime, Type.Null()], { description: 'Until when the entry holds; null: still does' }),
    source: Type.Union([MemorySourceSchema, Type.Null()]),
    author: MemoryAuthorSchema,
    editedBy: Type.Union([MemoryAuthorSchema, Type.Null()], { description: 'Who changed the entry last; null while nobody has' }),
    supersedes: Type.Array(Type.String(), { description: 'The entries this one replaced (they are kept, marked superseded by it)' }),
    supersededBy: Type.Union([Type.String(), Type.Null()], { description: 'The entry that replaced this one; null while it is current' }),
    supersededAt: Type.Union([IsoDateTime, Type.Null()], { description: 'When it was replaced' }),
    seenCount: Type.Integer({
      minimum: 1,
      description: 'How many times a writer stored this entry: 1 when only its author did; each write of the same text (or, with vectors, the same meaning) that was answered with duplicateOf adds one',
    }),
    lastSeenAt: Type.Union([IsoDateTime, Type.Null()], { description: 'When a writer last stored it again (a write answered with duplicateOf); null while only its author has' }),
    lastSeenBy: Type.Union([MemoryAuthorSchema, Type.Null()], { description: 'Who stored it again last, as the server recorded them; null while only its author has' }),
  },
  { title: 'MemoryEntry' },
);
/**
 * A memory entry as the API shows it. The specification spells `created_at`; every other field
 * is camelCase, as the conventions say. Everything after `updatedAt` extends the specification's entry.
 */
export type MemoryEntry = Static<typeof MemoryEntrySchema>;

// No maxLength: the limit is 64 KiB of UTF-8, checked by the service so that it answers 413, not 400.
const Content = Type.String({
  minLength: 1,
  description: 'Freeform markdown, not blank, at most 65,536 bytes of UTF-8 (413 beyond)',
});

const Tags = Type.Array(
  Type.String({
    minLength: 1,
    maxLength: MEMORY_TAG_MAX_LENGTH,
    description: `A tag: letters, digits and - _ . : / (spaces become dashes, upper case lower), at most ${MEMORY_TAG_MAX_LENGTH} characters`,
  }),
  { maxItems: MEMORY_TAGS_MAX, description: `At most ${MEMORY_TAGS_MAX} tags; repeats are kept once` },
);

/** What a writer may give besides content: all optional, on creation and on change. */
const structure = {
  kind: Type.Optional(MemoryKindSchema),
  tags: Type.Optional(Tags),
  pinned: Type.Optional(Type.Boolean({ description: 'A core fact or standing instruction of the owner' })),
  validFrom: Type.Optional(Type.Union([IsoDateTime, Type.Null()], { description: 'From when the entry holds (date-time); null clears it' })),
  validUntil: Type.Optional(Type.Union([IsoDateTime, Type.Null()], { description: 'Until when the entry holds (date-time, after validFrom); null clears it' })),
  source: Type.Optional(Type.Union([MemorySourceSchema, Type.Null()])),
};

const EntryId = Type.String({ minLength: 1, maxLength: 100, ...UrlSafe });

export const MemoryBody = Type.Object(
  {
    content: Content,
    ...structure,
    supersedes: Type.Optional(
      Type.Array(EntryId, {
        minItems: 1,
        maxItems: SUPERSEDES_MAX,
        description: `Ids of current entries this one replaces (at most ${SUPERSEDES_MAX}): they are kept, marked superseded by it, and leave lists, search and the context`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** A change: any of the fields, content among them; what is left out stays as it is. */
export const MemoryPatchBody = Type.Object(
  {
    content: Type.Optional(Content),
    ...structure,
    supersededBy: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        ...UrlSafe,
        description: 'The id of a current entry that replaces this one (given alone): this one is kept, marked superseded, and leaves lists, search and the context',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'The fields to change; the others stay as they are' },
);

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
  author: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, ...UrlSafe, description: 'Only entries written by this token (its id, as author.token.id shows it)' }),
  ),
  channel: Type.Optional(literals(CHANNELS, { description: 'Only entries written over this channel' })),
  kind: Type.Optional(MemoryKindSchema),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: MEMORY_TAG_MAX_LENGTH, description: 'Only entries with this tag (normalized as tags are)' })),
  pinned: Type.Optional(Type.Boolean({ description: 'Only pinned entries (true) or only the others (false)' })),
  include: Type.Optional(Type.Literal('history', { description: 'history: superseded and expired entries too (left out by default)' })),
  asOf: Type.Optional(
    Type.String({ format: 'date-time', description: 'The entries that were current at this date-time: written by then, not yet superseded, within their window' }),
  ),
});

export const MemoryPage = Page(MemoryEntrySchema);
export const MemoryHistory = List(MemoryEntrySchema);
export const MemoryResponse = Data(MemoryEntrySchema);

/** The most pinned entries the profile answers and orders (the gateway context caps them lower). */
export const PROFILE_MAX = 200;

// The same shape as a history: a list of entries.
export const MemoryProfile = MemoryHistory;

export const MemoryProfileOrderBody = Type.Object(
  {
    order: Type.Array(EntryId, {
      maxItems: PROFILE_MAX,
      description: `Ids of pinned entries in the order wanted, first first (at most ${PROFILE_MAX}); pinned entries not named follow, in their order before`,
    }),
  },
  { additionalProperties: false },
);

/** The answer to a write that added nothing: the entry that already says it. */
export const MemoryDuplicateResponse = Type.Object(
  {
    data: MemoryEntrySchema,
    duplicateOf: Type.String({ description: 'The id of the current entry that already says this (data): nothing was added, the attempt is counted on it (seenCount, lastSeenAt, lastSeenBy)' }),
    matchedBy: literals(['text', 'meaning'] as const, {
      description: 'text: the same words once normalized (case, spacing, Unicode forms, trailing punctuation); meaning: near-identical meaning by the stored vectors',
    }),
  },
  { title: 'MemoryDuplicate' },
);

export const ClearMemoryResponse = Type.Object(
  {
    success: Type.Boolean(),
    deleted: Type.Integer({ description: 'How many entries were deleted' }),
  },
  { title: 'MemoryCleared', additionalProperties: false },
);

export const DeletedMemoryResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));

/** Forgetting everything one token wrote: first counted (dryRun), then done with the count shown. */
export const ForgetMemoryBody = Type.Object(
  {
    author: Type.String({
      minLength: 1,
      maxLength: 100,
      ...UrlSafe,
      description: "The token whose entries to forget (its id, as author.token.id shows it); the token may be revoked or deleted already",
    }),
    dryRun: Type.Optional(Type.Boolean({ description: 'true: only count what would be forgotten, and change nothing' })),
    expectedCount: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The count the owner confirmed (from a dry run): when the token has since written or lost entries, nothing is deleted and the answer is 409 with the new count',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ForgetMemoryResponse = Data(
  Type.Object(
    {
      author: Type.String({ description: 'The token whose entries were forgotten' }),
      dryRun: Type.Boolean({ description: 'true when nothing was changed: the counts say what would be' }),
      count: Type.Integer({ description: 'How many entries the token wrote (all of them, superseded and expired too)' }),
      deleted: Type.Integer({ description: 'How many entries were deleted (0 on a dry run)' }),
      restored: Type.Integer({
        description: "How many entries written by others, which one of the forgotten entries had replaced, are current again (or would be) because nothing kept replaced them",
      }),
    },
    { title: 'MemoryForgotten', additionalProperties: false },
  ),
);

/** How many authors the list of authors answers at most: the ones that wrote last. */
export const MEMORY_AUTHORS_MAX = 500;

export const MemoryAuthorSummary = Type.Object(
  {
    token: MemoryAuthorSchema.properties.token,
    agent: MemoryAuthorSchema.properties.agent,
    count: Type.Integer({ description: 'How many entries it wrote that are stored (superseded and expired too)' }),
    lastWrittenAt: IsoDateTime,
  },
  {
    title: 'MemoryAuthorSummary',
    description: 'One author of memory entries, named as its newest entry records it (the token may be renamed, revoked or deleted since); token null: entries stored before authors were recorded',
  },
);
export const MemoryAuthors = List(MemoryAuthorSummary);
