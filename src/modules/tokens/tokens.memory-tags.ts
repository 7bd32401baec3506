import { Type } from '@sinclair/typebox';
import { InputError } from '../../http/errors.js';
import { normalizedTag, TAG_MAX_LENGTH } from '../../lib/tags.js';

/** How many tags a token's memory may be limited to (an entry holds at most 20). */
export const TOKEN_MEMORY_TAGS_MAX = 20;

/** The field of the token routes' bodies: the tags a token's memory is limited to. */
export const MemoryTagsField = Type.Union(
  [
    Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX_LENGTH }), {
      minItems: 1,
      maxItems: TOKEN_MEMORY_TAGS_MAX,
      description: `Limit the token's memory to entries carrying one of these tags (at most ${TOKEN_MEMORY_TAGS_MAX}, normalized as memory tags are): it sees, searches, counts and writes only those, and any other entry is unknown to it (404)`,
    }),
    Type.Null(),
  ],
  { description: 'Tags the token\'s memory is limited to; null or absent: all of the owner\'s memory' },
);

/**
 * The tags as stored: normalized as memory entries' tags are (so that they compare), each once,
 * in the order given. A value that is no tag is 400 naming it.
 */
export function memoryTagsOf(raw: readonly string[]): string[] {
  return [
    ...new Set(
      raw.map((value, i) => {
        const tag = normalizedTag(value);
        if (tag === undefined) {
          throw new InputError(
            `memoryTags.${i}`,
            'is not a valid tag',
            `memoryTags.${i} ${JSON.stringify(value.slice(0, 80))} is not a valid tag: use 1 to ${TAG_MAX_LENGTH} letters, digits and - _ . : / (starting with a letter or digit); spaces become dashes`,
          );
        }
        return tag;
      }),
    ),
  ];
}

/** The stored column for a change: the normalized tags as JSON, or null to lift the limit. */
export function memoryTagsColumn(raw: readonly string[] | null): string | null {
  return raw === null ? null : JSON.stringify(memoryTagsOf(raw));
}
