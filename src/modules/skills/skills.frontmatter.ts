/**
 * SKILL.md sanitizing. A skill's `scriptContent` is an Agent Skills SKILL.md: YAML frontmatter
 * between `---` lines, then a markdown body. Agents and other tools parse that frontmatter, so
 * what Hearth stores must always parse, hold only the fields the format defines, and agree with
 * the skill's record. Input comes from any client (and, through the marketplace, from other
 * owners), so the YAML is treated as hostile:
 * - the frontmatter is capped in size and in nesting depth before it is parsed at all;
 * - it is parsed with the failsafe schema (every scalar is a string, no tag ever constructs
 *   anything) and aliases are never expanded: values are read from the syntax tree, and an
 *   alias node is dropped, so an alias bomb costs nothing;
 * - the stored frontmatter is rebuilt from plain strings and serialized by the yaml package,
 *   never copied from the input, so anchors, tags, comments and odd quoting do not survive.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, type Node, type Scalar, type YAMLMap } from 'yaml';

/** Frontmatter larger than this is not parsed: it is regenerated from the record. */
export const FRONTMATTER_MAX_BYTES = 16 * 1024;

/**
 * Frontmatter that may nest deeper than this is not parsed either. The format's fields nest two
 * levels; the yaml parser recurses once per level, and about 1,000 levels (2 KB of "{") made V8
 * abort the whole server process (a fatal out-of-memory in its regular-expression compiler, run
 * deep in that recursion): no exception a caller could catch.
 */
export const FRONTMATTER_MAX_DEPTH = 64;

/**
 * An upper bound of a YAML text's nesting depth, in one pass without parsing: the deepest block
 * nesting (a line's indentation plus the "- ", "? " and ": " indicators it opens with: each level
 * takes at least one of them) plus the deepest flow nesting ("[" and "{" not yet closed, quoted
 * or not: a bracket inside a quoted string can only raise the bound).
 */
export function nestingBound(yaml: string): number {
  let block = 0;
  let flow = 0;
  let deepestFlow = 0;
  // YAML breaks lines at CR LF, LF and a lone CR alike.
  for (const line of yaml.split(/\r\n|\r|\n/)) {
    const lead = /^[ \t]*((?:[-?:][ \t]+)*)/.exec(line)!;
    block = Math.max(block, lead[0].length - lead[1]!.length + lead[1]!.replace(/[ \t]+/g, '').length);
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c === 91 /* [ */ || c === 123 /* { */) deepestFlow = Math.max(deepestFlow, ++flow);
      else if ((c === 93 /* ] */ || c === 125) /* } */ && flow > 0) flow--;
    }
  }
  return block + deepestFlow;
}

/** The fields of the Agent Skills format, in the order they are written. */
export const FRONTMATTER_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const;

/** The format limits `compatibility` to 500 characters. */
const COMPATIBILITY_MAX_CHARS = 500;

export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  'allowed-tools'?: string;
}

export interface SanitizedSkillMarkdown {
  /** The SKILL.md to store: LF line endings, no BOM, a frontmatter that always parses. */
  content: string;
  frontmatter: SkillFrontmatter;
  /** The non-empty description the input's frontmatter carried, before the record replaced it. */
  frontmatterDescription: string | undefined;
  /** Why the frontmatter was rebuilt from the record alone, or null when the input's was usable. */
  regenerated: null | 'missing' | 'too-large' | 'too-deep' | 'invalid-yaml' | 'not-a-mapping';
}

interface Split {
  /** The text between the delimiter lines, or null when the input has no frontmatter block. */
  frontmatter: string | null;
  body: string;
}

const OPENING = /^---[ \t]*\n/;
const CLOSING = /^---[ \t]*$/m;

/** Strips a BOM and makes line endings LF, so that the delimiters and YAML see one shape. */
export function normalizeText(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/**
 * Finds the frontmatter block. It opens with a `---` line at the very start and closes at the
 * next `---` line; without a closing line there is no frontmatter (a document may well open
 * with a thematic break), and the whole text is body.
 */
export function splitFrontmatter(text: string): Split {
  const opening = OPENING.exec(text);
  if (!opening) return { frontmatter: null, body: text };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { frontmatter: null, body: text };
  const frontmatter = rest.slice(0, closing.index).replace(/\n$/, '');
  let bodyStart = closing.index + closing[0].length;
  if (rest[bodyStart] === '\n') bodyStart += 1;
  return { frontmatter, body: rest.slice(bodyStart) };
}

const PARSE_OPTIONS = {
  // Every scalar stays the string the author wrote ("1.10" stays "1.10"), and no tag, known
  // or custom, turns into anything but a string.
  schema: 'failsafe',
  merge: false,
  resolveKnownTags: false,
  version: '1.2',
  strict: true,
  uniqueKeys: true,
  prettyErrors: false,
  logLevel: 'silent',
} as const;

/** A plain string from a scalar node; aliases, collections and absent nodes give undefined. */
function scalarText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = (node as Scalar).value;
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

type Salvaged = Omit<SkillFrontmatter, 'name' | 'description'> & { description?: string };

/** Reads the allowed fields from a parsed mapping without ever resolving an alias. */
function fieldsFromMap(map: YAMLMap): Salvaged {
  const out: Salvaged = {};
  for (const pair of map.items) {
    const key = scalarText(pair.key);
    const value = pair.value as Node | null;
    switch (key) {
      case 'description':
        out.description = nonEmpty(scalarText(value));
        break;
      case 'license':
        out.license = nonEmpty(scalarText(value));
        break;
      case 'compatibility':
        out.compatibility = nonEmpty(scalarText(value))?.slice(0, COMPATIBILITY_MAX_CHARS);
        break;
      case 'allowed-tools':
        // The format says a space-separated string; a YAML list of tool names is read as one.
        out['allowed-tools'] = isSeq(value)
          ? nonEmpty(
              value.items
                .map((item) => scalarText(item))
                .filter((t): t is string => !!t)
                .join(' '),
            )
          : nonEmpty(scalarText(value));
        break;
      case 'metadata':
        if (isMap(value)) {
          // A string-to-string map: scalar values are kept as written, anything else is dropped.
          const entries: Array<[string, string]> = [];
          for (const entry of value.items) {
            const k = scalarText(entry.key);
            const v = scalarText(entry.value);
            if (k && v !== undefined) entries.push([k, v]);
          }
          // fromEntries defines own properties, so a key like "__proto__" stays plain data.
          if (entries.length > 0) out.metadata = Object.fromEntries(entries);
        }
        break;
    }
  }
  return out;
}

const SALVAGE_LINE = /^(description|license|compatibility|allowed-tools):[ \t]*(.*)$/gm;

/**
 * From frontmatter that does not parse as a whole, keeps the simple one-line fields whose
 * value parses on its own; a field broken by the same error as the document is dropped.
 */
function salvageLines(frontmatter: string): Salvaged {
  const out: Salvaged = {};
  for (const match of frontmatter.matchAll(SALVAGE_LINE)) {
    const key = match[1] as 'description' | 'license' | 'compatibility' | 'allowed-tools';
    const doc = parseDocument(match[2] ?? '', PARSE_OPTIONS);
    if (doc.errors.length > 0) continue;
    const value = nonEmpty(scalarText(doc.contents));
    if (value !== undefined && out[key] === undefined) {
      out[key] = key === 'compatibility' ? value.slice(0, COMPATIBILITY_MAX_CHARS) : value;
    }
  }
  return out;
}

/** Serializes the frontmatter; quoting also follows YAML 1.1 so that older parsers read strings as strings. */
export function stringifyFrontmatter(frontmatter: SkillFrontmatter): string {
  const ordered: Record<string, unknown> = {};
  for (const key of FRONTMATTER_KEYS) {
    if (frontmatter[key] !== undefined) ordered[key] = frontmatter[key];
  }
  return new Document(ordered, { version: '1.2', compat: 'yaml-1.1' }).toString({ lineWidth: 0 });
}

/**
 * Sanitizes a SKILL.md for storage. `name` and `description` always come from the record;
 * the other Agent Skills fields are kept when they are well-formed; anything else in the
 * frontmatter is dropped. Missing, oversized, unparseable or non-mapping frontmatter is
 * rebuilt from the record; the markdown body is always kept.
 */
export function sanitizeSkillMarkdown(input: string, record: { name: string; description: string }): SanitizedSkillMarkdown {
  const { frontmatter: source, body } = splitFrontmatter(normalizeText(input));

  let fields: Salvaged = {};
  let regenerated: SanitizedSkillMarkdown['regenerated'] = null;
  if (source === null) {
    regenerated = 'missing';
  } else if (Buffer.byteLength(source, 'utf8') > FRONTMATTER_MAX_BYTES) {
    regenerated = 'too-large';
  } else if (nestingBound(source) > FRONTMATTER_MAX_DEPTH) {
    regenerated = 'too-deep';
  } else {
    const doc = parseDocument(source, PARSE_OPTIONS);
    if (doc.errors.length > 0) {
      regenerated = 'invalid-yaml';
      fields = salvageLines(source);
    } else if (!isMap(doc.contents)) {
      regenerated = 'not-a-mapping';
    } else {
      fields = fieldsFromMap(doc.contents);
    }
  }

  const { description: frontmatterDescription, ...kept } = fields;
  const frontmatter: SkillFrontmatter = { name: record.name, description: record.description };
  for (const [key, value] of Object.entries(kept)) {
    if (value !== undefined) (frontmatter as unknown as Record<string, unknown>)[key] = value;
  }

  // A body that had no frontmatter before is set off from the new one by a blank line; a body
  // that followed a frontmatter keeps its exact start, so sanitizing twice changes nothing.
  const separator = source === null && body !== '' && !body.startsWith('\n') ? '\n' : '';
  const content = `---\n${stringifyFrontmatter(frontmatter)}---\n${separator}${body}`;
  return { content, frontmatter, frontmatterDescription, regenerated };
}
