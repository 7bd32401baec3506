import { Type, type TSchema } from '@sinclair/typebox';

/** `{ "error", "message", "details"? }`: every error answer. */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'A code from the closed list in the README, e.g. NOT_FOUND' }),
    message: Type.String({ description: 'What went wrong and how to fix it' }),
    details: Type.Optional(Type.Unknown()),
    requestId: Type.Optional(Type.String({ description: 'Present on 5xx answers, to find the failure in the logs' })),
  },
  { title: 'ErrorResponse' },
);

/**
 * For routes whose JSON body may be left out entirely: Fastify validates a missing body as
 * null, so this turns it into the empty object before validation.
 */
export async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

/**
 * An envelope named after what it wraps (`MemoryEntry` → `MemoryEntryPage`), so that the OpenAPI document
 * lists it under components.schemas and generated clients get a named type. Unnamed contents
 * leave the envelope unnamed.
 */
function envelopeTitle(item: TSchema, suffix: string): { title?: string } {
  return typeof item.title === 'string' ? { title: `${item.title}${suffix}` } : {};
}

/** `{ "data": T }`: one resource. */
export function Data<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema }, envelopeTitle(schema, 'Response'));
}

/** `{ "data": T[], "nextCursor" }`: one page of a long list. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` to read the next page; null on the last page',
      }),
    },
    envelopeTitle(item, 'Page'),
  );
}

/** `{ "data": T[] }`: a short list that is never paged. */
export function List<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item) }, envelopeTitle(item, 'List'));
}

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page' })),
};

/** How a search's `q` matches: `any` word ranked (the default), or `all` words required. */
export const SearchMatch = Type.Union([Type.Literal('any'), Type.Literal('all')], {
  default: 'any',
  description:
    '`any` (default): entries holding any word of q, ranked by bm25 so that those holding more and rarer words come first; `all`: only entries holding every word. Common English words (the, of, my…) are left out of q unless it has no other',
});

/**
 * The schema keyword that says in words what a string's `pattern` accepts. A refused value is
 * answered with these words instead of the regular expression, and the OpenAPI document carries
 * them next to the pattern. Every `pattern` of a request schema has one (a test walks them).
 */
export const PATTERN_MESSAGE = 'x-pattern-message';

/** `pattern` and its words, to spread into a string schema's options. */
export function Pattern(pattern: string, message: string): { pattern: string; [PATTERN_MESSAGE]: string } {
  return { pattern, [PATTERN_MESSAGE]: message };
}

/** Text that may hold anything but NUL, which PostgreSQL cannot store. */
export const NoNul = Pattern('^[^\\u0000]*$', 'text may not contain the NUL character (\\u0000)');

/** Letters, digits, dashes and underscores: ids, cursors, provider names. */
export const UrlSafe = Pattern('^[A-Za-z0-9_-]+$', 'only letters, digits, dashes (-) and underscores (_) are accepted');

/** Record ids are a prefix and URL-safe characters; anything else cannot name a record. */
export const RecordId = Type.String({ minLength: 1, maxLength: 100, ...UrlSafe, description: 'A record id, as the API answered it' });
export const IdParams = Type.Object({ id: RecordId });

export const IsoDateTime = Type.String({ format: 'date-time' });
export const NullableDateTime = Type.Union([IsoDateTime, Type.Null()]);

/**
 * A query parameter's name as the query parser reads it (`+` a space, `%XX` decoded), so that
 * `?%74oken=` is recognised as the `token` it authenticates as. A name that does not decode is
 * answered as written.
 */
export function decodeQueryName(name: string): string {
  const spaced = name.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

const REDACTED_QUERY_NAMES = new Set(['token', 'code', 'state']);

/**
 * Keeps secrets in query strings out of anything that is logged: the query token (`?token=`)
 * and an OAuth callback's `code` and `state`, whatever the case and however the name is encoded.
 */
export function redactUrl(url: string): string {
  const masked = url.replace(/([?&](?:token|code|state)=)[^&#]*/gi, '$1[REDACTED]');
  const start = masked.indexOf('?');
  if (start === -1) return masked;
  const hash = masked.indexOf('#', start);
  const end = hash === -1 ? masked.length : hash;
  const pairs = masked
    .slice(start + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1 || !REDACTED_QUERY_NAMES.has(decodeQueryName(pair.slice(0, eq)).toLowerCase())) return pair;
      return `${pair.slice(0, eq + 1)}[REDACTED]`;
    });
  return `${masked.slice(0, start + 1)}${pairs.join('&')}${masked.slice(end)}`;
}
