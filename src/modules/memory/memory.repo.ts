import { sql } from 'kysely';
import { searchRanked, type MatchMode, type RankedHit } from '../../storage/search/full-text.js';
import type { Dialect } from '../../storage/dialect.js';
import type { BatchedWork, GroupCommit } from '../../storage/group-commit.js';
import { createSearchIndex } from '../../storage/search/index-cache.js';
import type { Executor } from '../../storage/columns.js';
import type { MemoryEntriesTable, MemoryTables } from './memory.tables.js';
import type { WriteTracker } from '../../storage/write-tracker.js';

// Named, never selectAll: the table also holds SQLite's `rid` or PostgreSQL's `search_vector`.
const COLUMNS = ['id', 'content', 'created_at', 'updated_at'] as const;

/** The shared database, or the transaction of a group commit (storage/group-commit.ts). */

/**
 * A limit on how many entries an owner keeps: given the owner's count and the entries being
 * added, a refusal, or undefined to go ahead (the plan's check, see billing.limits.ts).
 */
export type EntryLimit<R> = (count: number, adding: number) => R | undefined;

interface Creation {
  row: MemoryEntriesTable;
  limit: EntryLimit<unknown> | undefined;
}

export type MemoryRow = Pick<MemoryEntriesTable, (typeof COLUMNS)[number]>;

/** Postings plus words the in-memory search index holds over all owners (a few MB at most). */
const SEARCH_INDEX_MAX_COST = 500_000;

/** Rows in one SQLite INSERT of a batch: at most this many statement texts, 5 parameters a row. */
const SQLITE_ROWS_PER_INSERT = 32;

/**
 * The memory entries. Writes share commits with concurrent ones (storage/group-commit.ts): the
 * repository decides how (creations of a batch in one statement where it can), and a write
 * answers once it is durable. `indexPercent`: the share of SEARCH_INDEX_MAX_COST kept (the
 * SEARCH_INDEX_PERCENT setting).
 */
export function createMemoryRepo(db: Executor<MemoryTables>, dialect: Dialect, groupCommit: Pick<GroupCommit, 'run' | 'runBatched'>, writes?: WriteTracker, indexPercent = 100) {
  const index = { table: 'memory_entries', rowKey: dialect === 'sqlite' ? 'rid' : 'id', columns: [{ name: 'content', weight: 1 }] };
  // Without a write tracker SQLite has no way to see writes, so the database ranks instead.
  const inMemory =
    dialect === 'postgres' || writes
      ? createSearchIndex<string>({ db, dialect, index, writes, pageSize: 500, maxCost: (SEARCH_INDEX_MAX_COST * indexPercent) / 100 })
      : undefined;

  /** `insertMany` writes any number of rows with one statement (PostgreSQL). */
  const insertsManyAtOnce = dialect === 'postgres';

  /**
   * Several new entries (a group commit's batch). On PostgreSQL with one statement, one round
   * trip: the columns go as arrays and are unnested, so the SQL text, and with it the prepared
   * statement, is the same whatever the number of rows. On SQLite with multi-row INSERTs of at
   * most SQLITE_ROWS_PER_INSERT rows: each statement Kysely builds costs more than SQLite's own
   * work for the row, and the cap bounds the distinct statements the statement cache keeps.
   */
  async function insertMany(rows: readonly MemoryEntriesTable[], trx: Executor<MemoryTables>): Promise<void> {
    if (rows.length === 0) return;
    if (dialect === 'sqlite' || rows.length === 1) {
      for (let start = 0; start < rows.length; start += SQLITE_ROWS_PER_INSERT) {
        await trx.insertInto('memory_entries').values(rows.slice(start, start + SQLITE_ROWS_PER_INSERT)).execute();
      }
      return;
    }
    const column = (name: keyof MemoryEntriesTable) => rows.map((row) => row[name]);
    await trx
      .insertInto('memory_entries')
      .columns(['id', 'owner_id', 'content', 'created_at', 'updated_at'])
      .expression(
        sql`SELECT * FROM unnest(${column('id')}::text[], ${column('owner_id')}::text[], ${column('content')}::text[], ${column('created_at')}::text[], ${column('updated_at')}::text[])`,
      )
      .execute();
  }

  async function count(ownerId: string, trx: Executor<MemoryTables> = db): Promise<number> {
    const row = await trx
      .selectFrom('memory_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId)
      .executeTakeFirstOrThrow();
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
  const creations: BatchedWork<Creation, unknown> = {
    async run(trx, items) {
      const limited = new Set(items.filter((item) => item.limit).map((item) => item.row.owner_id));
      const counts = limited.size > 0 ? await countByOwner([...limited], trx) : new Map<string, number>();
      const accepted: MemoryEntriesTable[] = [];
      const refusals = items.map(({ row, limit }) => {
        const refusal = limit?.(counts.get(row.owner_id) ?? 0, 1);
        if (refusal !== undefined) return refusal;
        accepted.push(row);
        if (limited.has(row.owner_id)) counts.set(row.owner_id, (counts.get(row.owner_id) ?? 0) + 1);
        return undefined;
      });
      await insertMany(accepted, trx);
      return refusals;
    },
    // Without a limit to count, the creations are one INSERT where the repository writes them so.
    oneStatement: (items) => insertsManyAtOnce && items.every((item) => !item.limit),
  };

  /** The ids of the owner's entries matching `q` (any or every word), best first, with their bm25 scores (higher is better). */
  async function rank(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<Array<RankedHit<string>>> {
    return (await inMemory?.search(ownerId, { q, limit, mode })) ?? (await searchRanked<string>(db, dialect, index, { ownerId, q, limit, mode }));
  }

  /** The owner's entries of these ids, in the order given; ids of no entry of the owner's are left out. */
  async function byIds(ownerId: string, ids: readonly string[]): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('memory_entries')
      .select(COLUMNS)
      .where('owner_id', '=', ownerId)
      .where('id', 'in', [...ids])
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  return {
    /**
     * A new entry, committed with the creations of concurrent requests. With `limit`, the owner's
     * entries are counted in the writing transaction (with the batch's earlier creations), and a
     * refusal it gives is answered instead of writing.
     */
    async create<R>(row: MemoryEntriesTable, limit?: EntryLimit<R>): Promise<R | undefined> {
      return (await groupCommit.runBatched(creations, { row, limit })) as R | undefined;
    },

    /** Newest first (ids are ULIDs); `cursor` is the last id of the previous page. */
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined }): Promise<MemoryRow[]> {
      let q = db.selectFrom('memory_entries').select(COLUMNS).where('owner_id', '=', ownerId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /** The owner's entries matching `q` (any or every word), best first. */
    async search(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<MemoryRow[]> {
      return byIds(ownerId, (await rank(ownerId, q, limit, mode)).map((hit) => hit.id));
    },

    rank,
    byIds,

    /** Changes an entry, committed with concurrent writes; undefined when the owner has no such entry. */
    async update(ownerId: string, id: string, changes: Pick<MemoryEntriesTable, 'content' | 'updated_at'>): Promise<MemoryRow | undefined> {
      return groupCommit.run((trx) =>
        trx.updateTable('memory_entries').set(changes).where('owner_id', '=', ownerId).where('id', '=', id).returning(COLUMNS).executeTakeFirst(),
      );
    },

    /** Deletes an entry, committed with concurrent writes; false when the owner has no such entry. */
    async delete(ownerId: string, id: string): Promise<boolean> {
      const result = await groupCommit.run((trx) => trx.deleteFrom('memory_entries').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },

    async clear(ownerId: string): Promise<number> {
      const result = await db.deleteFrom('memory_entries').where('owner_id', '=', ownerId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async count(ownerId: string): Promise<number> {
      return count(ownerId);
    },
  };
}

export type MemoryRepo = ReturnType<typeof createMemoryRepo>;
