import { ignoreFailure } from '../../lib/ignore-failure.js';
import type { AnyTables } from '../columns.js';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { WriteTracker } from '../write-tracker.js';
import type { FullTextIndex, MatchMode } from './full-text.js';
import { createBuilder, type OwnerIndex } from './owner-index.js';
import { createRankScratch, rankInIndex, type IndexedHit } from './ranker.js';
import { createScanRanking } from './scan.js';
import { searchTerms } from './tokenizer.js';

/**
 * An in-memory inverted index per owner over the columns a full-text index declares, so that a
 * search over thousands of matches costs microseconds instead of scoring every match in the
 * database on every call (docs/decisions/storage.md).
 *
 * - Words are cut and stemmed as SQLite's FTS5 index cuts them (`unicode61 remove_diacritics 2`,
 *   then Porter), and each query word matches as a prefix of a stem, as `"word"*` does.
 * - Ranking is FTS5's bm25 with the index's column weights (k1 = 1.2, b = 0.75), computed from
 *   the owner's own rows, best first, ties by id: the same order on both engines.
 * - Documents are numbered shortest first, so the most a document can still score only falls
 *   along a walk; the walk stops once that is below the k-th best score. `all` walks the
 *   rarest word's list and looks the others up (an array by document for frequent words, else
 *   galloping); `any` skips documents that only words too weak to enter the top k carry
 *   (MaxScore).
 * - Freshness: on SQLite the write tracker's stamp of the table (this process makes every
 *   write); on PostgreSQL a per-owner generation that triggers bump in the writing transaction
 *   (migrations 0020 and 0028), read with one indexed query (shared by the searches that arrive while
 *   one is in flight). A changed stamp or generation rebuilds the
 *   owner's index on the next search, so a write is seen by the next search on every node.
 * - Bounded: an owner whose index would exceed `maxCost` (postings plus words) is searched by
 *   reading its rows and ranking them as they come (scan.ts), with the same hits and order as
 *   an index; the least recently used owners are dropped beyond the same total.
 *
 * `search` answers `undefined` when the database should answer instead: a query word the index
 * cannot express, such as one that the tokenizer splits in two (searchTerms makes none).
 */

export interface SearchIndexOptions {
  db: Kysely<AnyTables>;
  dialect: Dialect;
  index: FullTextIndex;
  /** Text columns kept for equality filters (e.g. skills' `category_key`). */
  attributes?: readonly string[];
  /**
   * Columns kept with each document and answered with each hit, so that a search needs no
   * query for its rows. Only for short columns: they count towards `maxCost`.
   */
  payload?: readonly string[];
  /**
   * Makes the object answered for a row's `payload` columns (e.g. the API's summary of it), once
   * per build: searches then answer the same object for a row until the owner's index is rebuilt,
   * which any write to the table causes, so callers can keep what they derive from it by identity.
   */
  present?: (row: Record<string, unknown>) => Record<string, unknown>;
  /**
   * With `payload`: the most one owner's payload may cost, apart from `maxCost` (which then
   * bounds the postings alone). An owner's payload past it is not kept: its index still ranks,
   * and its hits carry no row. Undefined: the payload counts towards `maxCost`.
   */
  payloadMaxCost?: number;
  /** On SQLite: the tracker of this process's writes. Without it, the generation table is read. */
  writes?: WriteTracker | undefined;
  /** Rows read per query while building; small for tables with large texts. */
  pageSize: number;
  /** The most postings plus words held for this table, over all owners. */
  maxCost: number;
  /** Ids are integers (read back as numbers on both engines). */
  integerIds?: boolean;
}

/** Owners whose index is kept at most, whatever their size (an empty index costs nothing else). */
const MAX_OWNERS = 10_000;

export interface IndexedSearch {
  q: string;
  /** `searchTerms(q)`, when the caller has cut the query already. */
  terms?: readonly string[];
  limit: number;
  mode: MatchMode;
  /** Attribute equality filters, applied before the limit. */
  where?: Record<string, string | undefined>;
}

export interface SearchIndex<Id extends string | number> {
  search(ownerId: string, options: IndexedSearch): Promise<Array<IndexedHit<Id>> | undefined>;
}

/** Marks an owner whose index would be too large at this version: its rows are scanned. */
interface TooLarge {
  version: number;
  tooLarge: true;
}

const acceptAll = (): boolean => true;

export function createSearchIndex<Id extends string | number>(options: SearchIndexOptions): SearchIndex<Id> {
  const { db, index, pageSize, maxCost, payloadMaxCost } = options;
  // Every owner's index together: the postings' bound and, where the payload is counted apart, its own.
  const maxTotalCost = maxCost + (payloadMaxCost ?? 0);
  // The tracker says when to rebuild only where this process makes every write (SQLite). On
  // PostgreSQL it hears other nodes only through a feed that may lag or drop a notice, while the
  // generation rows change in the writing transaction itself: a search never sees older rows.
  const writes = options.dialect === 'sqlite' ? options.writes : undefined;
  const attributes = options.attributes ?? [];
  const payload = options.payload ?? [];
  const columns = [...new Set(['id', ...index.columns.map((c) => c.name), ...attributes, ...payload])];
  // Least recently searched first (a Map keeps insertion order).
  const owners = new Map<string, OwnerIndex<Id> | TooLarge>();
  const building = new Map<string, Promise<OwnerIndex<Id> | TooLarge>>();
  let totalCost = 0;
  // This index's own heap storage: its rankings run one at a time (see RankScratch).
  const scratch = createRankScratch();

  async function readGeneration(ownerId: string): Promise<number> {
    const result = await sql<{ generation: string | number }>`
      SELECT coalesce(sum(generation), 0) AS generation FROM search_generations
      WHERE owner_id = ${ownerId} AND table_name = ${index.table}`.execute(db);
    return Number(result.rows[0]?.generation ?? 0);
  }

  /**
   * Generation reads per owner: the one in flight, and the one that waits for it. A search joins
   * only a read sent after it arrived (so it sees every write committed before it), but the
   * searches that arrive while one read is in flight share the next: under load, one query
   * answers many searches instead of one each.
   */
  const reads = new Map<string, { inFlight?: Promise<number> | undefined; next?: Promise<number> | undefined }>();

  function generation(ownerId: string): Promise<number> {
    let state = reads.get(ownerId);
    if (!state) {
      state = {};
      reads.set(ownerId, state);
    }
    const s = state;
    if (!s.inFlight) {
      s.inFlight = readGeneration(ownerId).finally(() => {
        s.inFlight = undefined;
        if (!s.next && reads.get(ownerId) === s) reads.delete(ownerId);
      });
      return s.inFlight;
    }
    if (!s.next) {
      s.next = ignoreFailure(s.inFlight, 'a failed read is answered to the searches that waited for it').then(() => {
        s.next = undefined;
        // Sent now, after every search waiting here arrived.
        const read = readGeneration(ownerId);
        s.inFlight ??= read;
        void ignoreFailure(
          read.finally(() => {
            if (s.inFlight === read) s.inFlight = undefined;
            if (!s.inFlight && !s.next && reads.get(ownerId) === s) reads.delete(ownerId);
          }),
          'its failure reaches the searches that await the read',
        );
        return read;
      });
    }
    return s.next;
  }

  async function currentVersion(ownerId: string): Promise<number> {
    // A stamp is undefined only while writes cannot be seen, never on SQLite; an index built
    // then is not kept (see ownerIndex), so -1 only makes the search read the rows.
    if (writes) return writes.stamp([index.table]) ?? -1;
    return generation(ownerId);
  }

  function forget(ownerId: string): void {
    const entry = owners.get(ownerId);
    if (!entry) return;
    owners.delete(ownerId);
    if (!('tooLarge' in entry)) totalCost -= entry.cost;
  }

  /** Reads the owner's rows in pages by id, so that a table of large texts is never read at once; stops when `add` answers false. */
  async function readRows(ownerId: string, add: (row: Record<string, unknown>) => boolean): Promise<void> {
    const select = sql.raw(columns.join(', '));
    let after: Id | undefined;
    for (;;) {
      const page = await sql<Record<string, unknown>>`
        SELECT ${select} FROM ${sql.table(index.table)}
        WHERE owner_id = ${ownerId} ${after === undefined ? sql`` : sql`AND id > ${after}`}
        ORDER BY id LIMIT ${pageSize}`.execute(db);
      for (const row of page.rows) {
        if (options.integerIds) row.id = Number(row.id);
        if (!add(row)) return;
      }
      if (page.rows.length < pageSize) return;
      after = page.rows[page.rows.length - 1]!.id as Id;
    }
  }

  async function build(ownerId: string, version: number): Promise<OwnerIndex<Id> | TooLarge> {
    const builder = createBuilder<Id>(index, attributes, payload, options.present, maxCost, payloadMaxCost);
    let fits = true;
    await readRows(ownerId, (row) => (fits = builder.add(row)));
    if (!fits) return { version, tooLarge: true };
    return builder.finish(version) ?? { version, tooLarge: true };
  }

  /** An owner too large to keep: its rows are read and ranked as they come (scan.ts), the same hits as an index would answer. */
  async function scan(ownerId: string, terms: readonly string[], mode: MatchMode, limit: number, where: IndexedSearch['where']) {
    const filters: Array<readonly [string, string]> = [];
    for (const name in where) {
      const value = where[name];
      if (value !== undefined) filters.push([name, value]);
    }
    const ranking = createScanRanking<Id>(index, terms, mode, limit, filters);
    await readRows(ownerId, (row) => {
      ranking.add(row);
      return true;
    });
    return ranking.finish();
  }

  /** The owner's kept index if it is of `version`, marked as the most recently used. */
  function keptAt(ownerId: string, version: number): OwnerIndex<Id> | TooLarge | undefined {
    const known = owners.get(ownerId);
    if (!known || known.version !== version) return undefined;
    owners.delete(ownerId);
    owners.set(ownerId, known);
    return known;
  }

  /** The owner's index when it is current and that is known without a query (SQLite), else undefined. */
  function currentKnown(ownerId: string): OwnerIndex<Id> | TooLarge | undefined {
    return writes ? keptAt(ownerId, writes.stamp([index.table]) ?? -1) : undefined;
  }

  async function ownerIndex(ownerId: string): Promise<OwnerIndex<Id> | TooLarge> {
    const version = await currentVersion(ownerId);
    const known = keptAt(ownerId, version);
    if (known) return known;
    const key = `${ownerId}\u0000${version}`;
    let pending = building.get(key);
    if (!pending) {
      pending = build(ownerId, version).finally(() => building.delete(key));
      building.set(key, pending);
    }
    const built = await pending;
    // Kept only if nothing was written while it was read (SQLite), or if it is still the newest
    // known (PostgreSQL, where the generation was read before the rows, so the rows are as new).
    const stale = writes ? writes.stamp([index.table]) !== version : (owners.get(ownerId)?.version ?? -1) > version;
    if (!stale) {
      forget(ownerId);
      owners.set(ownerId, built);
      if (!('tooLarge' in built)) {
        totalCost += built.cost;
      }
      while ((totalCost > maxTotalCost || owners.size > MAX_OWNERS) && owners.size > 1) forget(owners.keys().next().value!);
    }
    return built;
  }

  return {
    async search(ownerId, { q, terms = searchTerms(q), limit, mode, where }) {
      if (terms.length === 0) return [];
      // Without a wait where the index is known current: most searches on SQLite.
      const owner = currentKnown(ownerId) ?? (await ownerIndex(ownerId));
      if ('tooLarge' in owner) return scan(ownerId, terms, mode, limit, where);
      const filters: Array<readonly [string[], string]> = [];
      for (const name in where) {
        const value = where[name];
        if (value !== undefined) filters.push([owner.attributes.get(name)!, value]);
      }
      const accept = filters.length === 0 ? acceptAll : (slot: number) => filters.every(([values, value]) => values[slot] === value);
      return rankInIndex(owner, terms, mode, limit, accept, scratch);
    },
  };
}

