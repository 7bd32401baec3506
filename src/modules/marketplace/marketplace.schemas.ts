import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, RecordId, NoNul, Pattern } from '../../http/schemas.js';
import { SkillIdSchema } from '../skills/skills.schemas.js';

export const LISTING_TITLE_MAX = 200;
export const LISTING_DESCRIPTION_MAX = 2000;
export const REVIEW_MAX = 2000;
export const LISTING_PAGE_MAX = 100;
export const LISTING_PAGE_DEFAULT = 20;


export const LISTING_TYPES = ['skill', 'persona'] as const;
export type ListingType = (typeof LISTING_TYPES)[number];
export const ListingTypeSchema = Type.Union(
  LISTING_TYPES.map((t) => Type.Literal(t)),
  { description: 'What the listing offers: one of the publisher\'s skills or personas' },
);

export const SORTS = ['newest', 'rating', 'installs'] as const;
export type ListingSort = (typeof SORTS)[number];

const RefId = Type.Union([SkillIdSchema, RecordId], {
  description: 'The published original: a skill id (integer) for `skill`, a persona id (string) for `persona`',
});

const Title = Type.String({
  minLength: 1,
  maxLength: LISTING_TITLE_MAX,
  ...Pattern('^[^\\u0000]*\\S[^\\u0000]*$', 'a title must hold something other than spaces, and no NUL character (\\u0000)'),
  description: `1 to ${LISTING_TITLE_MAX} characters, not only spaces; trimmed`,
});
const Description = Type.String({
  maxLength: LISTING_DESCRIPTION_MAX,
  ...NoNul,
  description: `Up to ${LISTING_DESCRIPTION_MAX} characters; trimmed`,
});

const SkillSnapshotSchema = Type.Object(
  {
    name: Type.String({ description: 'The skill name, which becomes the installed copy\'s name and slug' }),
    description: Type.String(),
    category: Type.String(),
    scriptContent: Type.String({ description: 'The SKILL.md' }),
  },
  { title: 'SkillSnapshot' },
);
export type SkillSnapshot = Static<typeof SkillSnapshotSchema>;
const PersonaSnapshotSchema = Type.Object(
  { name: Type.String(), description: Type.String(), soul_content: Type.String() },
  { title: 'PersonaSnapshot' },
);
export type PersonaSnapshot = Static<typeof PersonaSnapshotSchema>;

const ListingFields = {
  id: Type.String(),
  type: ListingTypeSchema,
  refId: Type.Union([Type.Integer(), Type.String()], {
    description: 'The publisher\'s original (skill id integer, persona id string); it may since have changed or been deleted',
  }),
  title: Type.String(),
  description: Type.String(),
  price: Type.Number({ description: 'Always 0: listings are free and installing never charges' }),
  ratingAverage: Type.Union([Type.Number(), Type.Null()], {
    description: 'The mean of the ratings (1 to 5), rounded to two decimals; null while nobody has rated',
  }),
  ratingCount: Type.Integer(),
  installs: Type.Integer({ description: 'How many copies have been installed from this listing' }),
  ownerId: Type.String({ description: 'The publisher\'s user id' }),
  snapshotAt: Type.String({ format: 'date-time', description: 'When the published content was taken from the original (publish, or a refresh)' }),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
};

export const ListingSummarySchema = Type.Object(ListingFields, { title: 'MarketplaceListingSummary' });
export type ListingSummary = Static<typeof ListingSummarySchema>;
export const ListingSchema = Type.Object(
  {
    ...ListingFields,
    snapshot: Type.Union([SkillSnapshotSchema, PersonaSnapshotSchema], {
      description: 'What an install copies, exactly as published: later edits to the original do not change it',
    }),
  },
  { title: 'MarketplaceListing' },
);
export type Listing = Static<typeof ListingSchema>;

export const RatingSchema = Type.Object(
  {
    userId: Type.String(),
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    review: Type.Union([Type.String(), Type.Null()]),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'MarketplaceRating' },
);
export type Rating = Static<typeof RatingSchema>;

export const ListingResponse = Data(ListingSchema);
export const ListingPage = Page(ListingSummarySchema);
export const RatingPage = Page(RatingSchema);
export const ListingDeletedResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));
export const InstallResponse = Data(
  Type.Object(
    {
      type: ListingTypeSchema,
      id: Type.Union([Type.Integer(), Type.String()], { description: 'The new copy: a skill id (integer) or a persona id (string)' }),
    },
    { title: 'MarketplaceInstallation' },
  ),
);

export const CreateListingBody = Type.Object(
  {
    type: ListingTypeSchema,
    refId: RefId,
    title: Title,
    description: Type.Optional(
      Type.String({ ...Description, description: `${Description.description}. Omitted: the original's description` }),
    ),
  },
  { additionalProperties: false },
);
export type CreateListingBody = Static<typeof CreateListingBody>;

export const UpdateListingBody = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    refreshSnapshot: Type.Optional(
      Type.Boolean({ description: 'true: take the snapshot again from the original as it is now (which must still exist)' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'The fields to change; at least one' },
);
export type UpdateListingBody = Static<typeof UpdateListingBody>;

export const RateBody = Type.Object(
  {
    rating: Type.Integer({ minimum: 1, maximum: 5, description: '1 (worst) to 5 (best)' }),
    review: Type.Optional(Type.String({ maxLength: REVIEW_MAX, ...NoNul, description: `Up to ${REVIEW_MAX} characters` })),
  },
  { additionalProperties: false },
);
export type RateBody = Static<typeof RateBody>;

const Cursor = Type.String({ minLength: 1, maxLength: 300, ...Pattern('^[A-Za-z0-9_-]+$', 'a cursor is the `nextCursor` of the previous page, as it was answered'), description: 'The `nextCursor` of the previous page' });
const Limit = Type.Integer({
  minimum: 1,
  maximum: LISTING_PAGE_MAX,
  default: LISTING_PAGE_DEFAULT,
  description: `Page size, 1 to ${LISTING_PAGE_MAX}`,
});

export const ListListingsQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      ...NoNul,
      description: 'Full-text filter over title and description: every word must match (word prefixes match too). The sort still applies',
    }),
  ),
  type: Type.Optional(ListingTypeSchema),
  sort: Type.Optional(
    Type.Union(
      SORTS.map((s) => Type.Literal(s)),
      {
        default: 'newest',
        description: '`newest` (default), `rating` (highest average first, then most ratings) or `installs` (most installed first)',
      },
    ),
  ),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Cursor),
});
export type ListListingsQuery = Static<typeof ListListingsQuery>;

export const ListRatingsQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) });

export const ListingIdParams = Type.Object({ id: RecordId });
