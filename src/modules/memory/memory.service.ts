import { AppError, InputError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { createDerivedCache, uncached, type DerivedCache } from '../../storage/derived-cache.js';
import type { MatchMode } from '../../storage/search/full-text.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import type { LimitsService } from '../billing/billing.limits.js';
import { searchFused, wordsOnlyFusion, type Fusion } from '../search/search.fusion.js';
import type { MemoryRepo, MemoryRow } from './memory.repo.js';
import type { MemoryEntry } from './memory.schemas.js';

/** The largest memory entry, in bytes of UTF-8. */
export const MEMORY_CONTENT_MAX_BYTES = 64 * 1024;


function toEntry(row: MemoryRow): MemoryEntry {
  return { id: row.id, content: row.content, created_at: row.created_at, updatedAt: row.updated_at };
}

/** Content is kept exactly as sent (markdown whitespace can matter); only blank content is refused. */
function checkContent(content: string): void {
  if (content.trim() === '') {
    throw new InputError('content', 'must not be blank', 'content must not be empty or only whitespace');
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
  for (const entry of page.entries) weight += entry.content.length + 96;
  return weight;
}

export interface MemoryServiceOptions {
  /** The entries; its writes share commits with concurrent ones (storage/group-commit.ts). */
  repo: MemoryRepo;
  limits: Pick<LimitsService, 'limitFor'>;
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

  return {
    async create(ownerId: string, content: string): Promise<MemoryEntry> {
      checkContent(content);
      const check = await limits.limitFor(ownerId, 'memoryEntries');
      const now = isoNow();
      const row = { id: newId('mem'), owner_id: ownerId, content, created_at: now, updated_at: now };
      // The count and the insert in the writing transaction, with the batch's other creations.
      const refused = await repo.create(row, check);
      if (refused) throw refused;
      return toEntry(row);
    },

    /**
     * Newest first, paged by cursor; with `q`, the best matches first in a single page.
     * A blank `q` is no search, so clients may always send the parameter.
     */
    async list(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined; q?: string | undefined; match?: MatchMode | undefined },
    ): Promise<MemoryPageResult> {
      if (query.q !== undefined && query.q.trim() !== '') {
        if (query.cursor) {
          throw new InputError(
            'cursor',
            'must not be given with q',
            'cursor cannot be combined with q: a search answers one page of the best matches; raise limit instead',
          );
        }
        const rows = await search(ownerId, query.q, query.limit, query.match ?? 'any');
        return { entries: rows.map(toEntry), nextCursor: null };
      }
      // A cached page is the same object on every hit, which lets the route reuse its serialized body.
      return pages.get(`${ownerId}\u0000${query.limit}\u0000${query.cursor ?? ''}`, async () => {
        const rows = await repo.list(ownerId, { limit: query.limit + 1, cursor: query.cursor });
        const page = rows.slice(0, query.limit);
        return { entries: page.map(toEntry), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
      });
    },

    /**
     * The ids of the owner's entries holding any word of `q`, best first, with their bm25 scores:
     * the words' ranking the one search hands to fusion (memory.search.ts).
     */
    async rankByWords(ownerId: string, q: string, limit: number): Promise<Array<{ id: string; score: number }>> {
      return (await repo.rank(ownerId, q, limit, 'any')).map((hit) => ({ id: hit.id, score: hit.rank }));
    },

    /** The owner's entries of these ids, in the order given; an id of no entry of the owner's is left out. */
    async entries(ownerId: string, ids: readonly string[]): Promise<MemoryEntry[]> {
      return (await repo.byIds(ownerId, ids)).map(toEntry);
    },

    /** How many entries the owner stores: what the plan's memoryEntries limit counts. */
    async count(ownerId: string): Promise<number> {
      return repo.count(ownerId);
    },

    /** The newest `limit` entries and whether there are more, with the total only then. */
    async recent(ownerId: string, limit: number): Promise<{ entries: MemoryEntry[]; total: number; truncated: boolean }> {
      // One more than asked tells whether there are more, without counting in the common case.
      const rows = await repo.list(ownerId, { limit: limit + 1 });
      const truncated = rows.length > limit;
      const entries = rows.slice(0, limit).map(toEntry);
      return { entries, total: truncated ? await repo.count(ownerId) : entries.length, truncated };
    },

    async update(ownerId: string, id: string, content: string): Promise<MemoryEntry> {
      checkContent(content);
      const changes = { content, updated_at: isoNow() };
      const row = await repo.update(ownerId, id, changes);
      if (!row) throw notFound('Memory entry', id);
      return toEntry(row);
    },

    async remove(ownerId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await repo.delete(ownerId, id))) throw notFound('Memory entry', id);
      return { id, deleted: true };
    },

    /** Deletes every entry of the owner; irreversible. Answers how many there were. */
    async clear(ownerId: string): Promise<number> {
      return repo.clear(ownerId);
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
