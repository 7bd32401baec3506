import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const knowledgeTables = ownedTables({
  kb_documents: table(
    {
      id: column.text(),
      owner_id: column.text(),
      /** Unique per owner: the upsert key. */
      title: column.text(),
      content: column.text(),
      source: column.text(),
      mime_type: column.text().orNull(),
      size_bytes: column.integer(),
      /** The uploaded file's size, when the text was read from one; null for text sent as JSON. */
      file_bytes: column.integer().orNull(),
      created_at: column.time(),
      updated_at: column.time(),
    },
    { fullText: { columns: ['title', 'content'], sqliteRowKey: 'rid' } },
  ),
  /**
   * A document cut into passages (storage/search/passages.ts), written with the document in its
   * transaction and deleted with it. `id` is the document's id and the ordinal (`doc_…:3`), so
   * an edit that leaves a passage as it was keeps its row, its `updated_at` and its vector.
   */
  kb_passages: table({
    id: column.text(),
    owner_id: column.text(),
    document_id: column.text(),
    ordinal: column.integer(),
    /** Offsets in the document's text, UTF-16 code units, end exclusive. */
    start_offset: column.integer(),
    end_offset: column.integer(),
    /** The headings above the passage, outermost first: a JSON array of strings. */
    heading_path: column.json(),
    /** The document's title, ranked with each passage. */
    title: column.text(),
    content: column.text(),
    updated_at: column.time(),
  }),
});

export type KnowledgeTables = TablesOf<typeof knowledgeTables>;
export type KbDocumentsTable = KnowledgeTables['kb_documents'];
export type KbPassagesTable = KnowledgeTables['kb_passages'];
