import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, List, Page, NoNul, Pattern, SearchMatch } from '../../http/schemas.js';

/**
 * A skill name is its slug, and the slug travels in URL paths (/skills/_by_slug/{slug}) and
 * names a SKILL.md folder for agents: ASCII letters, digits, `.`, `_` and `-`, starting with a
 * letter or digit (so never `.` or `..`), 1 to 100 characters. Surrounding spaces are trimmed.
 */
export const SKILL_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';
export const SKILL_NAME_REGEX = new RegExp(SKILL_NAME_PATTERN);
export const SKILL_DESCRIPTION_MAX = 1024;
export const SKILL_CATEGORY_MAX = 100;
/** Characters of a SKILL.md; well under the request body limit once JSON-escaped. */
export const SKILL_SCRIPT_MAX = 256 * 1024;
/** PostgreSQL's `serial` is a 32-bit integer: a larger id could only fail in the database. */
export const SKILL_ID_MAX = 2_147_483_647;
export const SKILL_BATCH_MAX = 200;
export const SKILL_SUGGESTIONS_MAX = 10;

const SkillName = Type.String({
  minLength: 1,
  maxLength: 200,
  // The name is trimmed before it is checked, so the pattern allows surrounding whitespace.
  ...Pattern(
    '^\\s*[A-Za-z0-9][A-Za-z0-9._-]{0,99}\\s*$',
    'a skill name is 1–100 letters, digits, dots, dashes or underscores, starting with a letter or digit',
  ),
  description:
    'The skill name, which is also its slug: 1 to 100 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit. Unique per owner, case-insensitively',
  examples: ['pdf-tools'],
});
const Description = Type.String({ maxLength: SKILL_DESCRIPTION_MAX, ...NoNul, description: 'What the skill does and when to use it' });
const Category = Type.String({ maxLength: SKILL_CATEGORY_MAX, ...NoNul, description: 'Free text, matched case-insensitively in filters' });
const ScriptContent = Type.String({
  maxLength: SKILL_SCRIPT_MAX,
  ...NoNul,
  description:
    'The SKILL.md (Agent Skills format). Its YAML frontmatter is sanitized: only name, description, license, compatibility, metadata and allowed-tools are kept, name and description are set from the skill, and a missing or broken frontmatter is rebuilt',
});

export const SkillIdSchema = Type.Integer({ minimum: 1, maximum: SKILL_ID_MAX, description: 'The numeric skill id' });

export const SkillOriginSchema = Type.Object(
  {
    type: Type.String({ description: '`created` for skills made here, `installed` for skills installed from the marketplace' }),
  },
  { additionalProperties: true, description: 'Where the skill came from; other fields depend on `type`' },
);
/**
 * Where a skill came from: `{ type: 'created' }` here; the marketplace adds its own types and
 * fields. `Static<>` does not carry `additionalProperties: true`, so the open part is added.
 */
export type SkillOrigin = Static<typeof SkillOriginSchema> & Record<string, unknown>;

export const SkillSchema = Type.Object(
  {
    id: SkillIdSchema,
    slug: Type.String({ description: 'Equals the name; matched case-insensitively' }),
    name: Type.String(),
    description: Type.String(),
    category: Type.String(),
    scriptContent: Type.String({ description: 'The sanitized SKILL.md' }),
    active: Type.Boolean(),
    origin: SkillOriginSchema,
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'Skill' },
);
export type Skill = Static<typeof SkillSchema>;

/** A skill in a list: everything but the SKILL.md, which can be large (GET /skills/{id} has it). */
export const SkillSummarySchema = Type.Omit(SkillSchema, ['scriptContent'], { title: 'SkillSummary' });
export type SkillSummary = Static<typeof SkillSummarySchema>;

export const SkillSuggestionSchema = Type.Object(
  { id: SkillIdSchema, slug: Type.String(), name: Type.String(), description: Type.String(), category: Type.String() },
  { title: 'SkillSuggestion' },
);
export type SkillSuggestion = Static<typeof SkillSuggestionSchema>;

export const SkillContentSchema = Type.Object(
  { id: SkillIdSchema, slug: Type.String(), name: Type.String(), content: Type.String({ description: 'The SKILL.md' }) },
  { title: 'SkillContent' },
);

export const SkillResponse = Data(SkillSchema);
export const SkillPage = Page(SkillSummarySchema);
export const SkillList = List(SkillSchema);
export const SkillSuggestionList = List(SkillSuggestionSchema);
export const SkillContentResponse = Data(SkillContentSchema);
export const SkillDeletedResponse = Data(Type.Object({ id: SkillIdSchema, deleted: Type.Literal(true) }, { title: 'SkillDeleted' }));
export const DetachedResponse = Data(Type.Object({ detached: Type.Literal(true) }, { title: 'Detached' }));

export const CreateSkillBody = Type.Object(
  {
    name: SkillName,
    description: Type.Optional(Description),
    category: Type.Optional(Category),
    scriptContent: Type.Optional(ScriptContent),
  },
  { additionalProperties: false },
);
export type CreateSkillBody = Static<typeof CreateSkillBody>;

export const UpdateSkillBody = Type.Object(
  {
    name: Type.Optional(SkillName),
    description: Type.Optional(Description),
    category: Type.Optional(Category),
    scriptContent: Type.Optional(ScriptContent),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSkillBody = Static<typeof UpdateSkillBody>;

const FreeText = Type.String({ minLength: 1, maxLength: 200 });

export const ListSkillsQuery = Type.Object({
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: 200, ...NoNul, description: 'Exact slug, any case' })),
  category: Type.Optional(
    Type.String({ minLength: 1, maxLength: SKILL_CATEGORY_MAX, ...NoNul, description: 'Exact category, any case' }),
  ),
  q: Type.Optional(
    Type.String({
      ...FreeText,
      description:
        'Full-text search over name, description and category in natural language: skills holding any of its words (each a word prefix, stemmed), best match first; see match. Results are ranked and not paged',
    }),
  ),
  match: Type.Optional(SearchMatch),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' })),
  cursor: Type.Optional(
    Type.String({
      ...Pattern('^[0-9]{1,10}$', 'a cursor is the `nextCursor` of the previous page, as it was answered: up to 10 digits'),
      description: 'The `nextCursor` of the previous page (not with `q`)',
    }),
  ),
});

export const SuggestionsQuery = Type.Object({
  q: Type.String({ ...FreeText, description: 'What the user typed so far; any word may match, prefixes included' }),
});

export const BatchQuery = Type.Object({
  id: Type.Optional(Type.Array(SkillIdSchema, { maxItems: SKILL_BATCH_MAX, description: 'Repeat for several: ?id=1&id=2' })),
  slug: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200, ...NoNul }), {
      maxItems: SKILL_BATCH_MAX,
      description: 'Repeat for several: ?slug=a&slug=b; any case',
    }),
  ),
});

export const SkillIdParams = Type.Object({ id: SkillIdSchema });
export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200, ...NoNul }) });
export const SkillDocumentParams = Type.Object({
  id: SkillIdSchema,
  docId: Type.String({ minLength: 1, maxLength: 100, ...NoNul }),
});

export const MARKDOWN_TYPES = ['text/markdown', 'text/plain'] as const;
/** The raw body of PUT /skills/{id}/skill.md. */
export const MarkdownBody = Type.String({ maxLength: SKILL_SCRIPT_MAX, ...NoNul, description: 'The SKILL.md' });
