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
      created_at: column.time(),
      updated_at: column.time(),
    },
    { fullText: { columns: ['title', 'content'], sqliteRowKey: 'rid' } },
  ),
});

export type KnowledgeTables = TablesOf<typeof knowledgeTables>;
export type KbDocumentsTable = KnowledgeTables['kb_documents'];
