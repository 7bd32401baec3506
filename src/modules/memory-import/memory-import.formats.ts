/**
 * The formats memory is brought from, each read into the entries it holds. A parser sees text
 * already decoded (memory-import.bytes.ts) and bounded in size; it refuses what it cannot read
 * with a 400 naming the line or file, and lists what it leaves out, and why, as skipped.
 */
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { AppError } from '../../http/errors.js';
import { MEMORY_KINDS, MEMORY_TAGS_MAX, MEMORY_TAG_MAX_LENGTH, SOURCE_REF_MAX_LENGTH, type MemoryKind, type MemorySource } from '../memory/memory.schemas.js';
import { nestingBound } from '../skills/skills.frontmatter.js';
import { decodeUtf8, isZip, lineAndColumn, readZip } from './memory-import.bytes.js';
import { clip, clipPath, echo, ECHO_MAX } from './memory-import.echo.js';

export const IMPORT_FORMATS = ['mem0', 'mcp-memory', 'letta', 'markdown', 'text'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** An entry read from the other tool, before it is judged as a memory entry. */
export interface ImportItem {
  content: string;
  kind?: MemoryKind | undefined;
  tags: string[];
  pinned?: boolean | undefined;
  /** The time the other tool recorded the memory, UTC ISO; none when it recorded none. */
  createdAt?: string | undefined;
  source: MemorySource;
  /** Where it was read, for a person: "line 3", "notes/tea.md", "memory 12". */
  where: string;
}

export interface Skipped {
  where: string;
  reason: string;
}

export interface Parsed {
  items: ImportItem[];
  skipped: Skipped[];
}

/** How much one import reads before it is refused (413): entries, and records skipped. */
export interface ReadBounds {
  entries: number;
  skipped: number;
}

/**
 * A name the other tool gives to many records at once (an MCP entity heads each of its
 * observations, a Letta agent and block label name each entry's source) is kept to this many
 * characters where it is repeated: a name of megabytes repeated for each of thousands of
 * records was gigabytes held and copied from a file of a few megabytes.
 */
const NAME_MAX = 1000;

/**
 * What a skipped line's `where` and `reason` may hold at most, whatever a parser put in them:
 * each of the other tool's words in them is cut to ECHO_MAX already (memory-import.echo.ts);
 * this bounds what a message made of several such words, or a parser that forgot one, adds to
 * the answer (200 lines of it are listed) and to what is held while reading (100,000).
 */
const WHERE_MAX = 300;
const REASON_MAX = 400;

/**
 * What a parser has read so far, bounded while it reads: past the bounds the import is refused at
 * once, so that a file of millions of tiny records (10 MiB of one-character lines) never becomes
 * millions of objects held by the server before a count refuses them.
 */
class Reading {
  readonly items: ImportItem[] = [];
  readonly skipped: Skipped[] = [];
  constructor(
    readonly file: string,
    private readonly bounds: ReadBounds,
  ) {}

  item(item: ImportItem): void {
    if (this.items.length >= this.bounds.entries) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `${this.file} holds more than ${this.bounds.entries} entries; an import writes at most ${this.bounds.entries}. Import it in parts; nothing was imported`,
        { details: { file: this.file, maxEntries: this.bounds.entries } },
      );
    }
    this.items.push(item.where.length > WHERE_MAX ? { ...item, where: clip(item.where, WHERE_MAX) } : item);
  }

  skip(skipped: Skipped): void {
    if (this.skipped.length >= this.bounds.skipped) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `${this.file} holds more than ${this.bounds.skipped} lines or records that are no memory (${clip(skipped.reason, REASON_MAX)}); it does not look like a memory export. Nothing was imported`,
        { details: { file: this.file, maxSkipped: this.bounds.skipped } },
      );
    }
    this.skipped.push({ where: clip(skipped.where, WHERE_MAX), reason: clip(skipped.reason, REASON_MAX) });
  }

  parsed(): Parsed {
    return { items: this.items, skipped: this.skipped };
  }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

/** A word of the other tool made a Hearth tag (letters, digits and - _ . : /), or null when nothing is left. */
export function toTag(raw: string): string | null {
  // A tag keeps at most MEMORY_TAG_MAX_LENGTH characters: the word is read no further than
  // sixteen times that (room for the spaces and signs that are dropped), so a label of megabytes
  // costs no more than a short one, however many records repeat it.
  const tag = clip(raw, MEMORY_TAG_MAX_LENGTH * 16, '')
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^\p{L}\p{N}\p{M}_.:/-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .slice(0, MEMORY_TAG_MAX_LENGTH)
    .replace(/-+$/, '');
  return tag === '' ? null : tag;
}

/** Tags made from words, repeats once, at most MEMORY_TAGS_MAX. */
export function tagsOf(words: Iterable<string>): string[] {
  const tags = new Set<string>();
  for (const word of words) {
    const tag = toTag(word);
    if (tag !== null) tags.add(tag);
    if (tags.size === MEMORY_TAGS_MAX) break;
  }
  return [...tags];
}

/** A time the other tool wrote, as stored (UTC ISO), or undefined when it is none or unreadable. */
export function timeOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Seconds or milliseconds since 1970, as tools write them.
    const ms = value < 1e11 ? value * 1000 : value;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  }
  if (typeof value !== 'string' || value.trim() === '' || value.length > 64) return undefined;
  // A date-time without a zone (Letta's, Python's isoformat of a naive time) is read as UTC, not
  // as the server's local time.
  const zoneless = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value.trim());
  const date = new Date(zoneless ? `${value.trim().replace(' ', 'T')}Z` : value.trim());
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970 ? undefined : date.toISOString();
}

const kindOf = (value: unknown): MemoryKind | undefined =>
  typeof value === 'string' && (MEMORY_KINDS as readonly string[]).includes(value.trim().toLowerCase()) ? (value.trim().toLowerCase() as MemoryKind) : undefined;

/**
 * A source naming the tool, and where in its data the entry was, bounded to what a source holds
 * on a whole character. Callers give names already cut to NAME_MAX, so that the text cut here
 * is never a copy of a long name made again for each entry.
 */
function sourceOf(tool: string, where?: string): MemorySource {
  // Without NUL, which no stored text may hold (PostgreSQL's cannot; an archive's rules refuse it).
  const place = where?.replaceAll('\u0000', '');
  return { kind: 'other', ref: place === undefined || place === '' ? tool : `${tool}:${clip(place, SOURCE_REF_MAX_LENGTH - tool.length - 1, '')}` };
}

/** A name as repeated in entries' content and sources: at most NAME_MAX characters, on a whole character. */
const named = (name: string) => clip(name, NAME_MAX);
const refOf = (name: string) => clip(name.replaceAll('\u0000', ''), NAME_MAX, '');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** JSON.parse, refused with the line and column a person can find in their editor. */
function parseJson(source: string, file: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const at = position ? lineAndColumn(source, Number(position[1])) : undefined;
    const line = at ? at.line + lineOffset : lineOffset > 0 ? lineOffset + 1 : undefined;
    const where = line === undefined ? '' : ` at line ${line}${at ? `, column ${at.column}` : ''}`;
    throw new AppError('VALIDATION_ERROR', `${file} is not valid JSON${where} (${message.replace(/\s*\(line \d+ column \d+\)$/, '')}). Fix or export the file again; nothing was imported`, {
      details: { file, ...(line !== undefined ? { line } : {}), ...(at ? { column: at.column } : {}) },
    });
  }
}

function notTheFormat(file: string, format: ImportFormat, expected: string): AppError {
  return new AppError('VALIDATION_ERROR', `${file} is not a ${format} file: ${expected}. Check the format chosen; nothing was imported`, { details: { file, format } });
}

// ---------------------------------------------------------------------------------------------
// mem0: the memories its get_all answers (and its export's memories): id, memory, metadata,
// categories, created_at, user_id.

function parseMem0(source: string, out: Reading): Parsed {
  const { file } = out;
  const json = parseJson(source, file);
  const list = Array.isArray(json) ? json : isObject(json) ? (json.results ?? json.memories ?? json.data) : undefined;
  if (!Array.isArray(list)) {
    throw notTheFormat(file, 'mem0', 'expected a list of memories, or an object with "results" (what get_all answers) or "memories"');
  }
  list.forEach((memory, i) => {
    const where = `memory ${i + 1}`;
    if (!isObject(memory)) return out.skip({ where, reason: 'not an object' });
    const content = text(memory.memory) ?? text(memory.text) ?? text(memory.content);
    if (content === undefined) return out.skip({ where, reason: 'no "memory" text' });
    const metadata = isObject(memory.metadata) ? memory.metadata : {};
    const categories = Array.isArray(memory.categories) ? memory.categories.filter((c): c is string => typeof c === 'string') : [];
    const metaWords = ['category', 'type', 'topic'].flatMap((key) => (typeof metadata[key] === 'string' ? [metadata[key]] : []));
    const id = typeof memory.id === 'string' || typeof memory.id === 'number' ? refOf(String(memory.id)) : undefined;
    out.item({
      content,
      kind: kindOf(metadata.kind) ?? kindOf(metadata.type),
      tags: tagsOf([...categories, ...metaWords]),
      createdAt: timeOf(memory.created_at ?? memory.createdAt),
      source: sourceOf('mem0', id),
      where,
    });
  });
  return out.parsed();
}

// ---------------------------------------------------------------------------------------------
// The MCP reference memory server: JSON Lines of entities (name, entityType, observations) and
// relations (from, to, relationType); its read_graph answer ({ entities, relations }) is read too.

function parseMcpMemory(source: string, out: Reading): Parsed {
  const { file, skipped } = out;
  const entity = (record: Record<string, unknown>, where: string) => {
    const name = text(record.name);
    if (name === undefined || !Array.isArray(record.observations)) return out.skip({ where, reason: 'an entity needs a name and a list of observations' });
    const type = text(record.entityType);
    const observations = record.observations.filter((o): o is string => typeof o === 'string' && o.trim() !== '');
    if (observations.length === 0) return out.skip({ where, reason: `entity "${echo(name)}" has no observations` });
    // The name and type head every observation: cut once, read once, whatever their length.
    const heading = `${named(name)}${type ? ` (${named(type)})` : ''}`;
    const tags = tagsOf(type ? [type] : []);
    for (const observation of observations) {
      out.item({ content: `${heading}: ${observation.trim()}`, tags: [...tags], source: sourceOf('mcp-memory', refOf(name)), where });
    }
  };
  const relation = (record: Record<string, unknown>, where: string) => {
    const [from, to, type] = [text(record.from), text(record.to), text(record.relationType)];
    if (!from || !to || !type) return out.skip({ where, reason: 'a relation needs from, to and relationType' });
    out.item({ content: `${from} ${type.replace(/_/g, ' ')} ${to}`, tags: ['relation'], source: sourceOf('mcp-memory', `${refOf(from)} ${refOf(type)} ${refOf(to)}`), where });
  };

  const trimmed = source.trim();
  if (trimmed === '') return out.parsed();
  // The graph as one JSON object (read_graph's answer) rather than the file's lines.
  if (trimmed.startsWith('{') && !trimmed.includes('\n')) {
    const whole = parseJson(trimmed, file);
    if (isObject(whole) && (Array.isArray(whole.entities) || Array.isArray(whole.relations))) {
      (Array.isArray(whole.entities) ? whole.entities : []).forEach((e, i) => (isObject(e) ? entity(e, `entity ${i + 1}`) : out.skip({ where: `entity ${i + 1}`, reason: 'not an object' })));
      (Array.isArray(whole.relations) ? whole.relations : []).forEach((r, i) => (isObject(r) ? relation(r, `relation ${i + 1}`) : out.skip({ where: `relation ${i + 1}`, reason: 'not an object' })));
      return out.parsed();
    }
  }
  const lines = source.split(/\r?\n/);
  let sawRecord = false;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `line ${index + 1}`;
    const record = parseJson(line, file, index);
    if (!isObject(record)) throw notTheFormat(file, 'mcp-memory', `line ${index + 1} is not a JSON object (each line is an entity or a relation)`);
    if (record.type === 'entity') {
      sawRecord = true;
      return entity(record, where);
    }
    if (record.type === 'relation') {
      sawRecord = true;
      return relation(record, where);
    }
    out.skip({ where, reason: `type ${echo(JSON.stringify(record.type ?? null))} is neither entity nor relation` });
  });
  if (!sawRecord && out.items.length === 0 && skipped.length > 0 && skipped.every((s) => s.reason.startsWith('type '))) {
    throw notTheFormat(file, 'mcp-memory', 'no line has "type": "entity" or "relation"');
  }
  return out.parsed();
}

// ---------------------------------------------------------------------------------------------
// Letta's agent file (.af): memory blocks (the current format's top-level "blocks", the agents
// naming them by block_ids or holding memory_blocks; the first format's "core_memory" per agent),
// and archival passages where a file carries them ("passages").

/** What a block's label says it is: the persona is how the agent behaves, the human what it knows of the user. */
function blockKind(label: string): MemoryKind {
  return label === 'persona' ? 'instruction' : label === 'human' ? 'fact' : 'note';
}

function parseLetta(source: string, out: Reading): Parsed {
  const { file } = out;
  const json = parseJson(source, file);
  if (!isObject(json)) throw notTheFormat(file, 'letta', 'an agent file is a JSON object');
  const agents: Array<Record<string, unknown>> = Array.isArray(json.agents) ? json.agents.filter(isObject) : 'core_memory' in json ? [json] : [];
  const blocks = new Map<string, Record<string, unknown>>();
  if (Array.isArray(json.blocks)) for (const block of json.blocks) if (isObject(block) && typeof block.id === 'string') blocks.set(block.id, block);
  if (agents.length === 0 && blocks.size === 0) throw notTheFormat(file, 'letta', 'expected "agents" and "blocks" (an agent file) or "core_memory" (the first agent file format)');

  // Each block is read once, however many agents name it, or however many times one agent's
  // block_ids repeat it: the later namings are listed as skipped, with its label as first cut.
  // Read again each time, a block of megabytes named thousands of times (a few bytes each) was
  // split, compared and quoted thousands of times over.
  const read = new Map<string, { where: string; label: string }>();
  const addBlock = (block: Record<string, unknown>, agentName: string, where: string) => {
    const label = text(block.label) ?? 'block';
    const value = text(block.value);
    if (value === undefined) return out.skip({ where, reason: `memory block "${echo(label)}" is empty` });
    out.item({
      content: value,
      kind: blockKind(label),
      tags: tagsOf([label]),
      pinned: true,
      createdAt: timeOf(block.created_at),
      source: sourceOf('letta', `${agentName}/${refOf(label)}`),
      where,
    });
  };
  const addPassages = (passages: unknown, agentName: string, wherePrefix: string) => {
    if (!Array.isArray(passages)) return;
    passages.forEach((passage, i) => {
      const where = `${wherePrefix}passage ${i + 1}`;
      const content = isObject(passage) ? text(passage.text) : undefined;
      if (!isObject(passage) || content === undefined) return out.skip({ where, reason: 'an archival passage needs text' });
      const tags = Array.isArray(passage.tags) ? passage.tags.filter((t): t is string => typeof t === 'string') : [];
      out.item({ content, tags: tagsOf(['archival', ...tags]), createdAt: timeOf(passage.created_at), source: sourceOf('letta', `${agentName}/archival`), where });
    });
  };
  const shownLabel = (block: Record<string, unknown>, id: string) => echo(text(block.label) ?? id);

  agents.forEach((agent, a) => {
    // Names are cut where they are read: an agent's name is repeated in the source (and, cut
    // further, the place) of each of its blocks and passages.
    const name = text(agent.name) ?? `agent ${a + 1}`;
    const agentName = refOf(name);
    const prefix = agents.length > 1 ? `${echo(name)}: ` : '';
    const core = Array.isArray(agent.core_memory) ? agent.core_memory : [];
    const inline = Array.isArray(agent.memory_blocks) ? agent.memory_blocks : [];
    [...core, ...inline].forEach((block, i) => (isObject(block) ? addBlock(block, agentName, `${prefix}block ${i + 1}`) : out.skip({ where: `${prefix}block ${i + 1}`, reason: 'not an object' })));
    if (Array.isArray(agent.block_ids)) {
      for (const id of agent.block_ids) {
        const block = typeof id === 'string' ? blocks.get(id) : undefined;
        if (!block) {
          out.skip({ where: `${prefix}block ${echo(String(id))}`, reason: 'the agent names a block the file does not hold' });
          continue;
        }
        const first = read.get(id as string);
        if (first !== undefined) {
          out.skip({ where: `${prefix}block ${first.label}`, reason: `the same block as ${first.where}: imported once` });
          continue;
        }
        const label = shownLabel(block, id as string);
        const where = `${prefix}block ${label}`;
        read.set(id as string, { where, label });
        addBlock(block, agentName, where);
      }
    }
    addPassages(agent.passages ?? agent.archival_memory, agentName, prefix);
    if (Array.isArray(agent.messages) && agent.messages.length > 0) {
      out.skip({ where: `${prefix}messages`, reason: `${agent.messages.length} messages: conversation history is not memory` });
    }
  });
  // Blocks no agent names (a file of shared blocks) are memory all the same.
  for (const [id, block] of blocks) if (!read.has(id)) addBlock(block, 'letta', `block ${shownLabel(block, id)}`);
  addPassages(json.passages, 'letta', '');
  return out.parsed();
}

// ---------------------------------------------------------------------------------------------
// Markdown: an Obsidian vault or a basic-memory folder (a zip), or one note.

/** Frontmatter larger than this is not read (the note is kept, its frontmatter as text). */
const FRONTMATTER_MAX_BYTES = 16 * 1024;
const FRONTMATTER_MAX_DEPTH = 16;

interface Note {
  title: string | undefined;
  tags: string[];
  createdAt: string | undefined;
  kind: MemoryKind | undefined;
  permalink: string | undefined;
  body: string;
}

/** The scalar strings of a YAML node (a scalar or a list of them); aliases and maps give nothing. */
function scalars(node: unknown): string[] {
  if (isScalar(node)) return node.value === null || node.value === undefined ? [] : [String(node.value)];
  if (isSeq(node)) return node.items.flatMap((item) => (isScalar(item) && item.value != null ? [String(item.value)] : []));
  return [];
}

/** A note's frontmatter fields and its body. YAML read with the failsafe schema: every value a string, no alias expanded. */
function readNote(source: string): Note {
  const note: Note = { title: undefined, tags: [], createdAt: undefined, kind: undefined, permalink: undefined, body: source };
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return note;
  const yaml = match[1]!;
  if (Buffer.byteLength(yaml) > FRONTMATTER_MAX_BYTES || nestingBound(yaml) > FRONTMATTER_MAX_DEPTH) return note;
  const document = parseDocument(yaml, { schema: 'failsafe', uniqueKeys: false, prettyErrors: false });
  if (document.errors.length > 0 || !isMap(document.contents)) return note;
  note.body = source.slice(match[0].length);
  const field = (...keys: string[]): unknown => {
    for (const key of keys) {
      const value: unknown = document.get(key, true);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  note.title = scalars(field('title'))[0]?.trim() || undefined;
  // Tags as a list, or as one string of words separated by commas or spaces; a leading # is Obsidian's.
  const tags = field('tags', 'tag');
  note.tags = (isSeq(tags) ? scalars(tags) : scalars(tags).flatMap((value) => value.split(/[,\s]+/))).map((tag) => tag.replace(/^#/, ''));
  note.createdAt = timeOf(scalars(field('created', 'created_at', 'date', 'creation_date'))[0]);
  note.kind = kindOf(scalars(field('kind', 'type'))[0]);
  note.permalink = scalars(field('permalink'))[0]?.trim() || undefined;
  return note;
}

/** Inline #tags of a note's body, outside code; headings (a # and a space) and #123 are not tags. */
function inlineTags(body: string): string[] {
  const outsideCode = body.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
  const tags: string[] = [];
  for (const found of outsideCode.matchAll(/(?:^|[\s(,;])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu)) tags.push(found[1]!);
  return tags;
}

const UTF8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** The bytes of UTF-8 a code point takes (a lone surrogate is written as U+FFFD, three bytes, as Buffer writes it). */
const utf8Width = (code: number) => (code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4);

/**
 * A text split in parts of at most `maxBytes` of UTF-8: at its sections (## headings) first, then
 * at blank lines, then at line ends, and at characters only for a line longer than a part.
 *
 * Linear in the text: every unit is measured once and a part's size is counted as it grows, never
 * measured again for each piece added to it. (Measuring the growing part per piece made a 10 MiB
 * line, or a note of millions of short lines, cost minutes of the server's only thread.)
 */
export function splitText(body: string, maxBytes: number): string[] {
  if (UTF8(body) <= maxBytes) return [body];
  const separators = [/\n(?=#{1,6} )/, /\n\s*\n/, /\n/];
  const byCharacters = (piece: string): string[] => {
    const parts: string[] = [];
    let start = 0;
    let bytes = 0;
    for (let i = 0; i < piece.length; ) {
      const code = piece.codePointAt(i)!;
      const width = utf8Width(code);
      if (bytes + width > maxBytes && i > start) {
        parts.push(piece.slice(start, i));
        start = i;
        bytes = 0;
      }
      bytes += width;
      i += code > 0xffff ? 2 : 1;
    }
    if (start < piece.length) parts.push(piece.slice(start));
    return parts;
  };
  const split = (piece: string, bytes: number, level: number): string[] => {
    if (bytes <= maxBytes) return [piece];
    if (level === separators.length) return byCharacters(piece);
    const parts: string[] = [];
    let current = '';
    let currentBytes = 0;
    for (const unit of piece.split(separators[level]!)) {
      const unitBytes = UTF8(unit);
      // Joined with a blank line: 2 bytes between the part so far and the unit.
      const joinedBytes = current === '' ? unitBytes : currentBytes + 2 + unitBytes;
      if (joinedBytes <= maxBytes) {
        current = current === '' ? unit : `${current}\n\n${unit}`;
        currentBytes = joinedBytes;
      } else {
        if (current !== '') parts.push(current);
        if (unitBytes <= maxBytes) {
          current = unit;
          currentBytes = unitBytes;
        } else {
          for (const part of split(unit, unitBytes, level + 1)) parts.push(part);
          current = '';
          currentBytes = 0;
        }
      }
    }
    if (current !== '') parts.push(current);
    return parts;
  };
  return split(body, UTF8(body), 0).filter((part) => part.trim() !== '');
}

/** Room in an entry for the heading each part of a long note gets: "# <title, at most ECHO_MAX characters> (part n of m)". */
const PART_HEADING_BYTES = 4 * ECHO_MAX + 64;

function noteItems(source: string, path: string, maxBytes: number, out: Reading): { items: ImportItem[]; split: boolean } {
  const note = readNote(source.replace(/\r\n?/g, '\n'));
  const where = clipPath(path);
  const name = path.split('/').pop()!.replace(/\.(md|markdown)$/i, '');
  const title = note.title ?? name;
  const body = note.body.trim();
  if (body === '') {
    out.skip({ where, reason: 'the note is empty' });
    return { items: [], split: false };
  }
  // The title heads the entry unless the note opens with a heading of its own.
  const headed = /^#{1,6} /.test(body) ? body : `# ${title}\n\n${body}`;
  const tags = tagsOf([...note.tags, ...inlineTags(body)]);
  const tool = note.permalink ? 'basic-memory' : 'markdown';
  const ref = note.permalink ?? path;
  // Room for the "(part n of m)" heading that each part of a long note gets; the title in it is
  // cut, so that a long title (frontmatter holds up to 16 KiB) can neither push a part past what
  // an entry holds nor be repeated whole in every part.
  const parts = splitText(headed, maxBytes - PART_HEADING_BYTES);
  const items = parts.map((part, i) => ({
    content: parts.length === 1 ? part : `# ${echo(title)} (part ${i + 1} of ${parts.length})\n\n${part}`,
    kind: note.kind,
    tags,
    createdAt: note.createdAt,
    source: sourceOf(tool, ref),
    where,
  }));
  return { items, split: parts.length > 1 };
}

const isNote = (path: string) => /\.(md|markdown)$/i.test(path);

function parseMarkdown(data: Buffer, maxBytes: number, out: Reading): Parsed & { split: number } {
  const { file } = out;
  let split = 0;
  if (!isZip(data)) {
    const result = noteItems(decodeUtf8(data, file), file, maxBytes, out);
    for (const item of result.items) out.item(item);
    return { ...out.parsed(), split: result.split ? 1 : 0 };
  }
  const zip = readZip(data, file, (path) => {
    const parts = path.split('/');
    if (parts.some((part) => part.startsWith('.') || part === '__MACOSX')) return 'a hidden file or folder (settings, trash)';
    return isNote(path) ? null : 'not a Markdown note (.md)';
  });
  for (const s of zip.skipped) out.skip({ where: clipPath(s.path), reason: s.reason });
  for (const note of zip.files) {
    const result = noteItems(decodeUtf8(note.data, `${file}: ${note.path}`), note.path, maxBytes, out);
    for (const item of result.items) out.item(item);
    if (result.split) split++;
  }
  if (zip.files.length === 0) {
    throw new AppError('VALIDATION_ERROR', `${file} holds no Markdown note (.md): zip the folder of your notes (an Obsidian vault, a basic-memory folder). Nothing was imported`, {
      details: { file },
    });
  }
  return { ...out.parsed(), split };
}

// ---------------------------------------------------------------------------------------------
// Plain text, as ChatGPT or Claude answer "what do you remember about me": one entry per line or
// bullet, markers and numbering removed; blank lines and headings skipped.

const LIST_MARKER = /^\s*(?:[-*+\u2022\u00b7\u25aa\u2023\u25e6\u2013\u2014]|\d{1,3}[.)]|[a-zA-Z][.)](?=\s))(?:\s+(?:\[[ xX]\]\s+)?|\s*$)/;

function parseText(source: string, out: Reading): Parsed {
  const lines = source.split(/\r\n?|\n/);
  // A text that lists its memories as items has sentences around the list ("Here is what I
  // remember", "Let me know…"), which are not memories; a text without a list is all memories.
  const listing = lines.some((line) => LIST_MARKER.test(line) && line.replace(LIST_MARKER, '').trim() !== '');
  lines.forEach((raw, index) => {
    const where = `line ${index + 1}`;
    const line = raw.trim();
    if (line === '') return;
    const listed = LIST_MARKER.test(line);
    const content = line.replace(LIST_MARKER, '').trim();
    // Headings: Markdown's, a line in bold alone, a line closing with a colon that is not an item.
    const bold = /^(\*\*|__)[^*_]+\1:?$/.test(content);
    if (/^#{1,6}\s/.test(line) || bold || (!listed && /:$/.test(content)) || /^(-{3,}|\*{3,}|_{3,})$/.test(line)) {
      return out.skip({ where, reason: 'a heading' });
    }
    if (content === '') return out.skip({ where, reason: 'a list marker without text' });
    if (listing && !listed) return out.skip({ where, reason: 'a sentence around the list, not an item of it' });
    out.item({ content, tags: [], source: sourceOf('text'), where });
  });
  return out.parsed();
}

/** The entries of an import in `format`, from its bytes. */
export function parseImport(format: ImportFormat, data: Buffer, file: string, maxBytes: number, bounds: ReadBounds): Parsed & { split: number } {
  const out = new Reading(file, bounds);
  if (format === 'markdown') return parseMarkdown(data, maxBytes, out);
  if (isZip(data)) throw notTheFormat(file, format, 'it is a zip archive; only the markdown format reads a zip (a folder of notes)');
  const source = decodeUtf8(data, file);
  const parsed =
    format === 'mem0' ? parseMem0(source, out) : format === 'mcp-memory' ? parseMcpMemory(source, out) : format === 'letta' ? parseLetta(source, out) : parseText(source, out);
  // Entries too long for one memory entry are split at paragraphs, as long notes are.
  let split = 0;
  const items = parsed.items.flatMap((item) => {
    const parts = splitText(item.content, maxBytes);
    if (parts.length > 1) split++;
    return parts.map((content) => ({ ...item, content }));
  });
  return { items, skipped: parsed.skipped, split };
}
