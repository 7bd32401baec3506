/** The longest tag, in characters (memory entries, and the tags a token's memory is limited to). */
export const TAG_MAX_LENGTH = 64;

// Letters, digits and marks, then also - _ . : / (no quotes, commas or spaces: a tag is one word).
const TAG = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}_.:/-]*$/u;

/**
 * A tag as it is stored and matched: compatibility-normalized (NFKC), trimmed, lower case, runs of
 * spaces as one dash ("Work Projects" and "work-projects" are one tag); undefined when what is
 * left is not a tag. One rule for entries' tags and tokens' memory tags, so that they compare.
 */
export function normalizedTag(raw: string): string | undefined {
  const tag = raw.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, '-');
  return tag.length === 0 || tag.length > TAG_MAX_LENGTH || !TAG.test(tag) ? undefined : tag;
}

/**
 * The `LIKE` pattern that finds a tag in a stored JSON array of tags: its JSON string, with `%`,
 * `_` and the escape character escaped (used with `ESCAPE '\'`). Tags hold no quote, so the
 * quoted string matches exactly one whole tag.
 */
export function tagPattern(tag: string): string {
  return `%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
