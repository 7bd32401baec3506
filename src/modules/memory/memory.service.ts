import { AppError, InputError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { normalizedTag } from '../../lib/tags.js';
import { sameTextKey, scopedTextKey } from '../../lib/same-text.js';
import { wellFormed } from '../../lib/well-formed.js';
import { isoNow } from '../../lib/time.js';
import { createDerivedCache, uncached, type DerivedCache } from '../../storage/derived-cache.js';
import type { MatchMode } from '../../storage/search/full-text.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import type { LimitsService } from '../billing/billing.limits.js';
import { searchFused, wordsOnlyFusion, type Fusion } from '../search/search.fusion.js';
import type { Principal } from '../../http/access.js';
import type { Channel } from '../../http/channel.js';
import {
  authorOf,
  editorOf,
  inScope,
  seenByOf,
  sourceOf,
  supersedesOf,
  tagsOf,
  type IndexedEntry,
  type MemoryFilter,
  type MemoryRepo,
  type MemoryRow,
  type MemoryScope,
  type MemoryView,
  type StoredAuthor,
} from './memory.repo.js';
import { MEMORY_AUTHORS_MAX, MEMORY_TAG_MAX_LENGTH, MEMORY_TAGS_MAX, SUPERSEDES_MAX, type MemoryAuthor, type MemoryEntry, type MemoryKind, type MemorySource } from './memory.schemas.js';
import type { MemoryEntriesTable } from './memory.tables.js';

/** The largest memory entry, in bytes of UTF-8. */
export const MEMORY_CONTENT_MAX_BYTES = 64 * 1024;

function toEntry(row: MemoryRow): MemoryEntry {
  return entryOf(row, authorOf(row));
}

/** The entry of a row whose author the caller has already (a creation: no decoding of the JSON it just encoded). */
function entryOf(row: MemoryRow, author: MemoryAuthor): MemoryEntry {
  return {
    id: row.id,
    content: row.content,
    created_at: row.created_at,
    updatedAt: row.updated_at,
    kind: row.kind,
    tags: tagsOf(row),
    pinned: row.pinned === 1,
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    source: sourceOf(row),
    author,
    editedBy: editorOf(row),
    supersedes: supersedesOf(row),
    supersededBy: row.superseded_by,
    supersededAt: row.superseded_at,
    seenCount: row.seen_count,
    lastSeenAt: row.last_seen_at,
    lastSeenBy: seenByOf(row),
  };
}

/** Whether an entry is current at `now` (UTC ISO): not superseded, and not past its validUntil. */
function isCurrent(row: Pick<MemoryRow, 'superseded_at' | 'valid_until'>, now: string): boolean {
  return row.superseded_at === null && (row.valid_until === null || row.valid_until > now);
}

/** Whether an entry was current at `at`: written by then, not yet superseded, within its window. */
function wasCurrentAt(row: Pick<MemoryRow, 'created_at' | 'superseded_at' | 'valid_from' | 'valid_until'>, at: string): boolean {
  return (
    row.created_at <= at &&
    (row.superseded_at === null || row.superseded_at > at) &&
    (row.valid_from === null || row.valid_from <= at) &&
    (row.valid_until === null || row.valid_until > at)
  );
}

/**
 * A page without the entries that expired since it was read: pages are kept until the table
 * changes, and time passing is no change. The same page object when none did (the usual case),
 * so that its serialized body is reused.
 */
function withoutExpired(page: MemoryPageResult, now: string): MemoryPageResult {
  if (page.entries.every((entry) => entry.validUntil === null || entry.validUntil > now)) return page;
  return { entries: page.entries.filter((entry) => entry.validUntil === null || entry.validUntil > now), nextCursor: page.nextCursor };
}

/**
 * Who writes, as the server knows it: the caller's token and the channel the request came over
 * (see http/channel.ts). Never read from the request's body.
 */
export interface MemoryWriter {
  principal: Pick<Principal, 'tokenId' | 'name' | 'kind' | 'agent' | 'memoryTags'>;
  channel: Exclude<Channel, 'unknown'>;
}

/** What is kept of a principal as an author: the stored author and its JSON, and per channel the answer's author and its JSON. */
interface KnownAuthor {
  author: StoredAuthor;
  json: string;
  byChannel: Map<string, { answer: MemoryAuthor; json: string }>;
}

// A principal is kept by the token cache across requests: its author is built and encoded once.
const authors = new WeakMap<MemoryWriter['principal'], KnownAuthor>();

function storedAuthor(writer: MemoryWriter): KnownAuthor {
  const { principal } = writer;
  let known = authors.get(principal);
  if (!known) {
    const author: StoredAuthor = { token: { id: principal.tokenId, name: principal.name, kind: principal.kind }, agent: principal.agent };
    known = { author, json: JSON.stringify(author), byChannel: new Map() };
    authors.set(principal, known);
  }
  return known;
}

/** The writer with its channel: as a new entry's answer names its author, and encoded as `editor` and `last_seen_by` store it (kept with the principal; never changed by a caller). */
function writerWithChannel(writer: MemoryWriter): { answer: MemoryAuthor; json: string } {
  const known = storedAuthor(writer);
  let kept = known.byChannel.get(writer.channel);
  if (kept === undefined) {
    const answer: MemoryAuthor = { channel: writer.channel, ...known.author };
    kept = { answer, json: JSON.stringify(answer) };
    known.byChannel.set(writer.channel, kept);
  }
  return kept;
}

const authorWithChannel = (writer: MemoryWriter): MemoryAuthor => writerWithChannel(writer).answer;
const writerJson = (writer: MemoryWriter): string => writerWithChannel(writer).json;

/**
 * What a write answers: the new entry, or the current entry that already says it (nothing was
 * added; the attempt is counted on it), and how it was found.
 */
export type MemoryWrite = { entry: MemoryEntry; duplicateOf?: undefined } | { entry: MemoryEntry; duplicateOf: string; matchedBy: 'text' | 'meaning' };

/**
 * The key of a text for the unique index of current entries. A token limited to tags keys its
 * texts apart from the others' (its scope in the key): a text it writes is matched only with
 * entries written within the same tags, never with one it cannot see (memory.md, "No duplicates").
 */
function textKey(content: string, scope: MemoryScope | null | undefined): string {
  return scope && scope.length > 0 ? scopedTextKey(scope, content) : sameTextKey(content);
}

/** What a writer may give besides content; undefined leaves a field as it is (on a change), null clears it. */
export interface MemoryStructure {
  kind?: MemoryKind | undefined;
  tags?: readonly string[] | undefined;
  pinned?: boolean | undefined;
  validFrom?: string | null | undefined;
  validUntil?: string | null | undefined;
  source?: MemorySource | null | undefined;
}

/**
 * A tag as it is stored and matched (lib/tags.ts): compatibility-normalized (NFKC), trimmed, lower
 * case, runs of spaces as one dash. "Work Projects" and "work-projects" are one tag.
 */
function normalizeTag(raw: string, field: string): string {
  const tag = normalizedTag(raw);
  if (tag === undefined) {
    throw new InputError(
      field,
      'is not a valid tag',
      `${field} ${JSON.stringify(raw.slice(0, 80))} is not a valid tag: use 1 to ${MEMORY_TAG_MAX_LENGTH} letters, digits and - _ . : / (starting with a letter or digit); spaces become dashes`,
    );
  }
  return tag;
}

function normalizeTags(tags: readonly string[]): string {
  return JSON.stringify([...new Set(tags.map((tag, i) => normalizeTag(tag, `tags.${i}`)))]);
}

/** The years a stored time can hold: `toISOString` writes them in 4 digits, outside them as `+010000` or `-000001`. */
const YEAR_MIN = 0;
const YEAR_MAX = 9999;

/**
 * A date-time as stored: UTC, to the millisecond (lib/time.ts), so that stored times compare as
 * strings. That holds only for UTC years 0000 to 9999 (fixed width): a time beyond, such as
 * `9999-12-31T23:59:59-23:59` (in UTC the year 10000), would be stored as `+010000-…` and compare
 * as text before every other time (an entry read as expired, an import's far future as past),
 * so it is refused, naming `field`. So is a time the schema's format passes but JavaScript cannot
 * read: a leap second (`23:59:60`), which `Date` does not know.
 */
function storedTime(value: string, field: string): string;
function storedTime(value: string | null, field: string): string | null;
function storedTime(value: string | null, field: string): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    const leap = /T\d{2}:\d{2}:60/i.test(value) ? ' (a leap second, :60, is not kept: give :59 or the next minute)' : '';
    throw new InputError(field, 'is not a time that can be stored', `${field} (${value.slice(0, 64)}) is not a time that can be stored${leap}`);
  }
  const year = new Date(ms).getUTCFullYear();
  if (year < YEAR_MIN || year > YEAR_MAX) {
    throw new InputError(
      field,
      'must be within the years 0000 to 9999 in UTC',
      `${field} (${value.slice(0, 64)}) is in the year ${year} in UTC: times are kept within the years 0000 to 9999 in UTC`,
    );
  }
  return new Date(ms).toISOString();
}

function windowProblem(validFrom: string | null, validUntil: string | null): InputError | undefined {
  if (validFrom === null || validUntil === null || validFrom < validUntil) return undefined;
  return new InputError('validUntil', 'must be after validFrom', `validUntil (${validUntil}) must be after validFrom (${validFrom}): an entry holds from one to the other`);
}

/** The stored columns of the structure given; only the fields given. */
function structureColumns(input: MemoryStructure): Partial<Pick<MemoryEntriesTable, 'kind' | 'tags' | 'pinned' | 'valid_from' | 'valid_until' | 'source'>> {
  const columns: Partial<Pick<MemoryEntriesTable, 'kind' | 'tags' | 'pinned' | 'valid_from' | 'valid_until' | 'source'>> = {};
  if (input.kind !== undefined) columns.kind = input.kind;
  if (input.tags !== undefined) columns.tags = normalizeTags(input.tags);
  if (input.pinned !== undefined) columns.pinned = input.pinned ? 1 : 0;
  if (input.validFrom !== undefined) columns.valid_from = storedTime(input.validFrom, 'validFrom');
  if (input.validUntil !== undefined) columns.valid_until = storedTime(input.validUntil, 'validUntil');
  if (input.source !== undefined) columns.source = input.source === null ? null : JSON.stringify(input.source);
  return columns;
}

/**
 * A new entry's row: its content and structure, written now by `writer` (its author and channel),
 * current, seen once. `createdAt` (an import's) and `contentKey` (the text's key, or null) vary.
 */
function newRow(
  ownerId: string,
  content: string,
  structure: ReturnType<typeof structureColumns>,
  writer: MemoryWriter,
  times: { now: string; createdAt?: string },
  contentKey: string | null,
): MemoryEntriesTable {
  return {
    id: newId('mem'),
    owner_id: ownerId,
    content,
    created_at: times.createdAt ?? times.now,
    updated_at: times.now,
    author_token_id: writer.principal.tokenId,
    channel: writer.channel,
    author: storedAuthor(writer).json,
    editor: null,
    source: structure.source ?? null,
    kind: structure.kind ?? 'note',
    tags: structure.tags ?? '[]',
    pinned: structure.pinned ?? 0,
    valid_from: structure.valid_from ?? null,
    valid_until: structure.valid_until ?? null,
    supersedes: '[]',
    superseded_by: null,
    superseded_at: null,
    // Pinned at its writing: after the profile's placed entries, until the owner places it.
    pin_order: null,
    content_key: contentKey,
    seen_count: 1,
    last_seen_at: null,
    last_seen_by: null,
  };
}

function hasFilter(filter: MemoryFilter | undefined): filter is MemoryFilter {
  return filter !== undefined && Object.values(filter).some((value) => value !== undefined);
}

/** The filters as stored values are compared with them: the tag normalized as tags are written. */
function storedFilter(filter: MemoryFilter): MemoryFilter {
  return { ...filter, tag: filter.tag === undefined ? undefined : normalizeTag(filter.tag, 'tag') };
}

/** Whether a row passes the filters: for a search's hits, which the ranking picks before filters apply. */
function passes(row: MemoryRow, filter: MemoryFilter): boolean {
  return (
    (filter.author === undefined || row.author_token_id === filter.author) &&
    (filter.channel === undefined || row.channel === filter.channel) &&
    (filter.kind === undefined || row.kind === filter.kind) &&
    (filter.pinned === undefined || (row.pinned === 1) === filter.pinned) &&
    (filter.tag === undefined || tagsOf(row).includes(filter.tag))
  );
}

/** Ids named as entries to supersede, or to be superseded by, that are not the owner's current entries. */
function notCurrent(field: string, ids: readonly string[]): AppError {
  return new AppError(
    'NOT_FOUND',
    `${field} names ${ids.length === 1 ? 'an entry' : 'entries'} you have no current entry for: ${ids.join(', ')}. Name current entries (an entry already superseded is replaced by its successor: see GET /api/v1/memory/{id}/history)`,
    { details: { field, ids } },
  );
}

/** The cache key of a token's scope: its tags, or `*` for every entry. */
function scopeKey(scope: MemoryScope | undefined): string {
  return scope ? scope.join(',') : '*';
}

/** A page `list` keeps, but for the caller's scope: the owner, limit, cursor, filters and view. */
export interface KeptPageKey {
  readonly base: string;
  readonly view: 'current' | 'history';
}

function keptPageKey(ownerId: string, limit: number, cursor: string | undefined, filter: MemoryFilter | undefined, view: 'current' | 'history'): KeptPageKey {
  const filterKey = filter ? JSON.stringify([filter.author, filter.channel, filter.kind, filter.tag, filter.pinned]) : '';
  return { base: `${ownerId}\u0000${limit}\u0000${cursor ?? ''}\u0000${filterKey}\u0000${view}`, view };
}

/** The scope is part of a kept page's key: a limited token's page is never another token's. */
function pageCacheKey(key: KeptPageKey, scope: MemoryScope | undefined): string {
  return `${key.base}\u0000${scopeKey(scope)}`;
}

/**
 * The tags of a write by a limited token: the entry must carry one of the token's tags, or it
 * would leave what the token sees (or land where it may not write). Without one, the token's tag
 * is added when it has exactly one; with several, which is meant cannot be guessed: 400 naming
 * them. Undefined (no change of tags on a PATCH) stays so: the entry changed is already in scope.
 */
function scopedTags(tags: string | undefined, scope: MemoryScope | undefined, creating: boolean): string | undefined {
  if (!scope || (!creating && tags === undefined)) return tags;
  const given = tags === undefined ? [] : (JSON.parse(tags) as string[]);
  if (given.some((tag) => scope.includes(tag))) return tags;
  if (scope.length === 1 && given.length < MEMORY_TAGS_MAX) return JSON.stringify([...given, scope[0]]);
  throw new InputError(
    'tags',
    "must include one of the token's memory tags",
    `This token reads and writes only memory tagged ${scope.join(' or ')}: ${creating ? 'give the entry one of these tags' : 'keep one of these tags on the entry'}`,
  );
}

/**
 * The most hits a filtered search ranks to keep those that pass (superseded, expired, filtered
 * out or, for a token limited to tags, hidden ones are ranked too): bounds one search's work.
 */
const FILTERED_SEARCH_HITS = 5_000;

/**
 * Content is kept as sent (markdown whitespace can matter), but for a lone surrogate, kept as
 * U+FFFD as every database stores it (`wellFormed`, before this check); blank content and NUL are refused.
 */
function checkContent(content: string): void {
  if (content.trim() === '') {
    throw new InputError('content', 'must not be blank', 'content must not be empty or only whitespace');
  }
  // PostgreSQL's text cannot hold U+0000 (SQLite stored it): refused on both engines alike, as knowledge does.
  if (content.includes('\u0000')) {
    throw new InputError('content', 'must not contain NUL characters', 'content must not contain NUL characters (U+0000)');
  }
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MEMORY_CONTENT_MAX_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `content is ${bytes} bytes of UTF-8; a memory entry holds at most ${MEMORY_CONTENT_MAX_BYTES}. Split it into several entries`,
      { details: { bytes, maxBytes: MEMORY_CONTENT_MAX_BYTES } },
    );
  }
}

export interface MemoryPageResult {
  entries: MemoryEntry[];
  nextCursor: string | null;
}

/** Pages of the list kept at most, and their total size in characters of content (about 16 MB). */
const PAGE_CACHE_ENTRIES = 1000;
const PAGE_CACHE_WEIGHT = 16 * 1024 * 1024;

function pageWeight(page: MemoryPageResult): number {
  let weight = 64;
  for (const entry of page.entries) weight += entry.content.length + 256 + (entry.source ? (entry.source.ref?.length ?? 0) + (entry.source.quote?.length ?? 0) : 0);
  return weight;
}

export interface MemoryServiceOptions {
  /** The entries; its writes share commits with concurrent ones (storage/group-commit.ts). */
  repo: MemoryRepo;
  limits: Pick<LimitsService, 'limitFor' | 'enabled'>;
  /**
   * Keeps pages of the list while the table is unchanged (on either engine; see
   * storage/write-tracker.ts). Agents page through memory again and again within a session, and
   * a page read from the database costs far more than one served from here.
   */
  writes?: WriteTracker | undefined;
  /**
   * Ranks a search by words and meaning together (the container's fusion over the stored
   * vectors); words only without it.
   */
  fusion?: Fusion | undefined;
  /**
   * A new entry at least this close in meaning (cosine of the stored vectors) to a current entry
   * is a duplicate of it (MEMORY_DUPLICATE_COSINE); undefined: by text only.
   */
  duplicateCosine?: number | undefined;
}

/** The latest time the store keeps (YEAR_MAX's last instant). */
const LAST_STORED_TIME = '9999-12-31T23:59:59.999Z';

/**
 * An imported entry's creation time as stored (storedTime's bounds), the refusal naming the
 * record in the other tool (its source's ref, `mem0:<id>`): the entries are numbered as they are
 * written, oldest first, not as the file lists them.
 */
function importedTime(value: string, source: MemorySource | null | undefined): string {
  // A time past the year 9999 is after the import: the caller keeps the import's own time, as
  // for any later one (a tool's microseconds read as milliseconds land near the year 55,000).
  const ms = Date.parse(value);
  if (!Number.isNaN(ms) && new Date(ms).getUTCFullYear() > YEAR_MAX) return LAST_STORED_TIME;
  try {
    return storedTime(value, 'createdAt');
  } catch (error) {
    if (!(error instanceof InputError) || !source?.ref) throw error;
    throw new InputError('createdAt', error.issues[0]!.message, `${error.message} (the record ${source.ref})`);
  }
}

/** Runs `check` for item `index` of an import, a refusal naming that item (`entries.3`). */
function forImportItem<T>(index: number, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InputError) {
      throw new InputError(
        error.issues.map((issue) => ({ ...issue, field: `entries.${index}.${issue.field}` })),
        `Entry ${index + 1} of the import: ${error.message}`,
      );
    }
    throw error;
  }
}

/** Entries nearest in meaning a new one is compared with (the nearest may be superseded or expired). */
const DUPLICATE_CANDIDATES = 5;

/** The owner's review of memory: the pinned profile's order, who wrote, forgetting one writer (createMemoryService spreads it in). */
function createMemoryReviewService(repo: Pick<MemoryRepo, 'setPinOrder' | 'authors' | 'forgetAuthor'>) {
  return {
    /**
     * Sets the order of the pinned profile: `ids` first, in that order, the other pinned entries
     * after them in their order before. Every id must name a pinned entry of the owner: any other
     * is 404 naming it, and nothing changes.
     */
    async orderProfile(ownerId: string, ids: readonly string[]): Promise<void> {
      const unique = [...new Set(ids)];
      if (unique.length !== ids.length) {
        throw new InputError('order', 'must not repeat an id', 'order names an entry more than once: name each pinned entry once, in the order wanted');
      }
      const { missing } = await repo.setPinOrder(ownerId, unique);
      if (missing.length > 0) {
        throw new AppError(
          'NOT_FOUND',
          `order names ${missing.length === 1 ? 'an entry' : 'entries'} you have no pinned entry for: ${missing.join(', ')}. Pin an entry (PATCH /api/v1/memory/{id} with pinned: true) before placing it`,
          { details: { field: 'order', ids: missing } },
        );
      }
    },

    /** Who wrote the owner's entries, newest writer first, with how many each wrote (the console's filter by agent). */
    async authors(ownerId: string): Promise<Array<{ token: MemoryAuthor['token']; agent: MemoryAuthor['agent']; count: number; lastWrittenAt: string }>> {
      return (await repo.authors(ownerId, MEMORY_AUTHORS_MAX)).map(({ count, newest }) => {
        const author = authorOf(newest);
        return { token: author.token, agent: author.agent, count, lastWrittenAt: newest.created_at };
      });
    },

    /**
     * Forgets every entry the token `author` wrote (on any channel, current or not), and nothing
     * else; the chains they belonged to are spliced (see spliceChains in memory.repo.ts). With
     * `dryRun`, only counts. With `expectedCount`, refuses (409, nothing deleted) when the count
     * has changed since the owner was shown it.
     */
    async forget(
      ownerId: string,
      author: string,
      options: { dryRun?: boolean | undefined; expectedCount?: number | undefined },
    ): Promise<{ author: string; dryRun: boolean; count: number; deleted: number; restored: number }> {
      const dryRun = options.dryRun === true;
      // An entry made current again gets its text's key back in the owner's keys (`v1:`): the owner
      // is who restores it, and which tags a limited author wrote it within is not recorded.
      const done = await repo.forgetAuthor(ownerId, author, { write: !dryRun, expect: options.expectedCount, at: isoNow(), keyOf: sameTextKey });
      if (!dryRun && !done.changed && options.expectedCount !== undefined && options.expectedCount !== done.count) {
        throw new AppError(
          'CONFLICT',
          `This agent's entries number ${done.count} now, not the ${options.expectedCount} you confirmed: it wrote or lost some since. Nothing was deleted; confirm the new count to forget them`,
          { details: { count: done.count, expectedCount: options.expectedCount } },
        );
      }
      return { author, dryRun, count: done.count, deleted: done.changed ? done.count : 0, restored: done.restored };
    },
  };
}

export function createMemoryService(deps: MemoryServiceOptions) {
  const { repo, limits } = deps;
  const fusion = deps.fusion ?? wordsOnlyFusion;
  const pages: DerivedCache<MemoryPageResult> = deps.writes
    ? createDerivedCache({ tracker: deps.writes, tables: ['memory_entries'], maxEntries: PAGE_CACHE_ENTRIES, maxWeight: PAGE_CACHE_WEIGHT, weigh: pageWeight })
    : uncached();

  /**
   * The best entries for `q`: the words' best candidates fused with the entries nearest in
   * meaning. `match=all` is a filter (every word must be there), so it stays the words' ranking.
   */
  async function search(ownerId: string, q: string, limit: number, match: MatchMode): Promise<MemoryRow[]> {
    if (match === 'all') return repo.search(ownerId, q, limit, match);
    const found = await searchFused(
      fusion,
      { ownerId, source: 'memory', q, limit },
      async (candidates) => (await repo.rank(ownerId, q, candidates, match)).map((hit) => ({ id: hit.id, score: hit.rank })),
      (ids) => repo.byIds(ownerId, ids),
    );
    return found.map((hit) => hit.item);
  }

  /**
   * The entries of rows, as a token limited to `scope` may see them: a link (supersedes,
   * supersededBy) to an entry outside its tags is left out, so that neither the entry nor its id
   * reaches the token. Without a scope, the rows' entries as they are, with no query.
   */
  async function present(ownerId: string, rows: readonly MemoryRow[], scope: MemoryScope | undefined): Promise<MemoryEntry[]> {
    const entries = rows.map(toEntry);
    if (!scope) return entries;
    const shown = new Set(entries.map((entry) => entry.id));
    const linked = [...new Set(entries.flatMap((entry) => [...entry.supersedes, ...(entry.supersededBy === null ? [] : [entry.supersededBy])]))].filter(
      (id) => !shown.has(id),
    );
    if (linked.length === 0) return entries;
    const visible = new Set([...shown, ...(await repo.byIds(ownerId, linked, scope)).map((row) => row.id)]);
    return entries.map((entry) => ({
      ...entry,
      supersedes: entry.supersedes.filter((id) => visible.has(id)),
      supersededBy: entry.supersededBy !== null && visible.has(entry.supersededBy) ? entry.supersededBy : null,
    }));
  }

  async function presentOne(ownerId: string, row: MemoryRow, scope: MemoryScope | undefined): Promise<MemoryEntry> {
    return (await present(ownerId, [row], scope))[0]!;
  }

  /**
   * A write answered by an existing entry: the entry as it is now (its seen count counting this
   * one), presented as the writer may see it: a limited token is not told, in its `supersedes`,
   * the ids of hidden entries it replaced. The entry itself is one the writer sees (the
   * repository counts the attempt only on such an entry).
   */
  async function duplicate(ownerId: string, row: MemoryRow, matchedBy: 'text' | 'meaning', scope: MemoryScope | undefined): Promise<MemoryWrite> {
    return { entry: await presentOne(ownerId, row, scope), duplicateOf: row.id, matchedBy };
  }

  /** Marks `id` superseded by `input.supersededBy`: a change of its own, given alone. */
  async function supersede(ownerId: string, id: string, input: object & { supersededBy?: string | undefined }, scope: MemoryScope | undefined): Promise<MemoryEntry> {
    const by = input.supersededBy!;
    const others = Object.entries(input)
      .filter(([key, value]) => key !== 'supersededBy' && value !== undefined)
      .map(([key]) => key);
    if (others.length > 0) {
      throw new InputError('supersededBy', 'must be given alone', `supersededBy must be given alone (not with ${others.join(', ')}): change the newer entry instead, which is the one that holds now`);
    }
    if (by === id) throw new InputError('supersededBy', 'must name another entry', 'supersededBy must name another entry: an entry cannot replace itself');
    const outcome = await repo.supersede(ownerId, id, by, isoNow(), scope);
    if ('missing' in outcome) throw notCurrent(outcome.missing === by ? 'supersededBy' : 'id', [outcome.missing]);
    if ('full' in outcome) {
      // Not how many it lists: a token limited to tags would learn of the hidden ones among them.
      throw new AppError(
        'CONFLICT',
        `Entry ${by} already replaces as many entries as one entry may (${SUPERSEDES_MAX}); nothing was changed. Write a new entry that replaces ${by} (POST /api/v1/memory with supersedes: ["${by}"]) and mark ${id} replaced by that one, or delete ${id}`,
        { details: { field: 'supersededBy', max: SUPERSEDES_MAX } },
      );
    }
    return presentOne(ownerId, outcome, scope);
  }

  /**
   * The current entry of the owner nearest in meaning to `content`, when at least
   * `duplicateCosine` close (not one of `replaced`): the attempt is counted on it. Undefined when
   * there is none, or meaning cannot tell (no embedder, no vector yet): the text rule still holds.
   */
  async function duplicateByMeaning(ownerId: string, content: string, replaced: readonly string[], seenBy: string, scope: MemoryScope | null | undefined): Promise<MemoryWrite | undefined> {
    const least = deps.duplicateCosine;
    if (least === undefined || !fusion.nearest) return undefined;
    const near = (await fusion.nearest(ownerId, 'memory', content, DUPLICATE_CANDIDATES))?.filter((hit) => hit.score >= least && !replaced.includes(hit.id));
    if (!near || near.length === 0) return undefined;
    const now = isoNow();
    for (const row of await repo.byIds(ownerId, near.map((hit) => hit.id))) {
      if (!isCurrent(row, now) || (scope && !inScope(row, scope))) continue;
      const seen = await repo.recordSeen(ownerId, row.id, now, seenBy);
      if (seen) return duplicate(ownerId, seen, sameTextKey(seen.content) === sameTextKey(content) ? 'text' : 'meaning', scope ?? undefined);
    }
    return undefined;
  }

  return {
    /** A new entry, its author and channel recorded from `writer`, its structure from `input` (a note by default). */
    async create(
      ownerId: string,
      input: MemoryStructure & { content: string; supersedes?: readonly string[] | undefined },
      writer: MemoryWriter,
    ): Promise<MemoryWrite> {
      const content = wellFormed(input.content);
      checkContent(content);
      const scope = writer.principal.memoryTags;
      const structure = structureColumns(input);
      structure.tags = scopedTags(structure.tags, scope, true);
      const refused = windowProblem(structure.valid_from ?? null, structure.valid_until ?? null);
      if (refused) throw refused;
      // Without plan limits (the default) nothing is awaited before the write itself.
      // A token limited to tags is refused without the owner's count: it would tell how many entries it cannot see.
      const check = limits.enabled ? await limits.limitFor(ownerId, 'memoryEntries', { withoutUsed: scope != null }) : undefined;
      const now = isoNow();
      const author = authorWithChannel(writer);
      const row = newRow(ownerId, content, structure, writer, { now }, textKey(content, scope));
      const seenBy = writerJson(writer);
      const replaced = input.supersedes === undefined ? [] : [...new Set(input.supersedes)];
      // Only with a threshold set: a write by text alone awaits nothing more.
      if (deps.duplicateCosine !== undefined) {
        const byMeaning = await duplicateByMeaning(ownerId, content, replaced, seenBy, scope);
        if (byMeaning) return byMeaning;
      }
      if (replaced.length > 0) {
        row.supersedes = JSON.stringify(replaced);
        // A write of its own: the insert and the marks of the replaced entries commit together.
        const outcome = await repo.createSuperseding(row, replaced, seenBy, check, scope);
        if (outcome.refusal) throw outcome.refusal;
        if (outcome.missing) throw notCurrent('supersedes', outcome.missing);
        if (outcome.duplicateOf) return duplicate(ownerId, outcome.duplicateOf, 'text', scope ?? undefined);
        return { entry: entryOf(row, author) };
      }
      // The count and the insert in the writing transaction, with the batch's other creations;
      // the same text as a current entry of the owner is not inserted (a unique key) but counted on it.
      // A limited token's attempt is matched only with an entry it sees (the repository's scope).
      const outcome = await repo.create(row, seenBy, check, scope ?? undefined);
      if (outcome && 'refusal' in outcome) throw outcome.refusal;
      if (outcome) return duplicate(ownerId, outcome.duplicateOf, 'text', scope ?? undefined);
      return { entry: entryOf(row, author) };
    },

    /**
     * Entries brought from elsewhere (an import), all or none: each judged as a creation is
     * (content, tags, window), then counted against the plan's limit and inserted together in one
     * unit of the group commit. `createdAt` keeps the time the other tool recorded; the entries
     * are written in the order given, so give them oldest first to have them listed newest first.
     * With `dryRun`, nothing is written: the entries answered are those that would be (their ids
     * are not stored). A refused item throws an InputError naming it by its index (`entries.3`).
     */
    async importEntries(
      ownerId: string,
      items: ReadonlyArray<MemoryStructure & { content: string; createdAt?: string | undefined }>,
      writer: MemoryWriter,
      options: { dryRun: boolean },
    ): Promise<MemoryEntry[]> {
      const now = isoNow();
      const author = authorWithChannel(writer);
      // A token limited to memory tags imports within them, as it writes one entry (memory.scope).
      const scope = writer.principal.memoryTags;
      const rows = items.map((item, index): MemoryEntriesTable =>
        forImportItem(index, () => {
          const content = wellFormed(item.content);
          checkContent(content);
          const structure = structureColumns(item);
          structure.tags = scopedTags(structure.tags, scope, true);
          const refused = windowProblem(structure.valid_from ?? null, structure.valid_until ?? null);
          if (refused) throw refused;
          const createdAt = item.createdAt === undefined ? now : importedTime(item.createdAt, item.source);
          // A time after the import is no creation time: the import's own is kept instead. Imported
          // entries hold no text key: an import is all or none, and one text already stored must
          // not fail all of it; the import itself writes each text once.
          return newRow(ownerId, content, structure, writer, { now, createdAt: createdAt > now ? now : createdAt }, null);
        }),
      );
      if (rows.length > 0) {
        const limit = await limits.limitFor(ownerId, 'memoryEntries', { withoutUsed: scope != null });
        // A dry run answers the plan's refusal too, from the count as it is now.
        const outcome = options.dryRun ? { refusal: limit?.(await repo.count(ownerId), rows.length) } : await repo.createAll(ownerId, rows, limit);
        if (outcome.refusal) throw outcome.refusal;
      }
      return rows.map((row) => entryOf(row, author));
    },

    /**
     * Newest first, paged by cursor; with `q`, the best matches first in a single page.
     * A blank `q` is no search, so clients may always send the parameter.
     */
    async list(
      ownerId: string,
      query: {
        limit: number;
        cursor?: string | undefined;
        q?: string | undefined;
        match?: MatchMode | undefined;
        filter?: MemoryFilter | undefined;
        /** `history`: superseded and expired entries too; `asOf`: the entries current then. */
        include?: 'history' | undefined;
        asOf?: string | undefined;
        /** The caller's memory tags, when it is limited to them: only entries carrying one. */
        scope?: MemoryScope | undefined;
      },
    ): Promise<MemoryPageResult> {
      const scope = query.scope;
      const filter = hasFilter(query.filter) ? storedFilter(query.filter) : undefined;
      const now = isoNow();
      const view: MemoryView =
        query.asOf !== undefined ? { view: 'asOf', at: storedTime(query.asOf, 'asOf') } : query.include === 'history' ? { view: 'history' } : { view: 'current' };
      const inView = (row: MemoryRow) => (view.view === 'history' ? true : view.view === 'asOf' ? wasCurrentAt(row, view.at) : isCurrent(row, now));
      const keep = (row: MemoryRow) => inView(row) && (!filter || passes(row, filter)) && inScope(row, scope);
      if (query.q !== undefined && query.q.trim() !== '') {
        if (query.cursor) {
          throw new InputError(
            'cursor',
            'must not be given with q',
            'cursor cannot be combined with q: a search answers one page of the best matches; raise limit instead',
          );
        }
        // The ranking knows neither filters, tags nor time: the best hits are ranked, and those
        // that pass kept; while too few did and there may be more, four times as many are ranked,
        // up to FILTERED_SEARCH_HITS (a token limited to tags once lost its own entry behind 200
        // hidden ones, which also told it that many hidden entries held the word).
        let asked = query.limit;
        let rows = await search(ownerId, query.q, asked, query.match ?? 'any');
        let kept = rows.filter(keep);
        while (kept.length < query.limit && rows.length === asked && asked < FILTERED_SEARCH_HITS) {
          asked = Math.min(asked * 4, FILTERED_SEARCH_HITS);
          rows = await search(ownerId, query.q, asked, query.match ?? 'any');
          kept = rows.filter(keep);
        }
        return { entries: await present(ownerId, kept.slice(0, query.limit), scope), nextCursor: null };
      }
      const read = async (): Promise<MemoryPageResult> => {
        const rows = await repo.list(ownerId, { limit: query.limit + 1, cursor: query.cursor, filter, view, scope });
        const page = rows.slice(0, query.limit);
        return { entries: await present(ownerId, page, scope), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
      };
      // What was current at an instant is asked rarely and differs by the instant: not kept.
      if (view.view === 'asOf') return read();
      // A cached page is the same object on every hit, which lets the route reuse its serialized body.
      const page = await pages.get(pageCacheKey(keptPageKey(ownerId, query.limit, query.cursor, filter, view.view), scope), read);
      // Superseded entries are left out by the query; expired ones by the clock, on every read.
      return view.view === 'current' ? withoutExpired(page, now) : page;
    },

    /**
     * What identifies the page `list` answers for this query among the pages it keeps, but for
     * the caller's scope (given to `cachedPage`); undefined for a query whose answer it does not
     * keep (a search, `asOf`). For the front door: the route remembers it for the query string.
     */
    pageKey(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined; q?: string | undefined; filter?: MemoryFilter | undefined; include?: 'history' | undefined; asOf?: string | undefined },
    ): KeptPageKey | undefined {
      if ((query.q !== undefined && query.q.trim() !== '') || query.asOf !== undefined) return undefined;
      const filter = hasFilter(query.filter) ? storedFilter(query.filter) : undefined;
      return keptPageKey(ownerId, query.limit, query.cursor, filter, query.include === 'history' ? 'history' : 'current');
    },

    /**
     * The page `list` would answer now for `key` and a caller limited to `scope`, from its cache
     * and without waiting; undefined when it keeps none that is current, or when an entry of it
     * has expired since it was read (`list` answers that page without it).
     */
    cachedPage(key: KeptPageKey, scope: MemoryScope | undefined): MemoryPageResult | undefined {
      const page = pages.peek(pageCacheKey(key, scope));
      if (!page || key.view === 'history') return page;
      return withoutExpired(page, isoNow()) === page ? page : undefined;
    },

    /** The chain of entries `id` belongs to (what it replaced, what replaced it), oldest first. */
    async history(ownerId: string, id: string, scope?: MemoryScope): Promise<MemoryEntry[]> {
      const rows = await repo.history(ownerId, id, scope);
      if (rows.length === 0) throw notFound('Memory entry', id);
      return present(ownerId, rows, scope);
    },

    /**
     * The ids of the owner's entries holding any word of `q`, best first, with their bm25 scores:
     * the words' ranking the one search hands to fusion (memory.search.ts). Each hit carries its
     * entry's text (and what `hitTexts` and `visibleIds` judge it by) when the owner's words
     * index keeps them, as current as the ranking; superseded and expired entries are ranked too.
     */
    async rankByWords(ownerId: string, q: string, limit: number): Promise<Array<{ id: string; score: number; entry?: IndexedEntry }>> {
      return (await repo.rank(ownerId, q, limit, 'any')).map((hit) => (hit.entry ? { id: hit.id, score: hit.rank, entry: hit.entry } : { id: hit.id, score: hit.rank }));
    },

    /**
     * The text of each of these entries that is current (neither superseded nor expired, as
     * lists and searches answer by default) and that a token limited to `scope` sees, in the order given: taken
     * from `known` (the words index's copies, from rankByWords) where it holds the entry, the
     * others read. Any id of no entry of the owner's is left out.
     */
    async hitTexts(ownerId: string, ids: readonly string[], known: ReadonlyMap<string, IndexedEntry>, scope?: MemoryScope): Promise<Array<{ id: string; content: string }>> {
      const now = isoNow();
      const missing = ids.filter((id) => !known.has(id));
      const read = new Map(missing.length === 0 ? [] : (await repo.byIds(ownerId, missing, scope)).map((row) => [row.id, row]));
      return ids.flatMap((id) => {
        const held = known.get(id);
        const row = held ? (inScope(held, scope) ? held : undefined) : read.get(id);
        return row && isCurrent(row, now) ? [{ id, content: row.content }] : [];
      });
    },

    /**
     * Which of these hits are entries a token limited to `scope` sees (all of them without a
     * scope): judged by the tags of the entry a hit carries (rankByWords), the others read.
     */
    async visibleIds(ownerId: string, hits: ReadonlyArray<{ id: string; entry?: IndexedEntry }>, scope: MemoryScope | undefined): Promise<Set<string>> {
      if (!scope) return new Set(hits.map((hit) => hit.id));
      const visible = new Set<string>();
      const unknown: string[] = [];
      for (const hit of hits) {
        if (!hit.entry) unknown.push(hit.id);
        else if (inScope(hit.entry, scope)) visible.add(hit.id);
      }
      if (unknown.length > 0) for (const row of await repo.byIds(ownerId, unknown, scope)) visible.add(row.id);
      return visible;
    },

    /** How many entries the owner stores: what the plan's memoryEntries limit counts. */
    async count(ownerId: string): Promise<number> {
      return repo.count(ownerId);
    },

    /** Another module wrote the owner's entries (an account import, inside its transaction; the account's erasure): see the repository's `writtenElsewhere`. */
    writtenElsewhere(ownerId: string): void {
      repo.writtenElsewhere(ownerId);
    },

    /** The newest `limit` entries and whether there are more, with the total only then. */
    async recent(ownerId: string, limit: number, scope?: MemoryScope): Promise<{ entries: MemoryEntry[]; total: number; truncated: boolean; endsAt: string | undefined }> {
      // One more than asked tells whether there are more, without counting in the common case.
      // Current entries only: superseded ones by the query, expired ones by the clock.
      // A limited token's entries and count are those it sees: hidden entries are not counted.
      const now = isoNow();
      const rows = (await repo.list(ownerId, { limit: limit + 1, view: { view: 'current' }, scope })).filter((row) => isCurrent(row, now));
      const truncated = rows.length > limit;
      const entries = await present(ownerId, rows.slice(0, limit), scope);
      // The first validUntil among every row read, the one past the limit too: when it passes,
      // the answer (its entries, `truncated`, `total`) is no longer what a new read would give.
      let endsAt: string | undefined;
      for (const row of rows) if (row.valid_until !== null && (endsAt === undefined || row.valid_until < endsAt)) endsAt = row.valid_until;
      return { entries, total: truncated ? await repo.count(ownerId, scope) : entries.length, truncated, endsAt };
    },

    /**
     * The pinned profile: the current pinned entries (not superseded, not expired) in the owner's
     * order, at most `limit`, those a limited token sees.
     */
    async profile(ownerId: string, limit: number, scope?: MemoryScope): Promise<MemoryEntry[]> {
      const now = isoNow();
      return present(
        ownerId,
        (await repo.pinned(ownerId, limit, scope)).filter((row) => isCurrent(row, now)),
        scope,
      );
    },

    /**
     * Changes the fields given (content and structure), records `writer` as the last editor. The
     * author stays who first wrote the entry.
     */
    async update(
      ownerId: string,
      id: string,
      input: MemoryStructure & { content?: string | undefined; supersededBy?: string | undefined },
      writer: MemoryWriter,
    ): Promise<MemoryEntry> {
      const scope = writer.principal.memoryTags;
      if (input.supersededBy !== undefined) return supersede(ownerId, id, input, scope ?? undefined);
      const content = input.content === undefined ? undefined : wellFormed(input.content);
      if (content !== undefined) checkContent(content);
      const structure = structureColumns(input);
      structure.tags = scopedTags(structure.tags, scope, false);
      if (structure.tags === undefined) delete structure.tags;
      const changes = {
        ...(content !== undefined ? { content, content_key: textKey(content, scope) } : {}),
        ...structure,
        // Unpinned leaves the profile: pinned again, it goes last until placed.
        ...(input.pinned === false ? { pin_order: null } : {}),
        updated_at: isoNow(),
        editor: writerJson(writer),
      };
      // The window is judged on the changed row, in the writing transaction: no read before it.
      const window = input.validFrom !== undefined || input.validUntil !== undefined;
      const row = await repo.update(ownerId, id, changes, window ? (changed) => windowProblem(changed.valid_from, changed.valid_until) : undefined, scope);
      if (!row) throw notFound('Memory entry', id);
      if ('sameTextAs' in row) {
        throw new AppError(
          'CONFLICT',
          `Another current entry (${row.sameTextAs}) already says this. Change that one instead, or supersede one by the other (PATCH with supersededBy), or delete one`,
          { details: { field: 'content', duplicateOf: row.sameTextAs } },
        );
      }
      return presentOne(ownerId, row, scope);
    },

    async remove(ownerId: string, id: string, scope?: MemoryScope): Promise<{ id: string; deleted: true }> {
      if (!(await repo.delete(ownerId, id, scope))) throw notFound('Memory entry', id);
      return { id, deleted: true };
    },

    // The owner's review: the profile's order, who wrote, forgetting one writer.
    ...createMemoryReviewService(repo),

    /** Deletes every entry of the owner (a limited token: every entry it sees); irreversible. Answers how many there were. */
    async clear(ownerId: string, scope?: MemoryScope): Promise<number> {
      return repo.clear(ownerId, scope);
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
