import { sql } from 'kysely';
import { searchRanked, type FullTextIndex, type MatchMode, type RankedHit } from '../../storage/search/full-text.js';
import type { Dialect } from '../../storage/dialect.js';
import type { GroupCommit } from '../../storage/group-commit.js';
import { createSearchIndex } from '../../storage/search/index-cache.js';
import type { Executor } from '../../storage/columns.js';
import type { KbDocumentsTable, KbPassagesTable, KnowledgeTables } from './knowledge.tables.js';
import type { WriteTracker } from '../../storage/write-tracker.js';
import type { Passage } from '../../storage/search/passages.js';
import { createScanRanking } from '../../storage/search/scan.js';
import { searchTerms } from '../../storage/search/tokenizer.js';

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

/**
 * The words index over passages (no database full-text index: the in-memory index, or a scan
 * of the owner's passages, ranks them). The document's title weighs twice a passage word and
 * counts in every passage of the document, as it did for the whole document; the headings above
 * a passage weigh twice too, since they say what it is about.
 */
export const PASSAGE_INDEX: FullTextIndex = {
  table: 'kb_passages',
  rowKey: 'id',
  columns: [
    { name: 'title', weight: 2 },
    { name: 'heading_path', weight: 2 },
    { name: 'content', weight: 1 },
  ],
};

/** Rows per INSERT when writing passages: 10 values each, well under either engine's bound on parameters. */
const PASSAGE_ROWS_PER_INSERT = 500;

const PASSAGE_COLUMNS = ['id', 'document_id', 'ordinal', 'start_offset', 'end_offset', 'heading_path', 'title', 'content'] as const;
export type KbPassageRow = Pick<KbPassagesTable, (typeof PASSAGE_COLUMNS)[number]>;

/**
 * What the passages' words index keeps of each passage besides its words, so that a search
 * answers its hits without reading their rows: all a hit shows. As current as the ranking: any
 * write to the table rebuilds the owner's index before the next search (index-cache.ts).
 */
const PASSAGE_PAYLOAD = ['document_id', 'start_offset', 'end_offset', 'heading_path', 'title', 'content'] as const;

/** A passage as a search hit shows it (PASSAGE_PAYLOAD). */
export type HitPassage = Pick<KbPassagesTable, (typeof PASSAGE_PAYLOAD)[number]>;

/** A hit of the passages' ranking, with the passage when the owner's index keeps it. */
export interface RankedPassage extends RankedHit<string> {
  passage?: HitPassage;
}

/** A passage's id: its document's and its place in it, so that rewriting a document keeps the ids of the passages it still has. */
export function passageId(documentId: string, ordinal: number): string {
  return `${documentId}:${ordinal}`;
}

// Named columns only: the table also holds SQLite's `rid` and PostgreSQL's `search_vector`.
const DOCUMENT_COLUMNS = ['id', 'title', 'content', 'source', 'mime_type', 'size_bytes', 'file_bytes', 'created_at', 'updated_at'] as const;
const SUMMARY_COLUMNS = ['id', 'title', 'source', 'mime_type', 'size_bytes', 'file_bytes', 'created_at', 'updated_at'] as const;

export type KbDocumentRow = Pick<KbDocumentsTable, (typeof DOCUMENT_COLUMNS)[number]>;
/** A document without its content, with the start of it (`head`) for an excerpt. */
export type KbSummaryRow = Pick<KbDocumentsTable, (typeof SUMMARY_COLUMNS)[number]> & { head: string };
export type KbChanges = Partial<Pick<KbDocumentsTable, 'title' | 'content' | 'source' | 'mime_type' | 'size_bytes' | 'file_bytes' | 'updated_at'>>;

/** The shared database, or the transaction of a group commit (storage/group-commit.ts). */

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
 * cannot pass it together; a write answers once it is durable. `indexPercent`: the share of
 * SEARCH_INDEX_MAX_COST kept (the SEARCH_INDEX_PERCENT setting).
 */
export function createKnowledgeRepo(db: Executor<KnowledgeTables>, dialect: Dialect, groupCommit: Pick<GroupCommit, 'run'>, writes?: WriteTracker, indexPercent = 100) {
  const index = kbIndex(dialect);
  // Pages of a few rows: documents hold up to 10 MiB of text each.
  const inMemory =
    dialect === 'postgres' || writes
      ? createSearchIndex<string>({ db, dialect, index, writes, pageSize: 4, maxCost: (SEARCH_INDEX_MAX_COST * indexPercent) / 100 })
      : undefined;
  const passageIndex =
    dialect === 'postgres' || writes
      ? createSearchIndex<string>({
          db,
          dialect,
          index: PASSAGE_INDEX,
          writes,
          pageSize: 64,
          maxCost: (SEARCH_INDEX_MAX_COST * indexPercent) / 100,
          // Bounded apart: an owner whose passages' texts do not fit is still ranked in memory, its hits read.
          payload: PASSAGE_PAYLOAD,
          payloadMaxCost: (SEARCH_INDEX_MAX_COST * indexPercent) / 100,
        })
      : undefined;

  /**
   * Without a way to know when an index is stale (SQLite without a write tracker): the owner's
   * passages read in pages and ranked as they come, the same ranking the index answers.
   */
  async function scanPassages(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<Array<RankedHit<string>>> {
    const terms = searchTerms(q);
    if (terms.length === 0) return [];
    const ranking = createScanRanking<string>(PASSAGE_INDEX, terms, mode, limit, []);
    let after = '';
    for (;;) {
      const page = await db.selectFrom('kb_passages').select(['id', 'title', 'heading_path', 'content']).where('owner_id', '=', ownerId).where('id', '>', after).orderBy('id').limit(64).execute();
      for (const row of page) ranking.add(row);
      if (page.length < 64) break;
      after = page[page.length - 1]!.id;
    }
    return ranking.finish() ?? [];
  }

  // Lists show an excerpt: read only the start of each document, never whole 10 MiB texts.
  const head = (chars: number) => sql<string>`substr(content, 1, ${chars})`.as('head');

  /**
   * The total the owner stores and, when the write replaces a document, that document's size:
   * what a plan's knowledgeBytes limit is checked against. Read from the (owner_id, id,
   * size_bytes) index of migration 0012, not from the rows and their text.
   */
  async function storedBytes(ownerId: string, one?: { id: string } | { title: string }, trx: Executor<KnowledgeTables> = db): Promise<{ total: number; existing: number | undefined }> {
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
  async function refused<R>(limit: BytesLimit<R> | undefined, trx: Executor<KnowledgeTables>, ownerId: string, size: number, replacing?: { id: string } | { title: string }): Promise<R | undefined> {
    if (!limit) return undefined;
    const stored = await storedBytes(ownerId, replacing, trx);
    // No such document: the update itself answers 404, not the limit.
    if (replacing && 'id' in replacing && stored.existing === undefined) return limit(stored.total, 0);
    return limit(stored.total, size - (stored.existing ?? 0));
  }

  /** Inserts unless the owner has a document with this title; true when inserted. */
  /**
   * Makes the document's stored passages those given, in the document's transaction. A passage
   * whose row already holds the same title, headings and text keeps its `updated_at` (and so its
   * vector); one whose offsets moved only gets the new offsets; passages past the new last one
   * are deleted (their vectors by the trigger of migration 0033).
   */
  async function writePassages(trx: Executor<KnowledgeTables>, ownerId: string, documentId: string, title: string, passages: readonly Passage[], now: string): Promise<void> {
    await trx.deleteFrom('kb_passages').where('document_id', '=', documentId).where('ordinal', '>=', passages.length).execute();
    const rows: KbPassagesTable[] = passages.map((passage, ordinal) => ({
      id: passageId(documentId, ordinal),
      owner_id: ownerId,
      document_id: documentId,
      ordinal,
      start_offset: passage.start,
      end_offset: passage.end,
      heading_path: JSON.stringify(passage.headings),
      title,
      content: passage.text,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += PASSAGE_ROWS_PER_INSERT) {
      await trx
        .insertInto('kb_passages')
        .values(rows.slice(i, i + PASSAGE_ROWS_PER_INSERT))
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => {
            const same = eb.and([
              eb('kb_passages.content', '=', eb.ref('excluded.content')),
              eb('kb_passages.title', '=', eb.ref('excluded.title')),
              eb('kb_passages.heading_path', '=', eb.ref('excluded.heading_path')),
            ]);
            return {
              start_offset: eb.ref('excluded.start_offset'),
              end_offset: eb.ref('excluded.end_offset'),
              heading_path: eb.ref('excluded.heading_path'),
              title: eb.ref('excluded.title'),
              content: eb.ref('excluded.content'),
              updated_at: eb.case().when(same).then(eb.ref('kb_passages.updated_at')).else(eb.ref('excluded.updated_at')).end(),
            };
          }).where((eb) =>
            eb.or([
              eb('kb_passages.content', '<>', eb.ref('excluded.content')),
              eb('kb_passages.title', '<>', eb.ref('excluded.title')),
              eb('kb_passages.heading_path', '<>', eb.ref('excluded.heading_path')),
              eb('kb_passages.start_offset', '<>', eb.ref('excluded.start_offset')),
              eb('kb_passages.end_offset', '<>', eb.ref('excluded.end_offset')),
            ]),
          ),
        )
        .execute();
    }
  }

  async function insertIfTitleFree(row: KbDocumentsTable, trx: Executor<KnowledgeTables>): Promise<boolean> {
    const result = await trx
      .insertInto('kb_documents')
      .values(row)
      .onConflict((oc) => oc.columns(['owner_id', 'title']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  return {
    /** A new document, committed with concurrent writes; the limit's refusal instead when it refuses. */
    async create<R>(row: KbDocumentsTable, passages: readonly Passage[], limit?: BytesLimit<R>): Promise<R | undefined> {
      return groupCommit.run(async (trx) => {
        const refusal = await refused(limit, trx, row.owner_id, row.size_bytes);
        if (refusal === undefined) {
          await trx.insertInto('kb_documents').values(row).execute();
          await writePassages(trx, row.owner_id, row.id, row.title, passages, row.updated_at);
        }
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
      passages: readonly Passage[],
      attempts: readonly UpsertAttempt[],
      limit?: BytesLimit<R>,
    ): Promise<{ refused: R } | { action: 'created' | 'updated'; id: string } | undefined> {
      return groupCommit.run(async (trx) => {
        const refusal = await refused(limit, trx, ownerId, size, { title });
        if (refusal !== undefined) return { refused: refusal };
        for (const { row, changes } of attempts) {
          if (await insertIfTitleFree(row, trx)) {
            await writePassages(trx, ownerId, row.id, title, passages, row.updated_at);
            return { action: 'created' as const, id: row.id };
          }
          const updated = await trx.updateTable('kb_documents').set(changes).where('owner_id', '=', ownerId).where('title', '=', title).returning('id').executeTakeFirst();
          if (updated) {
            await writePassages(trx, ownerId, updated.id, title, passages, row.updated_at);
            return { action: 'updated' as const, id: updated.id };
          }
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
    async update<R>(ownerId: string, id: string, changes: KbChanges & { updated_at: string }, passages: readonly Passage[], limit?: BytesLimit<R>): Promise<{ refused: R } | KbDocumentRow | undefined> {
      return groupCommit.run(async (trx) => {
        const refusal = await refused(limit, trx, ownerId, changes.size_bytes ?? 0, { id });
        if (refusal !== undefined) return { refused: refusal };
        const row = await trx.updateTable('kb_documents').set(changes).where('owner_id', '=', ownerId).where('id', '=', id).returning(DOCUMENT_COLUMNS).executeTakeFirst();
        if (row) await writePassages(trx, ownerId, id, row.title, passages, changes.updated_at);
        return row;
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

    async search(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<Array<RankedHit<string>>> {
      return (await inMemory?.search(ownerId, { q, limit, mode })) ?? searchRanked<string>(db, dialect, index, { ownerId, q, limit, mode });
    },

    /** The owner's passages best first by words (bm25 over title, headings and text), at most `limit`. */
    async searchPassages(ownerId: string, q: string, limit: number, mode: MatchMode): Promise<RankedPassage[]> {
      if (!passageIndex) return scanPassages(ownerId, q, limit, mode);
      const hits = (await passageIndex.search(ownerId, { q, limit, mode })) ?? [];
      return hits.map((hit) => (hit.row ? { id: hit.id, rank: hit.rank, passage: hit.row as HitPassage } : hit));
    },

    /** Passages by id, the owner's only. */
    async passagesByIds(ownerId: string, ids: readonly string[]): Promise<KbPassageRow[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('kb_passages').select(PASSAGE_COLUMNS).where('owner_id', '=', ownerId).where('id', 'in', ids).execute();
    },

    /** A document's passages in order (tests and tools read them to check offsets). */
    async passagesOf(ownerId: string, documentId: string): Promise<KbPassageRow[]> {
      return db.selectFrom('kb_passages').select(PASSAGE_COLUMNS).where('owner_id', '=', ownerId).where('document_id', '=', documentId).orderBy('ordinal').execute();
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
