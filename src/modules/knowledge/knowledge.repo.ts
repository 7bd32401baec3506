import { sql, type Kysely, type Transaction } from 'kysely';
import { searchRanked, type FullTextIndex, type MatchMode, type RankedHit } from '../../storage/full-text.js';
import type { Dialect } from '../../storage/dialect.js';
import type { GroupCommit } from '../../storage/group-commit.js';
import { createSearchIndex } from '../../storage/search-index.js';
import type { Database, KbDocumentsTable } from '../../storage/tables.js';
import type { WriteTracker } from '../../storage/write-tracker.js';

/** The full-text index migration 0003 declared on kb_documents; a title word weighs four times a content word. */
function kbIndex(dialect: Dialect): FullTextIndex {
  return {
    table: 'kb_documents',
    rowKey: dialect === 'sqlite' ? 'rid' : 'id',
    columns: [
      { name: 'title', weight: 4 },
      { name: 'content', weight: 1 },
    ],
  };
}

// Named columns only: the table also holds SQLite's `rid` and PostgreSQL's `search_vector`.
const DOCUMENT_COLUMNS = ['id', 'title', 'content', 'source', 'mime_type', 'size_bytes', 'created_at', 'updated_at'] as const;
const SUMMARY_COLUMNS = ['id', 'title', 'source', 'mime_type', 'size_bytes', 'created_at', 'updated_at'] as const;

export type KbDocumentRow = Pick<KbDocumentsTable, (typeof DOCUMENT_COLUMNS)[number]>;
/** A document without its content, with the start of it (`head`) for an excerpt. */
export type KbSummaryRow = Pick<KbDocumentsTable, (typeof SUMMARY_COLUMNS)[number]> & { head: string };
export type KbChanges = Partial<Pick<KbDocumentsTable, 'title' | 'content' | 'source' | 'mime_type' | 'size_bytes' | 'updated_at'>>;

/** The shared database, or the transaction of a group commit (storage/group-commit.ts). */
type Db = Kysely<Database> | Transaction<Database>;

/**
 * Postings plus words the in-memory search index holds over all owners (some 15 MB at most);
 * beyond it, say with many large documents, the database ranks.
 */
const SEARCH_INDEX_MAX_COST = 1_000_000;

/**
 * A limit on the bytes an owner stores (the plan's knowledgeBytes check, see billing.limits.ts):
 * given the stored total and the bytes a write adds, a refusal, or undefined to go ahead.
 */
export type BytesLimit<R> = (total: number, adding: number) => R | undefined;

/** One try of an upsert: the row it inserts if the title is free, the changes it makes otherwise (ids and times made by the caller, since a unit may run twice). */
export interface UpsertAttempt {
  row: KbDocumentsTable;
  changes: KbChanges;
}

/**
 * The knowledge-base documents. Writes share commits with concurrent ones
 * (storage/group-commit.ts), the plan's limit measured in the writing transaction, so a batch
 * cannot pass it together; a write answers once it is durable.
 */
export function createKnowledgeRepo(db: Kysely<Database>, dialect: Dialect, groupCommit: Pick<GroupCommit, 'run'>, writes?: WriteTracker) {
  const index = kbIndex(dialect);
  // Pages of a few rows: documents hold up to 10 MiB of text each.
  const inMemory =
    dialect === 'postgres' || writes
      ? createSearchIndex<string>({ db, dialect, index, writes, pageSize: 4, maxCost: SEARCH_INDEX_MAX_COST })
      : undefined;
  // Lists show an excerpt: read only the start of each document, never whole 10 MiB texts.
  const head = (chars: number) => sql<string>`substr(content, 1, ${chars})`.as('head');

  /**
   * The total the owner stores and, when the write replaces a document, that document's size:
   * what a plan's knowledgeBytes limit is checked against. Read from the (owner_id, id,
   * size_bytes) index of migration 0012, not from the rows and their text.
   */
  async function storedBytes(ownerId: string, one?: { id: string } | { title: string }, trx: Db = db): Promise<{ total: number; existing: number | undefined }> {
    const totalRow = await trx
      .selectFrom('kb_documents')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), eb.lit(0)).as('total'))
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    let existing: number | undefined;
    if (one) {
      let q = trx.selectFrom('kb_documents').select('size_bytes').where('owner_id', '=', ownerId);
      q = 'id' in one ? q.where('id', '=', one.id) : q.where('title', '=', one.title);
      const row = await q.executeTakeFirst();
      existing = row ? Number(row.size_bytes) : undefined;
    }
    return { total: Number(totalRow?.total ?? 0), existing };
  }

  /**
   * The limit's refusal of a write of `size` bytes: the stored total after the write, measured
   * through the write's own transaction. `replacing` is the document the write replaces (its
   * old size leaves); a write that does not grow the total is always allowed.
   */
  async function refused<R>(limit: BytesLimit<R> | undefined, trx: Db, ownerId: string, size: number, replacing?: { id: string } | { title: string }): Promise<R | undefined> {
    if (!limit) return undefined;
    const stored = await storedBytes(ownerId, replacing, trx);
    // No such document: the update itself answers 404, not the limit.
    if (replacing && 'id' in replacing && stored.existing === undefined) return limit(stored.total, 0);
    return limit(stored.total, size - (stored.existing ?? 0));
  }

  /** Inserts unless the owner has a document with this title; true when inserted. */
  async function insertIfTitleFree(row: KbDocumentsTable, trx: Db): Promise<boolean> {
    const result = await trx
      .insertInto('kb_documents')
      .values(row)
      .onConflict((oc) => oc.columns(['owner_id', 'title']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  return {
    /** A new document, committed with concurrent writes; the limit's refusal instead when it refuses. */
    async create<R>(row: KbDocumentsTable, limit?: BytesLimit<R>): Promise<R | undefined> {
      return groupCommit.run(async (trx) => {
        const refusal = await refused(limit, trx, row.owner_id, row.size_bytes);
        if (refusal === undefined) await trx.insertInto('kb_documents').values(row).execute();
        return refusal;
      });
    },

    /**
     * Creates the document, or changes the owner's document of that title, in one unit: INSERT …
     * ON CONFLICT DO NOTHING, then UPDATE by title when the title was taken, once per attempt (a
     * document deleted between the two statements takes another). Answers what was done, the
     * limit's refusal, or undefined when every attempt lost its race.
     */
    async upsert<R>(
      ownerId: string,
      title: string,
      size: number,
      attempts: readonly UpsertAttempt[],
      limit?: BytesLimit<R>,
    ): Promise<{ refused: R } | { action: 'created' | 'updated'; id: string } | undefined> {
      return groupCommit.run(async (trx) => {
        const refusal = await refused(limit, trx, ownerId, size, { title });
        if (refusal !== undefined) return { refused: refusal };
        for (const { row, changes } of attempts) {
          if (await insertIfTitleFree(row, trx)) return { action: 'created' as const, id: row.id };
          const updated = await trx.updateTable('kb_documents').set(changes).where('owner_id', '=', ownerId).where('title', '=', title).returning('id').executeTakeFirst();
          if (updated) return { action: 'updated' as const, id: updated.id };
        }
        return undefined;
      });
    },

    async get(ownerId: string, id: string): Promise<KbDocumentRow | undefined> {
      return db.selectFrom('kb_documents').select(DOCUMENT_COLUMNS).where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async idByTitle(ownerId: string, title: string): Promise<string | undefined> {
      const row = await db.selectFrom('kb_documents').select('id').where('owner_id', '=', ownerId).where('title', '=', title).executeTakeFirst();
      return row?.id;
    },

    /** Changes a document, committed with concurrent writes: the row after, the limit's refusal, or undefined when the owner has no such document. */
    async update<R>(ownerId: string, id: string, changes: KbChanges, limit?: BytesLimit<R>): Promise<{ refused: R } | KbDocumentRow | undefined> {
      return groupCommit.run(async (trx) => {
        const refusal = await refused(limit, trx, ownerId, changes.size_bytes ?? 0, { id });
        if (refusal !== undefined) return { refused: refusal };
        return trx.updateTable('kb_documents').set(changes).where('owner_id', '=', ownerId).where('id', '=', id).returning(DOCUMENT_COLUMNS).executeTakeFirst();
      });
    },

    /** Deletes a document (its links cascade), committed with concurrent writes; false when the owner has no such document. */
    async delete(ownerId: string, id: string): Promise<boolean> {
      const result = await groupCommit.run((trx) => trx.deleteFrom('kb_documents').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },

    /** Newest first; ids are ULIDs, so the cursor is the last id seen. */
    async list(ownerId: string, options: { limit: number; cursor?: string | undefined; headChars: number }): Promise<KbSummaryRow[]> {
      let query = db.selectFrom('kb_documents').select([...SUMMARY_COLUMNS, head(options.headChars)]).where('owner_id', '=', ownerId);
      if (options.cursor) query = query.where('id', '<', options.cursor);
      return query.orderBy('id', 'desc').limit(options.limit).execute();
    },

    async summariesByIds(ownerId: string, ids: string[], headChars: number): Promise<KbSummaryRow[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('kb_documents')
        .select([...SUMMARY_COLUMNS, head(headChars)])
        .where('owner_id', '=', ownerId)
        .where('id', 'in', ids)
        .execute();
    },

    async documentsByIds(ownerId: string, ids: string[]): Promise<Array<Pick<KbDocumentRow, 'id' | 'title' | 'content'>>> {
      if (ids.length === 0) return [];
      return db.selectFrom('kb_documents').select(['id', 'title', 'content']).where('owner_id', '=', ownerId).where('id', 'in', ids).execute();
    },

    async search(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<Array<RankedHit<string>>> {
      return (await inMemory?.search(ownerId, { q, limit, mode })) ?? searchRanked<string>(db, dialect, index, { ownerId, q, limit, mode });
    },

    async count(ownerId: string): Promise<number> {
      const row = await db
        .selectFrom('kb_documents')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    /** What the owner stores in total, and the size of one document when it exists (see storedBytes). */
    storedBytes(ownerId: string, one?: { id: string } | { title: string }): Promise<{ total: number; existing: number | undefined }> {
      return storedBytes(ownerId, one);
    },

    /** The most recently changed documents, by the (owner_id, updated_at) index of migration 0005. */
    async recent(ownerId: string, limit: number): Promise<Array<Pick<KbDocumentRow, 'id' | 'title' | 'updated_at'>>> {
      return db
        .selectFrom('kb_documents')
        .select(['id', 'title', 'updated_at'])
        .where('owner_id', '=', ownerId)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
  };
}

export type KnowledgeRepo = ReturnType<typeof createKnowledgeRepo>;
