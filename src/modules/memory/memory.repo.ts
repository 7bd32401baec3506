import { CompiledQuery, sql } from 'kysely';
import type { FullTextIndex, MatchMode, RankedHit } from '../../storage/search/full-text.js';
import type { Dialect } from '../../storage/dialect.js';
import { WritesOverloadedError, type BatchedWork, type GroupCommit } from '../../storage/group-commit.js';
import { createSearchIndex } from '../../storage/search/index-cache.js';
import type { Executor } from '../../storage/columns.js';
import type { MemoryEntriesTable, MemoryTables } from './memory.tables.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import { decodeJson, isStringArray } from '../../storage/columns.js';
import { tagPattern } from '../../lib/tags.js';
import type { Channel } from '../../http/channel.js';
import { SUPERSEDES_MAX, type MemoryAuthor, type MemoryKind, type MemorySource } from './memory.schemas.js';
import { createTextKeys, type OwnerTextKeys, type TextKeys } from './memory.keys.js';
import { rowsJson } from './memory.rows-json.js';

// Named, never selectAll: the table also holds SQLite's `rid` (the key of the full-text index it once had).
const COLUMNS = [
  'id',
  'content',
  'created_at',
  'updated_at',
  'author_token_id',
  'channel',
  'author',
  'editor',
  'source',
  'kind',
  'tags',
  'pinned',
  'valid_from',
  'valid_until',
  'supersedes',
  'superseded_by',
  'superseded_at',
  'pin_order',
  'seen_count',
  'last_seen_at',
  'last_seen_by',
] as const;

/** Who wrote, as stored in `author` (the channel has a column of its own) and `editor` (with it). */
export type StoredAuthor = Pick<MemoryAuthor, 'token' | 'agent'>;

const isObjectOrNull = (value: unknown): boolean => value === null || (typeof value === 'object' && !Array.isArray(value));
const isStoredAuthor = (value: unknown): value is StoredAuthor =>
  typeof value === 'object' && value !== null && isObjectOrNull((value as StoredAuthor).token) && isObjectOrNull((value as StoredAuthor).agent);
const isEditor = (value: unknown): value is MemoryAuthor => isStoredAuthor(value) && typeof (value as MemoryAuthor).channel === 'string';
const isSource = (value: unknown): value is MemorySource => typeof value === 'object' && value !== null && typeof (value as MemorySource).kind === 'string';

/** The entry's author: the stored record, or nobody known for entries stored before authors were. */
export function authorOf(row: Pick<MemoryEntriesTable, 'author' | 'channel'>): MemoryAuthor {
  const stored = row.author === null ? null : decodeJson(row.author, isStoredAuthor, 'memory_entries.author');
  return { channel: row.channel, token: stored?.token ?? null, agent: stored?.agent ?? null };
}

export function editorOf(row: Pick<MemoryEntriesTable, 'editor'>): MemoryAuthor | null {
  return row.editor === null ? null : decodeJson(row.editor, isEditor, 'memory_entries.editor');
}

/** Who last stored the entry again (a write found a duplicate of it); null while only its author has. */
export function seenByOf(row: Pick<MemoryEntriesTable, 'last_seen_by'>): MemoryAuthor | null {
  return row.last_seen_by === null ? null : decodeJson(row.last_seen_by, isEditor, 'memory_entries.last_seen_by');
}

export function sourceOf(row: Pick<MemoryEntriesTable, 'source'>): MemorySource | null {
  return row.source === null ? null : decodeJson(row.source, isSource, 'memory_entries.source');
}

export function tagsOf(row: Pick<MemoryEntriesTable, 'tags'>): string[] {
  // Most entries have none: no parse for them.
  return row.tags === '[]' ? [] : decodeJson(row.tags, isStringArray, 'memory_entries.tags');
}

export function supersedesOf(row: Pick<MemoryEntriesTable, 'supersedes'>): string[] {
  return row.supersedes === '[]' ? [] : decodeJson(row.supersedes, isStringArray, 'memory_entries.supersedes');
}

/** The list's filters; each one given narrows it (the tag normalized as tags are stored). */
export interface MemoryFilter {
  author?: string | undefined;
  channel?: Channel | undefined;
  kind?: MemoryKind | undefined;
  tag?: string | undefined;
  pinned?: boolean | undefined;
}

/**
 * Which entries, in time: `current` (not superseded; expiry is time's, judged by the service on
 * what it reads), `history` (every one), or those that were current at an instant (`asOf`, UTC).
 */
export type MemoryView = { view: 'current' } | { view: 'history' } | { view: 'asOf'; at: string };

/** How long a chain the history follows. */
const HISTORY_MAX = 200;

/**
 * Ids in one statement that reads entries by id. A list of ids can be long (an entry's
 * `supersedes`, stored before it was bounded, held 33,000): SQLite takes at most 32,766
 * parameters in a statement and PostgreSQL 65,535, so longer lists are read in parts.
 */
const IDS_PER_READ = 500;

/** The ids a superseding write named that are not current entries of the owner. */
class MissingEntries extends Error {
  constructor(readonly ids: string[]) {
    super(`Not current entries of the owner: ${ids.join(', ')}`);
  }
}

/**
 * The tags a token's memory is limited to (normalized), or null for no limit. An entry is in
 * scope when it carries at least one of them; every read and write of a limited token is bounded
 * by it in its query, so a hidden entry is never read, counted or changed for it.
 */
export type MemoryScope = readonly string[] | null;

/** The condition "the entry carries one of the scope's tags"; undefined for no limit. */
function scopeCondition(scope: MemoryScope | undefined) {
  if (!scope) return undefined;
  if (scope.length === 0) return sql<boolean>`1 = 0`;
  return sql<boolean>`(${sql.join(
    scope.map((tag) => sql`tags LIKE ${tagPattern(tag)} ESCAPE '\\'`),
    sql` OR `,
  )})`;
}

/** Whether a row carries one of the scope's tags (rows read without the condition, e.g. a search's hits). */
export function inScope(row: Pick<MemoryEntriesTable, 'tags'>, scope: MemoryScope | undefined): boolean {
  if (!scope) return true;
  const tags = tagsOf(row);
  return scope.some((tag) => tags.includes(tag));
}

/** An entry's place in its chain: what replaced it (and when), and what it replaced. */
export type ChainRow = Pick<MemoryEntriesTable, 'id' | 'superseded_by' | 'superseded_at' | 'supersedes'>;

/** A neighbour's links once the forgotten entries are gone; `restored` when it is current again. */
export interface ChainChange {
  id: string;
  supersededBy: string | null;
  supersededAt: string | null;
  supersedes: string[];
  restored: boolean;
}

/**
 * Mends the chains that lose `forgotten` entries, from their `neighbours` (the entries, kept, that
 * they replaced or were replaced by). A chain is spliced, as if the forgotten entries had never
 * been written: an entry a forgotten one replaced is now replaced by the first kept entry after
 * it (when a kept entry replaced the forgotten one in turn), or, when none did, is current again;
 * a kept entry that replaced a forgotten one now lists, instead of it, the kept entries it
 * replaced. Answers the neighbours whose links change.
 */
export function spliceChains(forgotten: ReadonlyMap<string, ChainRow>, neighbours: readonly ChainRow[]): ChainChange[] {
  /** The first kept entry after a forgotten one, following what replaced it; null when none. */
  const keptSuccessor = (id: string): string | null => {
    const seen = new Set<string>();
    let next: string | null = id;
    while (next !== null && forgotten.has(next) && !seen.has(next)) {
      seen.add(next);
      next = forgotten.get(next)!.superseded_by;
    }
    return next !== null && forgotten.has(next) ? null : next;
  };
  const states = new Map(
    neighbours.map((row) => [row.id, { row, supersededBy: row.superseded_by, supersededAt: row.superseded_at, supersedes: supersedesOf(row).filter((id) => !forgotten.has(id)) }]),
  );
  for (const state of states.values()) {
    const by = state.row.superseded_by;
    if (by === null || !forgotten.has(by)) continue;
    const successor = keptSuccessor(by);
    state.supersededBy = successor;
    if (successor === null) state.supersededAt = null;
    const after = successor === null ? undefined : states.get(successor);
    if (after && !after.supersedes.includes(state.row.id)) after.supersedes.push(state.row.id);
  }
  const changes: ChainChange[] = [];
  for (const { row, supersededBy, supersededAt, supersedes } of states.values()) {
    const before = supersedesOf(row);
    const same = supersededBy === row.superseded_by && supersedes.length === before.length && supersedes.every((id, i) => id === before[i]);
    if (!same) changes.push({ id: row.id, supersededBy, supersededAt, supersedes, restored: row.superseded_by !== null && supersededBy === null });
  }
  return changes;
}

/** The shared database, or the transaction of a group commit (storage/group-commit.ts). */

/**
 * A limit on how many entries an owner keeps: given the owner's count and the entries being
 * added, a refusal, or undefined to go ahead (the plan's check, see billing.limits.ts).
 */
export type EntryLimit<R> = (count: number, adding: number) => R | undefined;

/**
 * What forgetting the entries `tokenId` wrote would do: how many there are, and how the chains
 * they belong to are mended (see spliceChains). Read in the caller's executor, so that a deletion
 * counts and mends what it deletes.
 */
async function planForget(trx: Executor<MemoryTables>, ownerId: string, tokenId: string): Promise<{ count: number; changes: ChainChange[] }> {
  const n = await trx
    .selectFrom('memory_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('owner_id', '=', ownerId)
    .where('author_token_id', '=', tokenId)
    .executeTakeFirstOrThrow();
  // Only the forgotten entries that belong to a chain matter for mending it: most have none.
  const linked = await trx
    .selectFrom('memory_entries')
    .select(['id', 'superseded_by', 'superseded_at', 'supersedes'])
    .where('owner_id', '=', ownerId)
    .where('author_token_id', '=', tokenId)
    .where((eb) => eb.or([eb('superseded_by', 'is not', null), eb('supersedes', '<>', '[]')]))
    .execute();
  const forgotten = new Map(linked.map((row) => [row.id, row]));
  const neighbourIds = [...new Set(linked.flatMap((row) => [...supersedesOf(row), ...(row.superseded_by ? [row.superseded_by] : [])]))].filter((id) => !forgotten.has(id));
  const neighbours: ChainRow[] = [];
  for (let start = 0; start < neighbourIds.length; start += IDS_PER_READ) {
    neighbours.push(
      ...(await trx
        .selectFrom('memory_entries')
        .select(['id', 'superseded_by', 'superseded_at', 'supersedes'])
        .where('owner_id', '=', ownerId)
        .where('id', 'in', neighbourIds.slice(start, start + IDS_PER_READ))
        .execute()),
    );
  }
  return { count: Number(n.n), changes: spliceChains(forgotten, neighbours) };
}

interface Creation {
  row: MemoryEntriesTable;
  limit: EntryLimit<unknown> | undefined;
  /** The writer as `last_seen_by` records it, should the row turn out to be a duplicate. */
  seenBy: string;
  /** The writer's memory tags, when it is limited: its attempt is counted only on an entry it sees. */
  scope?: MemoryScope | undefined;
}

/**
 * What became of a new entry: written (undefined), refused by the limit, or not written because
 * a current entry of the owner holds the same text (which now counts this attempt).
 */
export type CreationOutcome<R> = { refusal: R } | { duplicateOf: MemoryRow } | undefined;

/** A superseding write whose text a current entry (not one it replaces) already holds. */
class DuplicateText extends Error {
  constructor() {
    super('A current entry of the owner holds the same text');
  }
}

/** Attempts at settling one text in a batch before giving up (each needs a concurrent writer to win a race). */
const SETTLE_ATTEMPTS = 4;

export type MemoryRow = Pick<MemoryEntriesTable, (typeof COLUMNS)[number]>;

/** The columns of a new entry but `pinned`, in the order PostgreSQL's batched insert unnests them. */
const INSERTED_TEXT_COLUMNS = [
  'id',
  'owner_id',
  'content',
  'created_at',
  'updated_at',
  'author_token_id',
  'channel',
  'author',
  'editor',
  'source',
  'kind',
  'tags',
  'valid_from',
  'valid_until',
  'supersedes',
  'superseded_by',
  'superseded_at',
  'content_key',
  'last_seen_at',
  'last_seen_by',
] as const satisfies ReadonlyArray<Exclude<keyof MemoryEntriesTable, 'pinned' | 'seen_count'>>;

/**
 * PostgreSQL's INSERT of any number of new entries: the rows go as one JSON parameter, read back
 * as a record set. One SQL text (one prepared statement) for any number of rows, and no array
 * parameters to escape: pg's escaping of 21 text arrays, element by element, cost a batch more
 * CPU and garbage than the native JSON.stringify of the same rows (docs/performance.md).
 */
const POSTGRES_INSERT = (() => {
  const columns = [...INSERTED_TEXT_COLUMNS, 'pinned', 'seen_count'] as const;
  const names = columns.map((c) => `"${c}"`).join(', ');
  const types = columns.map((c) => `"${c}" ${c === 'pinned' || c === 'seen_count' ? 'integer' : 'text'}`).join(', ');
  return `insert into "memory_entries" (${names}) select ${names} from json_to_recordset($1::json) as r(${types}) on conflict do nothing`;
})();

/** Which of these ids name an entry (after POSTGRES_INSERT skipped some of its rows). */
const POSTGRES_WRITTEN = 'select "id" from "memory_entries" where "id" = any($1::text[])';

/** Rows per statement of a bulk creation (an import): bounds one PostgreSQL statement's parameters. */
const IMPORT_ROWS_PER_STATEMENT = 500;

/** Postings plus words the in-memory search index holds over all owners (a few MB at most). */
const SEARCH_INDEX_MAX_COST = 500_000;

/**
 * What the in-memory search index keeps of each entry besides its words, so that a search
 * answers its hits' text without reading their rows: the text, and what says whether the entry
 * is current (neither superseded nor expired) and which tags it carries (a limited token's
 * scope). As current as the ranking itself: any write to the table rebuilds the owner's index
 * before the next search (index-cache.ts).
 */
const SEARCH_PAYLOAD = ['content', 'tags', 'superseded_at', 'valid_until'] as const;

/** An entry as the search index keeps it (SEARCH_PAYLOAD). */
export type IndexedEntry = Pick<MemoryEntriesTable, (typeof SEARCH_PAYLOAD)[number]>;

/** A hit of the words' ranking, with the entry when the owner's index keeps its text. */
export interface RankedEntry extends RankedHit<string> {
  entry?: IndexedEntry;
}

/** Rows in one SQLite INSERT of a batch: at most this many statement texts, 24 parameters a row. */
const SQLITE_ROWS_PER_INSERT = 32;

/** Rids in one statement that reads candidates of text keys (SQLite's parameters per statement are bounded). */
const RIDS_PER_READ = 500;

/** Every column of a new entry, in the order SQLite's batched insert names them. */
const SQLITE_INSERTED_COLUMNS = [...INSERTED_TEXT_COLUMNS, 'pinned', 'seen_count', 'pin_order'] as const;
// A column added to the table and not here would silently take its default: this fails to compile instead.
const everyColumnInserted: Record<Exclude<keyof MemoryEntriesTable, (typeof SQLITE_INSERTED_COLUMNS)[number]>, never> = {};
void everyColumnInserted;

/**
 * SQLite's INSERT of `rows` new entries, as Kysely would write it (`… ON CONFLICT DO NOTHING
 * RETURNING id`), made once per number of rows: building and compiling it from 24 values a row
 * cost a batch more than some of SQLite's own work for it, and the same string each time is
 * found in the statement cache without hashing a new one.
 */
const sqliteInserts: string[] = [];
function sqliteInsertText(rows: number): string {
  let text = sqliteInserts[rows];
  if (text === undefined) {
    const one = `(${SQLITE_INSERTED_COLUMNS.map(() => '?').join(', ')})`;
    // No unique index holds the text keys on SQLite (memory.keys.ts): the conflict left is the id's.
    text = `insert into "memory_entries" (${SQLITE_INSERTED_COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${Array.from({ length: rows }, () => one).join(', ')} on conflict do nothing returning "id", "rid"`;
    sqliteInserts[rows] = text;
  }
  return text;
}

/** How forgetting gives entries made current again their text keys (see createKeyChecks). */
interface RestoredKeys {
  /** Loads the owner's kept keys (SQLite) in the unit, before its writes. */
  load(trx: Executor<MemoryTables>, ownerId: string): Promise<unknown>;
  /** Gives the current entries `ids` the key `keyOf` their text, unless another current entry holds it. */
  restore(trx: Executor<MemoryTables>, ownerId: string, ids: readonly string[], options: { at: string; keyOf: (content: string) => string }): Promise<void>;
}

/**
 * The queries of the owner's review (history, who wrote, forgetting one writer) and of the pinned
 * profile, beside the repository's others and part of it (createMemoryRepo spreads them in).
 */
function createMemoryReviewQueries(
  db: Executor<MemoryTables>,
  groupCommit: Pick<GroupCommit, 'run'>,
  byIds: (ownerId: string, ids: readonly string[]) => Promise<MemoryRow[]>,
  keys: RestoredKeys,
) {
  return {
    /**
     * The chain `id` belongs to: the entries it replaced, theirs, and so on, and the ones that
     * replaced it, oldest first (at most HISTORY_MAX). Empty when the owner has no such entry.
     */
    async history(ownerId: string, id: string, scope?: MemoryScope): Promise<MemoryRow[]> {
      const seen = new Map<string, MemoryRow>();
      let next = [id];
      // A limited token follows the chain only through entries it sees: a link to a hidden one
      // leads nowhere, so nothing beyond it (nor that it exists) is read for it.
      const limited = scopeCondition(scope);
      while (next.length > 0 && seen.size < HISTORY_MAX) {
        // In parts (IDS_PER_READ), and no more once the chain is as long as answered.
        const rows: MemoryRow[] = [];
        for (let start = 0; start < next.length && seen.size + rows.length < HISTORY_MAX; start += IDS_PER_READ) {
          let q = db.selectFrom('memory_entries').select(COLUMNS).where('owner_id', '=', ownerId).where('id', 'in', next.slice(start, start + IDS_PER_READ));
          if (limited) q = q.where(limited);
          rows.push(...(await q.execute()));
        }
        for (const row of rows) seen.set(row.id, row);
        next = [...new Set(rows.flatMap((row) => [...supersedesOf(row), ...(row.superseded_by ? [row.superseded_by] : [])]))].filter((other) => !seen.has(other));
      }
      return [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, HISTORY_MAX);
    },

    /**
     * The owner's authors (token ids, null for entries stored before authors were), each with how
     * many entries it wrote and its newest entry's row (which names it), newest writer first, at
     * most `limit`. Read through the index on (owner_id, author_token_id, id) alone.
     */
    async authors(ownerId: string, limit: number): Promise<Array<{ count: number; newest: MemoryRow }>> {
      const groups = await db
        .selectFrom('memory_entries')
        .select((eb) => ['author_token_id', eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('newest')])
        .where('owner_id', '=', ownerId)
        .groupBy('author_token_id')
        .orderBy('newest', 'desc')
        .limit(limit)
        .execute();
      const rows = new Map((await byIds(ownerId, groups.map((group) => group.newest))).map((row) => [row.id, row]));
      return groups.flatMap((group) => {
        const newest = rows.get(group.newest);
        return newest ? [{ count: Number(group.n), newest }] : [];
      });
    },

    /**
     * What forgetting the entries `tokenId` wrote would do, or does (`write`): how many there are,
     * and how the chains they belong to are mended (see spliceChains). The count and the writes
     * are one unit of the group commit, so the entries counted are the entries deleted; `expect`
     * (a count the caller was shown) refuses the deletion, writing nothing, when it differs.
     */
    async forgetAuthor(
      ownerId: string,
      tokenId: string,
      options: { write: boolean; expect?: number | undefined; at: string; keyOf: (content: string) => string },
    ): Promise<{ count: number; restored: number; relinked: number; changed: boolean }> {
      const plan = (trx: Executor<MemoryTables>) => planForget(trx, ownerId, tokenId);
      const outcome = (count: number, changes: ChainChange[], changed: boolean) => ({
        count,
        restored: changes.filter((change) => change.restored).length,
        relinked: changes.length,
        changed,
      });
      if (!options.write) {
        const { count, changes } = await plan(db);
        return outcome(count, changes, false);
      }
      return groupCommit.run(async (trx: Executor<MemoryTables>) => {
        const { count, changes } = await plan(trx);
        if (options.expect !== undefined && options.expect !== count) return outcome(count, changes, false);
        const restored = changes.filter((change) => change.restored).map((change) => change.id);
        // Read before this unit writes (memory.keys.ts): the restored entries' keys are added to them.
        if (restored.length > 0) await keys.load(trx, ownerId);
        for (const change of changes) {
          await trx
            .updateTable('memory_entries')
            .set({ superseded_by: change.supersededBy, superseded_at: change.supersededAt, supersedes: JSON.stringify(change.supersedes), updated_at: options.at })
            .where('owner_id', '=', ownerId)
            .where('id', '=', change.id)
            .execute();
        }
        await trx.deleteFrom('memory_entries').where('owner_id', '=', ownerId).where('author_token_id', '=', tokenId).execute();
        // After the deletion: a forgotten entry that said the same no longer holds the text.
        await keys.restore(trx, ownerId, restored, options);
        return outcome(count, changes, true);
      });
    },

    /**
     * The owner's current pinned entries (the profile), in the owner's order: those placed by
     * it first, then the others oldest first. At most `limit`; through the partial index on
     * pinned entries, which are few.
     */
    async pinned(ownerId: string, limit: number, scope?: MemoryScope): Promise<MemoryRow[]> {
      let q = db.selectFrom('memory_entries').select(COLUMNS).where('owner_id', '=', ownerId).where('pinned', '=', 1).where('superseded_at', 'is', null);
      const limited = scopeCondition(scope);
      if (limited) q = q.where(limited);
      return q.orderBy(sql`pin_order IS NULL`).orderBy('pin_order').orderBy('id').limit(limit).execute();
    },

    /**
     * Sets the order of the owner's pinned entries in one unit: `ids` first, in that order, then
     * the pinned entries not named, in their order before. Answers the ids that are not pinned
     * entries of the owner (nothing written then). Every pinned entry is given its place, so two
     * orders set at once leave one whole order, the later one's, never a mix.
     */
    async setPinOrder(ownerId: string, ids: readonly string[]): Promise<{ missing: string[] }> {
      return groupCommit.run(async (trx: Executor<MemoryTables>) => {
        const rows = await trx
          .selectFrom('memory_entries')
          .select(['id'])
          .where('owner_id', '=', ownerId)
          .where('pinned', '=', 1)
          .orderBy(sql`pin_order IS NULL`)
          .orderBy('pin_order')
          .orderBy('id')
          .execute();
        const pinned = new Set(rows.map((row) => row.id));
        const missing = ids.filter((id) => !pinned.has(id));
        if (missing.length > 0) return { missing };
        const named = new Set(ids);
        const order = [...ids, ...rows.map((row) => row.id).filter((id) => !named.has(id))];
        for (const [position, id] of order.entries()) {
          // Not its updatedAt: the place is the profile's, the entry itself is unchanged.
          await trx.updateTable('memory_entries').set({ pin_order: position }).where('owner_id', '=', ownerId).where('id', '=', id).execute();
        }
        return { missing: [] };
      });
    },
  };
}

/** bm25's `b` for memory entries: measured on bench/recall and LoCoMo (docs/decisions/search.md). */
export const MEMORY_LENGTH_NORMALIZATION = 0.5;

/**
 * The entries' words as the in-memory index ranks them. Notes are short and of like length: a
 * longer one's words count less than FTS5's 0.75 would have them (docs/decisions/search.md,
 * "Length normalization per table").
 */
export function memoryFullText(dialect: Dialect): FullTextIndex {
  return { table: 'memory_entries', rowKey: dialect === 'sqlite' ? 'rid' : 'id', columns: [{ name: 'content', weight: 1 }], lengthNormalization: MEMORY_LENGTH_NORMALIZATION };
}

/** The in-memory words index of the entries, with their texts (SEARCH_PAYLOAD). */
function createEntriesIndex(db: Executor<MemoryTables>, dialect: Dialect, index: FullTextIndex, writes: WriteTracker | undefined, indexPercent: number) {
  const maxCost = (SEARCH_INDEX_MAX_COST * indexPercent) / 100;
  // The texts are bounded apart: an owner whose texts do not fit is still ranked in memory, its hits read.
  return createSearchIndex<string>({ db, dialect, index, writes, pageSize: 500, maxCost, payload: SEARCH_PAYLOAD, payloadMaxCost: maxCost });
}

/**
 * How the repository tells which of an owner's rows hold a text key: PostgreSQL's unique index,
 * or on SQLite the keys kept in the process (memory.keys.ts), with SQLite's INSERT that checks them.
 */
function createKeyChecks(dialect: Dialect, writes: WriteTracker) {
  /**
   * SQLite: the owners' text keys kept in the process instead of a unique index (memory.keys.ts);
   * PostgreSQL, written by several nodes, keeps the index. A unit that uses them loads the
   * owner's keys before any write of its own.
   */
  const textKeys = dialect === 'sqlite' ? createTextKeys() : undefined;

  /**
   * A write of the repository failed for a reason it did not answer itself: its transaction may
   * have been rolled back whole, giving keys back to rows after keys were read inside it, so none
   * kept is trusted any more (they are read again when next needed).
   */
  function distrustKeys(error: unknown): never {
    // Refused before any transaction (too many writes queued): nothing was read or rolled back,
    // and a flood of them must not make every owner's rows be read again.
    if (!(error instanceof WritesOverloadedError)) textKeys?.dropAll();
    throw error;
  }

  /**
   * The condition "the owner's rows holding `key`": through the unique index on PostgreSQL; on
   * SQLite among the rows the process knows may hold it, or null when none does (nothing to read).
   */
  async function holding(trx: Executor<MemoryTables>, ownerId: string, key: string) {
    const owned = sql<boolean>`owner_id = ${ownerId} AND content_key = ${key}`;
    if (!textKeys) return owned;
    const rids = (await textKeys.load(trx, ownerId)).candidates(key);
    if (rids.length === 0) return null;
    return sql<boolean>`rid IN (${sql.join(rids)}) AND ${owned}`;
  }

  /** SQLite: the rid of the entry `id` (which exists). */
  async function ridOf(trx: Executor<MemoryTables>, id: string): Promise<number> {
    const found = await trx.executeQuery<{ rid: number }>(CompiledQuery.raw('select "rid" from "memory_entries" where "id" = ?', [id]));
    return found.rows[0]!.rid;
  }

  /**
   * The rows among `suspects` whose text a row of their owner holds, read by the candidates' rids;
   * counts the candidates found no longer holding it.
   */
  async function heldAmong(
    trx: Executor<MemoryTables>,
    suspects: ReadonlyArray<{ row: MemoryEntriesTable; rids: readonly number[] }>,
    owners: ReadonlyMap<string, OwnerTextKeys>,
  ): Promise<MemoryEntriesTable[]> {
    const held: MemoryEntriesTable[] = [];
    const holders = new Map<number, string>();
    const rids = [...new Set(suspects.flatMap((suspect) => suspect.rids))];
    for (let start = 0; start < rids.length; start += RIDS_PER_READ) {
      const slice = rids.slice(start, start + RIDS_PER_READ);
      const found = await trx.executeQuery<{ rid: number; owner_id: string; content_key: string }>(
        CompiledQuery.raw(`select "rid", "owner_id", "content_key" from "memory_entries" where "rid" in (${slice.map(() => '?').join(', ')}) and "content_key" is not null`, slice),
      );
      for (const row of found.rows) holders.set(row.rid, `${row.owner_id}\u0000${row.content_key}`);
    }
    for (const { row, rids: candidates } of suspects) {
      const claim = `${row.owner_id}\u0000${row.content_key}`;
      const holding = candidates.filter((rid) => holders.get(rid) === claim).length;
      if (holding > 0) held.push(row);
      // Candidates that no longer hold the text: once many are, the owner's keys are read again.
      owners.get(row.owner_id)!.noteStale(candidates.length - holding);
    }
    return held;
  }

  /**
   * SQLite's INSERT of new entries, skipping (as ON CONFLICT DO NOTHING did with the unique index)
   * each row whose text key a row of its owner holds, or an earlier row of these: the owner's
   * kept keys say which rows may hold it, read by rid only when some may.
   */
  async function insertSqlite(rows: readonly MemoryEntriesTable[], trx: Executor<MemoryTables>, keys: TextKeys): Promise<Set<string>> {
    const inserted = new Set<string>();
    const owners = new Map<string, OwnerTextKeys>();
    for (const row of rows) {
      if (row.content_key !== null && !owners.has(row.owner_id)) owners.set(row.owner_id, await keys.load(trx, row.owner_id));
    }
    const claimed = new Set<string>();
    const skipped = new Set<MemoryEntriesTable>();
    const suspects: Array<{ row: MemoryEntriesTable; rids: readonly number[] }> = [];
    for (const row of rows) {
      if (row.content_key === null) continue;
      const claim = `${row.owner_id}\u0000${row.content_key}`;
      if (claimed.has(claim)) {
        skipped.add(row);
        continue;
      }
      claimed.add(claim);
      const rids = owners.get(row.owner_id)!.candidates(row.content_key);
      if (rids.length > 0) suspects.push({ row, rids });
    }
    if (suspects.length > 0) for (const row of await heldAmong(trx, suspects, owners)) skipped.add(row);
    const written = skipped.size === 0 ? rows : rows.filter((row) => !skipped.has(row));
    for (let start = 0; start < written.length; start += SQLITE_ROWS_PER_INSERT) {
      const slice = written.slice(start, start + SQLITE_ROWS_PER_INSERT);
      const parameters: unknown[] = [];
      for (const row of slice) for (const column of SQLITE_INSERTED_COLUMNS) parameters.push(row[column]);
      const result = await trx.executeQuery<{ id: string; rid: number }>(CompiledQuery.raw(sqliteInsertText(slice.length), parameters));
      // Kysely's write tracker sees only the queries it builds: this one is told here.
      writes.noteWrites(['memory_entries']);
      const byId = new Map(slice.map((row) => [row.id, row]));
      for (const { id, rid } of result.rows) {
        inserted.add(id);
        const row = byId.get(id)!;
        if (row.content_key !== null) owners.get(row.owner_id)!.add(row.content_key, rid);
      }
    }
    return inserted;
  }

  /**
   * Frees the owner's key `key` from an entry that no writer of that key may still be matched
   * with: one past its validUntil (no longer current: a new write of its text is new), and, for a
   * writer limited to `scope`, one outside it. A limited writer's key holds its scope
   * (scopedTextKey), so only writers limited to the same tags make it, and an entry that left
   * those tags (the owner changed its tags) is hidden from every one of them: its key is dead,
   * and keeping it would count their attempts on an entry they cannot see, or refuse them for it.
   * Dropping it changes nothing the entry answers (the key is never shown).
   */
  async function releaseStale(trx: Executor<MemoryTables>, ownerId: string, key: string, now: string, scope?: MemoryScope): Promise<void> {
    const holders = await holding(trx, ownerId, key);
    if (!holders) return;
    const limited = scopeCondition(scope);
    await trx
      .updateTable('memory_entries')
      .set({ content_key: null })
      .where(holders)
      .where((eb) => (limited ? eb.or([eb('valid_until', '<=', now), sql<boolean>`NOT ${limited}`]) : eb('valid_until', '<=', now)))
      .execute();
  }

  /**
   * Forgetting made the current entries `ids` current again (memory.md, "Forgetting everything
   * one agent wrote"): each is given its text's key back, as a write of it would have, unless
   * another current entry holds that text by now (then it is kept without one, as an entry brought
   * back by its window is). Superseding had cleared the key; without it, the same text written
   * again was stored twice instead of answered as a duplicate.
   */
  async function restoreKeys(
    trx: Executor<MemoryTables>,
    ownerId: string,
    ids: readonly string[],
    options: { at: string; keyOf: (content: string) => string },
  ): Promise<void> {
    if (ids.length === 0) return;
    // Kept for the unit already: the caller loaded them before its writes.
    const owned = textKeys ? await textKeys.load(trx, ownerId) : undefined;
    for (let start = 0; start < ids.length; start += IDS_PER_READ) {
      const rows = await trx
        .selectFrom('memory_entries')
        .select(['id', 'content'])
        .where('owner_id', '=', ownerId)
        .where('id', 'in', ids.slice(start, start + IDS_PER_READ))
        .where('superseded_at', 'is', null)
        .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', options.at)]))
        .execute();
      for (const row of rows) {
        const key = options.keyOf(row.content);
        await releaseStale(trx, ownerId, key, options.at);
        const holders = await holding(trx, ownerId, key);
        if (holders && (await trx.selectFrom('memory_entries').select('id').where(holders).executeTakeFirst())) continue;
        await trx.updateTable('memory_entries').set({ content_key: key }).where('owner_id', '=', ownerId).where('id', '=', row.id).execute();
        owned?.add(key, await ridOf(trx, row.id));
      }
    }
  }

  return { textKeys, distrustKeys, holding, ridOf, insertSqlite, releaseStale, restoreKeys };
}

/**
 * The memory entries. Writes share commits with concurrent ones (storage/group-commit.ts): the
 * repository decides how (creations of a batch in one statement where it can), and a write
 * answers once it is durable. `writes`: this process's writes, by which the index learns on
 * SQLite that an owner's entries changed (the database ranks none of them: without it, no
 * search could be current). `indexPercent`: the share of SEARCH_INDEX_MAX_COST kept (the
 * SEARCH_INDEX_PERCENT setting).
 */
export function createMemoryRepo(db: Executor<MemoryTables>, dialect: Dialect, groupCommit: Pick<GroupCommit, 'run' | 'runBatched'>, writes: WriteTracker, indexPercent = 100) {
  const index = memoryFullText(dialect);
  // The words are ranked here alone: the database keeps no full-text index of them (migration
  // 0043). An owner too large to keep is scanned with the same answers (index-cache.ts, scan.ts).
  const inMemory = createEntriesIndex(db, dialect, index, writes, indexPercent);

  /** `insertMany` writes any number of rows with one statement (PostgreSQL). */
  const insertsManyAtOnce = dialect === 'postgres';
  const { textKeys, distrustKeys, holding, ridOf, insertSqlite, releaseStale, restoreKeys } = createKeyChecks(dialect, writes);
  /**
   * Several new entries (a group commit's batch). On PostgreSQL with one statement, one round
   * trip (POSTGRES_INSERT: the same prepared statement whatever the number of rows). On SQLite
   * with multi-row INSERTs of at most SQLITE_ROWS_PER_INSERT rows: each statement Kysely builds
   * costs more than SQLite's own work for the row, and the cap bounds the distinct statements
   * the statement cache keeps.
   */
  async function insertMany(rows: readonly MemoryEntriesTable[], trx: Executor<MemoryTables>): Promise<Set<string>> {
    const inserted = new Set<string>();
    if (rows.length === 0) return inserted;
    // A row whose text a current entry of its owner holds (the unique content key) is skipped,
    // not an error: the batch's other rows are written, and the skipped ones settled after.
    if (textKeys) return insertSqlite(rows, trx, textKeys);
    const result = await trx.executeQuery(CompiledQuery.raw(POSTGRES_INSERT, [rowsJson(rows)]));
    // Nearly always every row is written, and the count says so: no id comes back to be read.
    // Otherwise the ids are read back (the ids are new: only this insert can have written them).
    // A row deleted in between (the owner clearing everything at that moment) reads as skipped
    // and is settled as one: written again, as if the write had come after the clearing.
    if (Number(result.numAffectedRows) === rows.length) {
      for (const row of rows) inserted.add(row.id);
      return inserted;
    }
    const written = await trx.executeQuery<{ id: string }>(CompiledQuery.raw(POSTGRES_WRITTEN, [rows.map((row) => row.id)]));
    for (const row of written.rows) inserted.add(row.id);
    return inserted;
  }

  /**
   * Counts `rows` (new entries of one owner and text, in order) as attempts on the owner's
   * current entry holding that text: its seen count grows by their number, the last one is
   * recorded as last seen. Answers that entry, or undefined when no current entry holds it (for
   * a writer limited to tags, none it sees: the rows of one text share one key, and so one scope).
   */
  async function markSeen(trx: Executor<MemoryTables>, rows: readonly Creation[], now: string): Promise<MemoryRow | undefined> {
    const last = rows[rows.length - 1]!;
    const holders = await holding(trx, last.row.owner_id, last.row.content_key!);
    if (!holders) return undefined;
    let q = trx
      .updateTable('memory_entries')
      .set({ seen_count: sql<number>`seen_count + ${rows.length}`, last_seen_at: last.row.created_at, last_seen_by: last.seenBy })
      .where(holders)
      .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]));
    // A hidden holder is never counted on, nor answered: it gives its key up instead (releaseStale).
    const limited = scopeCondition(last.scope);
    if (limited) q = q.where(limited);
    return q.returning(COLUMNS).executeTakeFirst();
  }


  /**
   * The new entries of a batch that the insert skipped, grouped by owner and text: each group is
   * counted as attempts on the current entry holding its text. When none does (it expired, or a
   * concurrent write superseded or deleted it since), the key is freed and the group's first
   * entry written, the others counted on it.
   */
  async function settle(trx: Executor<MemoryTables>, skipped: readonly Creation[], outcomes: Map<Creation, CreationOutcome<unknown>>): Promise<void> {
    const groups = new Map<string, Creation[]>();
    for (const item of skipped) {
      const k = `${item.row.owner_id}\u0000${item.row.content_key}`;
      groups.set(k, [...(groups.get(k) ?? []), item]);
    }
    const now = new Date().toISOString();
    for (let group of groups.values()) {
      for (let attempt = 0; group.length > 0; attempt++) {
        const held = await markSeen(trx, group, now);
        if (held) {
          for (const item of group) outcomes.set(item, { duplicateOf: held });
          break;
        }
        if (attempt === SETTLE_ATTEMPTS) throw new Error(`Could not settle a memory entry's text after ${SETTLE_ATTEMPTS} attempts: writes of it keep racing`);
        await releaseStale(trx, group[0]!.row.owner_id, group[0]!.row.content_key!, now, group[0]!.scope);
        if ((await insertMany([group[0]!.row], trx)).size === 1) group = group.slice(1);
      }
    }
  }

  async function count(ownerId: string, trx: Executor<MemoryTables> = db, scope?: MemoryScope): Promise<number> {
    let q = trx
      .selectFrom('memory_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId);
    const limited = scopeCondition(scope);
    if (limited) q = q.where(limited);
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** How many entries each of these owners stores (owners with none are missing from the answer). */
  async function countByOwner(ownerIds: readonly string[], trx: Executor<MemoryTables>): Promise<Map<string, number>> {
    if (ownerIds.length === 1) return new Map([[ownerIds[0]!, await count(ownerIds[0]!, trx)]]);
    // PostgreSQL: one array parameter keeps one SQL text (one prepared statement) for any number of owners.
    const rows = await trx
      .selectFrom('memory_entries')
      .select((eb) => ['owner_id', eb.fn.countAll<number>().as('n')])
      .where(dialect === 'postgres' ? sql<boolean>`owner_id = ANY(${[...ownerIds]}::text[])` : (eb) => eb('owner_id', 'in', ownerIds))
      .groupBy('owner_id')
      .execute();
    return new Map(rows.map((row) => [row.owner_id, Number(row.n)]));
  }

  /**
   * The creations of a batch: one count per limited owner, then one insert for all of them.
   * The items are judged one after another, each counting the ones accepted before it, so a
   * batch of creations cannot pass the plan's limit together. Answers each one's refusal.
   */
  const creations: BatchedWork<Creation, CreationOutcome<unknown>> = {
    async run(trx, items) {
      const limited = new Set(items.filter((item) => item.limit).map((item) => item.row.owner_id));
      const counts = limited.size > 0 ? await countByOwner([...limited], trx) : new Map<string, number>();
      const accepted: Creation[] = [];
      const outcomes = new Map<Creation, CreationOutcome<unknown>>();
      for (const item of items) {
        const { row, limit } = item;
        const refusal = limit?.(counts.get(row.owner_id) ?? 0, 1);
        if (refusal !== undefined) {
          outcomes.set(item, { refusal });
          continue;
        }
        accepted.push(item);
        if (limited.has(row.owner_id)) counts.set(row.owner_id, (counts.get(row.owner_id) ?? 0) + 1);
      }
      const inserted = await insertMany(
        accepted.map((item) => item.row),
        trx,
      );
      const skipped = accepted.filter((item) => !inserted.has(item.row.id));
      if (skipped.length > 0) await settle(trx, skipped, outcomes);
      return items.map((item) => outcomes.get(item));
    },
    // Without a limit to count, the creations are one INSERT where the repository writes them so.
    // Duplicates found by it are settled by statements of their own, each whole by itself: an
    // attempt counted, or a key freed from an expired entry and the row written again.
    oneStatement: (items) => insertsManyAtOnce && items.every((item) => !item.limit),
  };

  /**
   * The ids of the owner's best `limit` entries for `q` (any or every word), best first, with
   * their bm25 scores (higher is better), and their kept text where the index holds it. The
   * index answers undefined only for a query word of more than one token, which `searchTerms`
   * never makes; such a word would match no word of an entry.
   */
  async function rank(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<RankedEntry[]> {
    const indexed = (await inMemory.search(ownerId, { q, limit, mode })) ?? [];
    return indexed.map((hit) => (hit.row ? { id: hit.id, rank: hit.rank, entry: hit.row as IndexedEntry } : hit));
  }

  /** The owner's entries of these ids, in the order given; ids of no entry of the owner's are left out. */
  async function byIds(ownerId: string, ids: readonly string[], scope?: MemoryScope): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const limited = scopeCondition(scope);
    const byId = new Map<string, MemoryRow>();
    // One statement for the usual few; a long list (IDS_PER_READ) in parts.
    for (let start = 0; start < ids.length; start += IDS_PER_READ) {
      let q = db.selectFrom('memory_entries').select(COLUMNS).where('owner_id', '=', ownerId).where('id', 'in', ids.slice(start, start + IDS_PER_READ));
      if (limited) q = q.where(limited);
      for (const row of await q.execute()) byId.set(row.id, row);
    }
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  return {
    /**
     * A new entry, committed with the creations of concurrent requests. With `limit`, the owner's
     * entries are counted in the writing transaction (with the batch's earlier creations), and a
     * refusal it gives is answered instead of writing.
     */
    async create<R>(row: MemoryEntriesTable, seenBy: string, limit?: EntryLimit<R>, scope?: MemoryScope): Promise<CreationOutcome<R>> {
      return (await groupCommit.runBatched(creations, { row, limit, seenBy, scope }).catch(distrustKeys)) as CreationOutcome<R>;
    },

    /**
     * Counts an attempt to store the owner's current entry `id` again (found near in meaning):
     * answers the entry, or undefined when it is no longer a current entry of the owner.
     */
    async recordSeen(ownerId: string, id: string, at: string, seenBy: string): Promise<MemoryRow | undefined> {
      return groupCommit.run((trx: Executor<MemoryTables>) =>
        trx
          .updateTable('memory_entries')
          .set({ seen_count: sql<number>`seen_count + 1`, last_seen_at: at, last_seen_by: seenBy })
          .where('owner_id', '=', ownerId)
          .where('id', '=', id)
          .where('superseded_at', 'is', null)
          .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', at)]))
          .returning(COLUMNS)
          .executeTakeFirst(),
      );
    },

    /** Newest first (ids are ULIDs); `cursor` is the last id of the previous page. */
    async list(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined; filter?: MemoryFilter | undefined; view?: MemoryView | undefined; scope?: MemoryScope | undefined },
    ): Promise<MemoryRow[]> {
      let q = db.selectFrom('memory_entries').select(COLUMNS).where('owner_id', '=', ownerId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      const limited = scopeCondition(query.scope);
      if (limited) q = q.where(limited);
      const view = query.view ?? { view: 'history' };
      if (view.view === 'current') q = q.where('superseded_at', 'is', null);
      else if (view.view === 'asOf') {
        const at = view.at;
        q = q
          .where('created_at', '<=', at)
          .where((eb) => eb.or([eb('superseded_at', 'is', null), eb('superseded_at', '>', at)]))
          .where((eb) => eb.or([eb('valid_from', 'is', null), eb('valid_from', '<=', at)]))
          .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', at)]));
      }
      const filter = query.filter;
      if (filter) {
        if (filter.author !== undefined) q = q.where('author_token_id', '=', filter.author);
        if (filter.channel !== undefined) q = q.where('channel', '=', filter.channel);
        if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
        if (filter.pinned !== undefined) q = q.where('pinned', '=', filter.pinned ? 1 : 0);
        // Tags are a JSON array of normalized words; the owner's own entries bound what is read.
        if (filter.tag !== undefined) q = q.where(sql<boolean>`tags LIKE ${tagPattern(filter.tag)} ESCAPE '\\'`);
      }
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /** The owner's entries matching `q` (any or every word), best first. */
    async search(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<MemoryRow[]> {
      return byIds(ownerId, (await rank(ownerId, q, limit, mode)).map((hit) => hit.id));
    },

    rank,
    byIds,

    /** Changes an entry, committed with concurrent writes; undefined when the owner has no such entry. */
    async update(
      ownerId: string,
      id: string,
      changes: Partial<Pick<MemoryEntriesTable, 'content' | 'kind' | 'tags' | 'pinned' | 'valid_from' | 'valid_until' | 'source' | 'pin_order' | 'content_key'>> &
        Pick<MemoryEntriesTable, 'updated_at' | 'editor'>,
      /** Judges the changed row before the change commits: an error it answers is thrown, and the change undone. */
      check?: (row: MemoryRow) => Error | undefined,
      scope?: MemoryScope,
    ): Promise<MemoryRow | { sameTextAs: string } | undefined> {
      let refused: Error | undefined;
      return groupCommit
        .run(async (trx) => {
          const { content_key: key, ...rest } = changes;
          let set: typeof changes | (typeof rest & { content_key: ReturnType<typeof sql<string | null>> }) = rest;
          // Read before this unit writes (memory.keys.ts): the changed row's key is added to them.
          const keys = key && textKeys ? await textKeys.load(trx, ownerId) : undefined;
          if (key !== undefined && key !== null) {
            // New content: another current entry of the owner holding the same text refuses the
            // change (an expired one gives its key up, and so does, for a limited writer, one
            // outside its tags: never named to it). A superseded entry, not current, holds no key.
            await releaseStale(trx, ownerId, key, changes.updated_at, scope);
            const holders = await holding(trx, ownerId, key);
            const holder = holders && (await trx.selectFrom('memory_entries').select('id').where(holders).where('id', '<>', id).executeTakeFirst());
            if (holder) return { sameTextAs: holder.id };
            set = { ...rest, content_key: sql<string | null>`CASE WHEN superseded_at IS NULL THEN ${key} ELSE NULL END` };
          }
          let q = trx.updateTable('memory_entries').set(set).where('owner_id', '=', ownerId).where('id', '=', id);
          const limited = scopeCondition(scope);
          if (limited) q = q.where(limited);
          const row = await q.returning(COLUMNS).executeTakeFirst();
          refused = row && check?.(row);
          if (refused) throw refused;
          if (keys && key && row && row.superseded_at === null) keys.add(key, await ridOf(trx, id));
          return row;
        })
        .catch((error: unknown) => (error === refused ? Promise.reject(error) : distrustKeys(error)));
    },

    /**
     * Many new entries of one owner, all or none, in one unit of the group commit (an import):
     * the owner's entries counted for `limit` with all of them added, then inserted in statements
     * of bounded size. Answers the limit's refusal (nothing written then).
     */
    async createAll<R>(ownerId: string, rows: readonly MemoryEntriesTable[], limit?: EntryLimit<R>): Promise<{ refusal?: R }> {
      return groupCommit
        .run(async (trx: Executor<MemoryTables>) => {
          const refusal = limit?.(await count(ownerId, trx), rows.length);
          if (refusal !== undefined) return { refusal };
          for (let start = 0; start < rows.length; start += IMPORT_ROWS_PER_STATEMENT) {
            await insertMany(rows.slice(start, start + IMPORT_ROWS_PER_STATEMENT), trx);
          }
          return {};
        })
        .catch(distrustKeys);
    },

    /**
     * A new entry that replaces `replaced` (ids of the owner's current entries), in one unit of
     * the group commit: the insert, then each replaced entry marked superseded by it. Answers the
     * limit's refusal, or the ids that are not current entries of the owner (nothing written then).
     */
    async createSuperseding<R>(
      row: MemoryEntriesTable,
      replaced: readonly string[],
      seenBy: string,
      limit?: EntryLimit<R>,
      scope?: MemoryScope,
    ): Promise<{ refusal?: R; missing?: string[]; duplicateOf?: MemoryRow }> {
      const outcome = await groupCommit.run(async (trx: Executor<MemoryTables>) => {
        // Read before this unit clears the replaced entries' keys (memory.keys.ts).
        await textKeys?.load(trx, row.owner_id);
        const refusal = limit?.(await count(row.owner_id, trx), 1);
        if (refusal !== undefined) return { refusal };
        // A replaced entry is no longer current: it gives its text's key up (to this entry, when it says the same).
        let marking = trx
          .updateTable('memory_entries')
          .set({ superseded_by: row.id, superseded_at: row.created_at, updated_at: row.created_at, content_key: null })
          .where('owner_id', '=', row.owner_id)
          .where('id', 'in', replaced)
          .where('superseded_at', 'is', null);
        // A limited token supersedes only entries it sees: any other id is missing, as unknown ones are.
        const limited = scopeCondition(scope);
        if (limited) marking = marking.where(limited);
        const marked = await marking.returning('id').execute();
        if (marked.length !== replaced.length) {
          const found = new Set(marked.map((m) => m.id));
          // Thrown, so that the unit's marks are undone; answered as the ids that were missing.
          throw new MissingEntries(replaced.filter((id) => !found.has(id)));
        }
        await releaseStale(trx, row.owner_id, row.content_key!, row.created_at, scope);
        // Another current entry says the same: thrown, so that the marks are undone.
        if ((await insertMany([row], trx)).size === 0) throw new DuplicateText();
        return {};
      }).catch((error: unknown): { missing?: string[]; duplicate?: true } => {
        if (error instanceof MissingEntries) return { missing: error.ids };
        if (error instanceof DuplicateText) return { duplicate: true };
        return distrustKeys(error);
      });
      if (!('duplicate' in outcome)) return outcome;
      // Nothing was replaced: the attempt counts on the entry that already says it.
      const held = await groupCommit.run((trx: Executor<MemoryTables>) => markSeen(trx, [{ row, seenBy, limit: undefined, scope }], row.created_at)).catch(distrustKeys);
      // Superseded or deleted meanwhile, the text is free again: written as asked.
      return held ? { duplicateOf: held } : this.createSuperseding(row, replaced, seenBy, limit, scope);
    },

    /**
     * Marks the owner's entry `id` superseded by its entry `by` (which lists it among the ones it
     * replaced), both current: the newer one's `supersedes` gains the id. Answers the marked row,
     * or which of the two is not a current entry of the owner, or `full` when the newer one
     * already lists SUPERSEDES_MAX (nothing written then).
     */
    async supersede(ownerId: string, id: string, by: string, at: string, scope?: MemoryScope): Promise<MemoryRow | { missing: string } | { full: true }> {
      const limited = scopeCondition(scope);
      return groupCommit.run(async (trx: Executor<MemoryTables>) => {
        let finding = trx
          .selectFrom('memory_entries')
          .select(['supersedes'])
          .where('owner_id', '=', ownerId)
          .where('id', '=', by)
          .where('superseded_at', 'is', null);
        if (limited) finding = finding.where(limited);
        const newer = await finding.executeTakeFirst();
        if (!newer) return { missing: by };
        // As many as a creation may name (SUPERSEDES_MAX): unbounded, the list (rewritten whole by
        // each mark) grew to a megabyte, and reading its ids failed. Checked before anything is marked.
        const listed = supersedesOf(newer);
        if (listed.length >= SUPERSEDES_MAX && !listed.includes(id)) return { full: true };
        let marking = trx
          .updateTable('memory_entries')
          .set({ superseded_by: by, superseded_at: at, updated_at: at, content_key: null })
          .where('owner_id', '=', ownerId)
          .where('id', '=', id)
          .where('superseded_at', 'is', null);
        if (limited) marking = marking.where(limited);
        const marked = await marking.returning(COLUMNS).executeTakeFirst();
        if (!marked) return { missing: id };
        const list = [...new Set([...supersedesOf(newer), id])];
        await trx.updateTable('memory_entries').set({ supersedes: JSON.stringify(list), updated_at: at }).where('owner_id', '=', ownerId).where('id', '=', by).execute();
        return marked;
      });
    },

    /** Deletes an entry, committed with concurrent writes; false when the owner has no such entry. */
    async delete(ownerId: string, id: string, scope?: MemoryScope): Promise<boolean> {
      const limited = scopeCondition(scope);
      const result = await groupCommit.run((trx) => {
        let q = trx.deleteFrom('memory_entries').where('owner_id', '=', ownerId).where('id', '=', id);
        if (limited) q = q.where(limited);
        return q.executeTakeFirst();
      });
      return Number(result.numDeletedRows) > 0;
    },

    // Who wrote, forgetting one writer, and the pinned profile's order: the owner's review.
    ...createMemoryReviewQueries(db, groupCommit, byIds, { load: async (trx, ownerId) => textKeys?.load(trx, ownerId), restore: restoreKeys }),

    /** Deletes every entry of the owner, or, for a limited token, every entry it sees. */
    async clear(ownerId: string, scope?: MemoryScope): Promise<number> {
      let q = db.deleteFrom('memory_entries').where('owner_id', '=', ownerId);
      const limited = scopeCondition(scope);
      if (limited) q = q.where(limited);
      const result = await q.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async count(ownerId: string, scope?: MemoryScope): Promise<number> {
      return count(ownerId, db, scope);
    },

    /** The owner's entries were written by another module (an account import): its kept text keys are read again when next needed. */
    writtenElsewhere(ownerId: string): void {
      textKeys?.drop(ownerId);
    },
  };
}

export type MemoryRepo = ReturnType<typeof createMemoryRepo>;
