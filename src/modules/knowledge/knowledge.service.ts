import { AppError, InputError, notFound } from '../../http/errors.js';
import { wellFormed } from '../../lib/well-formed.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { type MatchMode } from '../../storage/search/full-text.js';
import { excerptStart, queryStems } from '../../storage/search/marks.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { LimitsService } from '../billing/billing.limits.js';
import type { ParsingPool } from '../parsing/parsing.pool.js';
import { detectUploadKind, SUPPORTED_UPLOADS, UPLOAD_KINDS } from '../parsing/parsing.extract.js';
import { splitPassages, type Passage } from '../../storage/search/passages.js';
import { wordsOnlyFusion, type Fusion, type MatchedBy } from '../search/search.fusion.js';
import type { HitPassage, KbChanges, KbDocumentRow, KbSummaryRow, KnowledgeRepo } from './knowledge.repo.js';
import type { ChangePublisher } from '../events/events.changes.js';
import type { KbDocument, KbDocumentSummary } from './knowledge.schemas.js';

/** Largest document text, and largest uploaded file: 10 MiB. */
export const KB_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const KB_MAX_CONTENT_BYTES = KB_MAX_UPLOAD_BYTES;
/** Route body limit of the JSON writes: the content limit plus room for the JSON around it. */
export const KB_JSON_BODY_LIMIT = 11 * 1024 * 1024;

/** Text sent as JSON is Markdown or plain text; Markdown is the type that covers both. */
const JSON_MIME_TYPE = 'text/markdown';
const DEFAULT_SOURCE = 'agent';
const UPLOAD_SOURCE = 'upload';
const UPSERT_PATH = 'POST /api/v1/brain/knowledge-base/upsert';

const EXCERPT_CHARS = 200;
/** How much of each listed document is read for its excerpt. */
const LIST_HEAD_CHARS = 400;
/** How much of each search hit is read to find the first matching word. */
const SEARCH_HEAD_CHARS = 50_000;

/**
 * Passages the list's `q` ranks at first to find its documents' best ones; more are read, four
 * times as many each round, while they hold fewer documents than asked and more might follow.
 */
const LIST_PASSAGES_PER_DOCUMENT = 4;
const LIST_PASSAGES_MAX = 20_000;

/** One passage found for a query: where it lies in its document, and how it was found. */
export interface KbPassageHit {
  /** The passage's id (`<document id>:<ordinal>`). */
  id: string;
  documentId: string;
  title: string;
  /** The headings above the passage, outermost first. */
  headingPath: string[];
  /** Exactly `document.content.slice(start, end)`. */
  text: string;
  start: number;
  end: number;
  score: number;
  matched: MatchedBy;
}

/**
 * A document's passages; a document without a word (an empty text) has one empty passage, so
 * that its title is still found, as it was when whole documents were ranked.
 */
export function passagesOfText(content: string): Passage[] {
  const passages = splitPassages(content);
  return passages.length > 0 ? passages : [{ text: '', start: 0, end: 0, headings: [] }];
}

function headingPathOf(stored: string): string[] {
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.filter((h): h is string => typeof h === 'string') : [];
}

export interface KbWriteInput {
  title: string;
  content: string;
  source?: string | undefined;
}

export interface KbUploadInput {
  filename: string;
  contentType: string | undefined;
  data: Buffer;
  title?: string | undefined;
  source?: string | undefined;
}

function toDocument(row: KbDocumentRow): KbDocument {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    source: row.source,
    mimeType: row.mime_type,
    sizeBytes: Number(row.size_bytes),
    fileBytes: row.file_bytes === null ? null : Number(row.file_bytes),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toSummary(row: KbSummaryRow, excerpt: string, rank?: number): KbDocumentSummary {
  return {
    id: row.id,
    title: row.title,
    source: row.source,
    mimeType: row.mime_type,
    sizeBytes: Number(row.size_bytes),
    fileBytes: row.file_bytes === null ? null : Number(row.file_bytes),
    excerpt,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(rank === undefined ? {} : { rank }),
  };
}

/** Never cut between the two halves of a surrogate pair: a lone half is not valid text. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/**
 * About `EXCERPT_CHARS` characters of `text` on one line, starting near `from` and cut at
 * word boundaries, with "…" where text was left out.
 */
export function excerptOf(text: string, from = 0): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= EXCERPT_CHARS) return flat;
  let start = Math.max(0, Math.min(from, flat.length - EXCERPT_CHARS));
  if (start > 0) {
    const space = flat.lastIndexOf(' ', start);
    start = space > start - 30 && space >= 0 ? space + 1 : start;
  }
  let end = Math.min(flat.length, start + EXCERPT_CHARS);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start + EXCERPT_CHARS * 0.6) end = space;
  }
  start = start > 0 ? safeCut(flat, start) : 0;
  end = safeCut(flat, end);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

/**
 * Where an excerpt of `text` for `q` starts: the window of EXCERPT_CHARS (on one line) holding
 * the most distinct words of the query, marked by the ranker's rule (marks.ts), a little before
 * its first match; 0 when none is in the text.
 */
export function bestMatchIndex(text: string, q: string): number {
  const flat = text.replace(/\s+/g, ' ').trim();
  return excerptStart(flat, queryStems(q), EXCERPT_CHARS);
}

function byteSize(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function checkContent(content: string, what = 'content'): number {
  checkNoNul(content, 'content');
  const size = byteSize(content);
  if (size > KB_MAX_CONTENT_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The ${what} is ${size} bytes; a knowledge-base document holds at most ${KB_MAX_CONTENT_BYTES} bytes (10 MiB). Split it into several documents`,
    );
  }
  return size;
}

/** PostgreSQL text cannot hold U+0000: refused on both engines alike, with a clear answer. */
function checkNoNul(value: string, field: string): void {
  if (value.includes('\u0000')) {
    throw new InputError(field, 'must not contain NUL characters', `Invalid request: ${field} must not contain NUL characters (U+0000)`);
  }
}

/** Titles are compared as stored: trimmed, otherwise exact. */
function normalizeTitle(title: string, field = 'title'): string {
  checkNoNul(title, field);
  const trimmed = title.trim();
  if (trimmed === '') {
    throw new InputError(field, 'must not be blank');
  }
  if (trimmed.length > 500) {
    throw new InputError(field, 'must NOT have more than 500 characters', `Invalid request: ${field} must be at most 500 characters`);
  }
  return wellFormed(trimmed);
}

function normalizeSource(source: string | undefined, fallback: string, field = 'source'): string {
  if (source === undefined) return fallback;
  checkNoNul(source, field);
  const trimmed = source.trim();
  if (trimmed === '' || trimmed.length > 100) {
    throw new InputError(field, 'must be 1 to 100 characters');
  }
  return wellFormed(trimmed);
}

/**
 * The knowledge base: an owner's documents, unique by title, searchable by full text.
 * Another owner's document id answers 404 exactly like one that does not exist.
 */
export function createKnowledgeService(deps: {
  repo: KnowledgeRepo;
  limits: Pick<LimitsService, 'limitFor'>;
  /** Where uploaded files are read: a worker within the EXTRACT_* limits, never this thread. */
  parsing: Pick<ParsingPool, 'extractUpload'>;
  /** Told after each successful write (MCP sessions list their resources again). */
  changes?: ChangePublisher | undefined;
  /** Ranks passages by words and meaning together; words only when not given. */
  fusion?: Fusion | undefined;
}) {
  const { repo, limits, parsing } = deps;
  const fusion = deps.fusion ?? wordsOnlyFusion;
  const changed = (ownerId: string) => deps.changes?.publish({ type: 'knowledge.changed', ownerId });
  async function titleConflict(ownerId: string, title: string): Promise<AppError> {
    const existingId = await repo.idByTitle(ownerId, title);
    return new AppError(
      'CONFLICT',
      `A knowledge-base document titled "${title}" already exists${existingId ? ` (${existingId})` : ''}. Titles are unique: to replace its content use ${UPSERT_PATH}, or choose another title`,
      { details: { title, ...(existingId ? { existingId } : {}), upsert: UPSERT_PATH } },
    );
  }

  async function create(ownerId: string, input: KbWriteInput & { mimeType: string; defaultSource: string; fileBytes?: number }): Promise<KbDocument> {
    const title = normalizeTitle(input.title);
    const source = normalizeSource(input.source, input.defaultSource);
    // Lone surrogates as U+FFFD before the passages are cut: SQLite would store each as three
    // (and PostgreSQL as one), so the passages' offsets would no longer slice what is stored.
    const content = wellFormed(input.content);
    const size = checkContent(content);
    const check = await limits.limitFor(ownerId, 'knowledgeBytes');
    const now = isoNow();
    const row = {
      id: newId('doc'),
      owner_id: ownerId,
      title,
      content,
      source,
      mime_type: input.mimeType,
      size_bytes: size,
      file_bytes: input.fileBytes ?? null,
      created_at: now,
      updated_at: now,
    };
    let refused: AppError | undefined;
    try {
      // The measure and the insert in one unit: a batch cannot pass the limit together.
      refused = await repo.create(row, passagesOfText(row.content), check);
    } catch (error) {
      if (isUniqueViolation(error)) throw await titleConflict(ownerId, title);
      throw error;
    }
    if (refused) throw refused;
    changed(ownerId);
    const { owner_id: _owner, ...document } = row;
    return toDocument(document);
  }

  /**
   * The rows of ranked passages, in the ranking's order, leaving out any deleted meanwhile: from
   * `known` (the words index's copies, as current as its ranking) where it holds them, the others read.
   */
  async function passageHits(
    ownerId: string,
    ranked: ReadonlyArray<{ id: string; score: number; matched: MatchedBy }>,
    known: ReadonlyMap<string, HitPassage>,
  ): Promise<Array<{ id: string; row: HitPassage; score: number; matched: MatchedBy }>> {
    const missing = ranked.filter((r) => !known.has(r.id)).map((r) => r.id);
    const rows = new Map<string, HitPassage>(missing.length === 0 ? [] : (await repo.passagesByIds(ownerId, missing)).map((row) => [row.id, row]));
    return ranked.flatMap((r) => {
      const row = known.get(r.id) ?? rows.get(r.id);
      return row ? [{ id: r.id, row, score: r.score, matched: r.matched }] : [];
    });
  }

  /**
   * The best passages for `q`: ranked by words (bm25 over the passages' title, headings and
   * text), then fused with meaning. `all` keeps passages holding every word and ranks by words
   * only (a passage close in meaning would not hold them).
   */
  async function searchPassages(ownerId: string, q: string, options: { limit: number; mode?: MatchMode | undefined }): Promise<KbPassageHit[]> {
    const mode = options.mode ?? 'any';
    const lexical = await repo.searchPassages(ownerId, q, Math.max(options.limit, mode === 'any' ? fusion.candidates : 0), mode);
    const hits = lexical.map((hit) => ({ id: hit.id, score: hit.rank }));
    const ranked = await (mode === 'any' ? fusion : wordsOnlyFusion).rank(ownerId, 'knowledge_passage', q, hits, options.limit);
    const known = new Map<string, HitPassage>();
    for (const hit of lexical) if (hit.passage) known.set(hit.id, hit.passage);
    return (await passageHits(ownerId, ranked, known)).map(({ id, row, score, matched }) => ({
      id,
      documentId: row.document_id,
      title: row.title,
      headingPath: headingPathOf(row.heading_path),
      text: row.content,
      start: Number(row.start_offset),
      end: Number(row.end_offset),
      score,
      matched,
    }));
  }

  /** Documents holding every word of `q` (match=all), ranked as whole documents, with an excerpt around the first match. */
  async function documentsHoldingAll(ownerId: string, q: string, limit: number): Promise<KbDocumentSummary[]> {
    const hits = await repo.search(ownerId, q, limit, 'all');
    const rows = new Map((await repo.summariesByIds(ownerId, hits.map((h) => h.id), SEARCH_HEAD_CHARS)).map((r) => [r.id, r]));
    return hits.flatMap((hit) => {
      const row = rows.get(hit.id);
      if (!row) return []; // deleted between the two queries
      return [toSummary(row, excerptOf(row.head, bestMatchIndex(row.head, q)), hit.rank)];
    });
  }

  return {
    /** One page, newest first. */
    async list(ownerId: string, options: { limit: number; cursor?: string | undefined }): Promise<{ items: KbDocumentSummary[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, { limit: options.limit + 1, cursor: options.cursor, headChars: LIST_HEAD_CHARS });
      const page = rows.slice(0, options.limit);
      return {
        items: page.map((row) => toSummary(row, excerptOf(row.head))),
        nextCursor: rows.length > options.limit ? page[page.length - 1]!.id : null,
      };
    },

    /**
     * The list's search: documents ranked by their best passage (the same ranking as the
     * passages' search), each with an excerpt of that passage around its first matching word.
     * With `all`, documents holding every word of `q` anywhere in their text.
     */
    async searchSummaries(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<KbDocumentSummary[]> {
      if (mode === 'all') return documentsHoldingAll(ownerId, q, limit);
      // Enough passages to hold `limit` documents: a long document may own many of the best.
      let wanted = Math.max(fusion.candidates, limit * LIST_PASSAGES_PER_DOCUMENT);
      let lexical = await repo.searchPassages(ownerId, q, wanted, 'any');
      while (lexical.length === wanted && wanted < LIST_PASSAGES_MAX && new Set(lexical.map((h) => h.id.slice(0, h.id.lastIndexOf(':')))).size < limit) {
        wanted = Math.min(wanted * 4, LIST_PASSAGES_MAX);
        lexical = await repo.searchPassages(ownerId, q, wanted, 'any');
      }
      const ranked = await fusion.rank(
        ownerId,
        'knowledge_passage',
        q,
        lexical.map((hit) => ({ id: hit.id, score: hit.rank })),
        Math.max(lexical.length, fusion.candidates),
      );
      // Each document's best passage, in the order of those.
      const best = new Map<string, { id: string; score: number }>();
      for (const item of ranked) {
        const documentId = item.id.slice(0, item.id.lastIndexOf(':'));
        if (!best.has(documentId)) best.set(documentId, { id: item.id, score: item.score });
        if (best.size === limit) break;
      }
      const [summaries, passages] = await Promise.all([
        repo.summariesByIds(ownerId, [...best.keys()], LIST_HEAD_CHARS),
        repo.passagesByIds(ownerId, [...best.values()].map((b) => b.id)),
      ]);
      const rows = new Map(summaries.map((r) => [r.id, r]));
      const texts = new Map(passages.map((p) => [p.id, p.content]));
      return [...best].flatMap(([documentId, passage]) => {
        const row = rows.get(documentId);
        const text = texts.get(passage.id);
        if (!row || text === undefined) return []; // deleted between the queries
        return [toSummary(row, excerptOf(text, bestMatchIndex(text, q)), passage.score)];
      });
    },

    /** The best passages for `q`, best first, with their documents and offsets: what search, MCP and chat answer. */
    searchPassages,

    /** A document's stored passages in order, the owner's only. */
    async passagesOf(ownerId: string, documentId: string) {
      return (await repo.passagesOf(ownerId, documentId)).map((row) => ({
        id: row.id,
        ordinal: Number(row.ordinal),
        headingPath: headingPathOf(row.heading_path),
        text: row.content,
        start: Number(row.start_offset),
        end: Number(row.end_offset),
      }));
    },

    async countDocuments(ownerId: string): Promise<number> {
      return repo.count(ownerId);
    },

    /** Bytes of document text the owner stores: what the plan's knowledgeBytes limit counts. */
    async storedBytes(ownerId: string): Promise<number> {
      return (await repo.storedBytes(ownerId)).total;
    },

    /** The most recently changed documents: ids and titles only. */
    async recent(ownerId: string, limit: number) {
      const rows = await repo.recent(ownerId, limit);
      return rows.map((r) => ({ id: r.id, title: r.title, updatedAt: r.updated_at }));
    },

    async get(ownerId: string, id: string): Promise<KbDocument> {
      const row = await repo.get(ownerId, id);
      if (!row) throw notFound('Knowledge-base document', id);
      return toDocument(row);
    },

    /** Creates a document; a title the owner already uses answers 409 naming the upsert endpoint. */
    async create(ownerId: string, input: KbWriteInput): Promise<KbDocument> {
      return create(ownerId, { ...input, mimeType: JSON_MIME_TYPE, defaultSource: DEFAULT_SOURCE });
    },

    /**
     * Creates or replaces the document with this title. INSERT … ON CONFLICT DO NOTHING, then
     * UPDATE by title when the title was taken: concurrent upserts of one new title make one
     * document (one "created", the others "updated") and never a unique-key error. The loop
     * covers a document deleted between the two statements.
     */
    async upsert(ownerId: string, input: KbWriteInput): Promise<{ action: 'created' | 'updated'; document: { id: string; title: string } }> {
      const title = normalizeTitle(input.title);
      const content = wellFormed(input.content);
      const size = checkContent(content);
      const source = normalizeSource(input.source, DEFAULT_SOURCE);
      const check = await limits.limitFor(ownerId, 'knowledgeBytes');
      // Ids and times are made outside the unit, which may run twice.
      const attempts = [0, 1, 2].map(() => ({ id: newId('doc'), now: isoNow() }));
      const outcome = await repo.upsert(
        ownerId,
        title,
        size,
        passagesOfText(content),
        attempts.map(({ id, now }) => {
          // An update keeps the document's source unless a new one is given.
          const changes: KbChanges = { content, mime_type: JSON_MIME_TYPE, size_bytes: size, file_bytes: null, updated_at: now };
          if (input.source !== undefined) changes.source = source;
          const row = { id, owner_id: ownerId, title, content, source, mime_type: JSON_MIME_TYPE, size_bytes: size, file_bytes: null, created_at: now, updated_at: now };
          return { row, changes };
        }),
        check,
      );
      if (outcome === undefined) throw new AppError('CONFLICT', `The document titled "${title}" changed repeatedly during this upsert; send it again`);
      if ('refused' in outcome) throw outcome.refused;
      changed(ownerId);
      return { action: outcome.action, document: { id: outcome.id, title } };
    },

    /** Replaces a document's content, and its title or source when given. */
    async update(ownerId: string, id: string, input: { content: string; title?: string | undefined; source?: string | undefined }): Promise<KbDocument> {
      const content = wellFormed(input.content);
      const size = checkContent(content);
      const changes: KbChanges & { updated_at: string } = { content, mime_type: JSON_MIME_TYPE, size_bytes: size, file_bytes: null, updated_at: isoNow() };
      if (input.title !== undefined) changes.title = normalizeTitle(input.title);
      if (input.source !== undefined) changes.source = normalizeSource(input.source, DEFAULT_SOURCE);
      const check = await limits.limitFor(ownerId, 'knowledgeBytes');
      let outcome: Awaited<ReturnType<typeof repo.update<AppError>>>;
      try {
        outcome = await repo.update(ownerId, id, changes, passagesOfText(content), check);
      } catch (error) {
        if (isUniqueViolation(error) && changes.title !== undefined) throw await titleConflict(ownerId, changes.title);
        throw error;
      }
      if (outcome && 'refused' in outcome) throw outcome.refused;
      if (!outcome) throw notFound('Knowledge-base document', id);
      changed(ownerId);
      return toDocument(outcome);
    },

    /** Deletes a document; its links to personas and skills go with it (ON DELETE CASCADE). */
    async remove(ownerId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await repo.delete(ownerId, id))) throw notFound('Knowledge-base document', id);
      changed(ownerId);
      return { id, deleted: true };
    },

    /**
     * Makes a document of an uploaded file's text. The title defaults to the file name, the
     * source to "upload"; the document records the file's type and size beside the size of the text.
     */
    async createFromFile(ownerId: string, file: KbUploadInput): Promise<KbDocument> {
      if (file.data.length === 0) {
        throw new AppError('VALIDATION_ERROR', `The uploaded file ${file.filename} is empty`);
      }
      const kind = detectUploadKind(file.filename, file.contentType);
      if (!kind) {
        throw new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `${file.filename} (${file.contentType || 'no Content-Type'}) is not a supported file type. Supported: ${SUPPORTED_UPLOADS}`,
        );
      }
      // Titles and sources are checked before the (possibly slow) extraction.
      const title = normalizeTitle(file.title ?? file.filename, file.title === undefined ? 'file name' : 'title');
      const source = normalizeSource(file.source, UPLOAD_SOURCE, 'source');
      const text = await parsing.extractUpload(ownerId, kind, file.data, file.filename);
      checkContent(text, 'text extracted from the file');
      return create(ownerId, { title, content: text, source, mimeType: UPLOAD_KINDS[kind].mimeType, defaultSource: UPLOAD_SOURCE, fileBytes: file.data.length });
    },
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
