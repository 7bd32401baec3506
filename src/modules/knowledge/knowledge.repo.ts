import { sql } from 'kysely';
import { searchRanked, type FullTextIndex, type MatchMode, type RankedHit } from '../../storage/full-text.js';
import type { Dialect } from '../../storage/dialect.js';
import { createSearchIndex } from '../../storage/search-index.js';
import type { Executor } from '../../storage/columns.js';
import type { KbDocumentsTable, KnowledgeTables } from './knowledge.tables.js';
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

/**
 * Postings plus words the in-memory search index holds over all owners (some 15 MB at most);
 * beyond it, say with many large documents, the database ranks.
 */
const SEARCH_INDEX_MAX_COST = 1_000_000;

export function createKnowledgeRepo(db: Executor<KnowledgeTables>, dialect: Dialect, writes?: WriteTracker) {
  const index = kbIndex(dialect);
  // Pages of a few rows: documents hold up to 10 MiB of text each.
  const inMemory =
    dialect === 'postgres' || writes
      ? createSearchIndex<string>({ db, dialect, index, writes, pageSize: 4, maxCost: SEARCH_INDEX_MAX_COST })
      : undefined;
  // Lists show an excerpt: read only the start of each document, never whole 10 MiB texts.
  const head = (chars: number) => sql<string>`substr(content, 1, ${chars})`.as('head');

  return {
    async insert(row: KbDocumentsTable, trx?: Executor<KnowledgeTables>): Promise<void> {
      await (trx ?? db).insertInto('kb_documents').values(row).execute();
    },

    /** Inserts unless the owner has a document with this title; true when inserted. */
    async insertIfTitleFree(row: KbDocumentsTable, trx?: Executor<KnowledgeTables>): Promise<boolean> {
      const result = await (trx ?? db)
        .insertInto('kb_documents')
        .values(row)
        .onConflict((oc) => oc.columns(['owner_id', 'title']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async get(ownerId: string, id: string): Promise<KbDocumentRow | undefined> {
      return db.selectFrom('kb_documents').select(DOCUMENT_COLUMNS).where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async idByTitle(ownerId: string, title: string): Promise<string | undefined> {
      const row = await db.selectFrom('kb_documents').select('id').where('owner_id', '=', ownerId).where('title', '=', title).executeTakeFirst();
      return row?.id;
    },

    async update(ownerId: string, id: string, changes: KbChanges, trx?: Executor<KnowledgeTables>): Promise<KbDocumentRow | undefined> {
      return (trx ?? db)
        .updateTable('kb_documents')
        .set(changes)
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .returning(DOCUMENT_COLUMNS)
        .executeTakeFirst();
    },

    /** The id of the updated document, or undefined when the owner has none with this title. */
    async updateByTitle(ownerId: string, title: string, changes: KbChanges, trx?: Executor<KnowledgeTables>): Promise<string | undefined> {
      const row = await (trx ?? db)
        .updateTable('kb_documents')
        .set(changes)
        .where('owner_id', '=', ownerId)
        .where('title', '=', title)
        .returning('id')
        .executeTakeFirst();
      return row?.id;
    },

    async delete(ownerId: string, id: string, trx?: Executor<KnowledgeTables>): Promise<boolean> {
      const result = await (trx ?? db).deleteFrom('kb_documents').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
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

    /**
     * What the owner's documents hold in bytes, and the size of one of them (by id or title) if
     * it exists: what a plan's knowledgeBytes limit is checked against. Read from the
     * (owner_id, id, size_bytes) index of migration 0012, not from the rows and their text.
     */
    async storedBytes(ownerId: string, one?: { id: string } | { title: string }, trx: Executor<KnowledgeTables> = db): Promise<{ total: number; existing: number | undefined }> {
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
