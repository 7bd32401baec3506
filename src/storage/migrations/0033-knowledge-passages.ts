import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';
import { splitPassages } from '../search/passages.js';

/**
 * Knowledge-base documents cut into passages, the unit search answers and chat quotes
 * (docs/decisions/search.md, "Knowledge passages").
 *
 * - `kb_passages`: one row per passage of a document, in document order (`ordinal`), with its
 *   offsets in the document's text (UTF-16 code units, end exclusive), the headings above it
 *   (a JSON array), the document's title (ranked with the passage, as the document's title
 *   was), and its text. The text is stored, not read from the document by offset: the words
 *   index and the vector indexer read a passage's columns alone (a 10 MiB document is never
 *   read to rank or embed one passage of it), and SQL's substr counts code points, not UTF-16
 *   units. Written in the document's own transaction, deleted with it (foreign key).
 * - Deleting a passage deletes its vectors (source `knowledge_passage`) in the same statement,
 *   by a trigger, as migration 0032 does for memory and skills.
 * - On PostgreSQL, writes bump the owner's search generation (migrations 0020 and 0028), so
 *   every node's in-memory passage index sees them.
 * - Existing documents are cut into passages here, in pages, so that a database upgraded to
 *   this version answers passages of everything it stored.
 */
const PASSAGE_ROWS_PER_INSERT = 500;
const DOCUMENTS_PER_PAGE = 8;

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('kb_passages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('kb_documents.id').onDelete('cascade'))
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('start_offset', 'integer', (c) => c.notNull())
    .addColumn('end_offset', 'integer', (c) => c.notNull())
    .addColumn('heading_path', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Reading an owner's passages in pages by id (the words index); the document's passages in
  // order (a write, a delete's cascade).
  await db.schema.createIndex('kb_passages_owner_id').on('kb_passages').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('kb_passages_document').on('kb_passages').columns(['document_id', 'ordinal']).unique().execute();

  if (dialect === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER kb_passages_vectors_ad AFTER DELETE ON kb_passages BEGIN
           DELETE FROM search_vectors WHERE owner_id = old.owner_id AND source = 'knowledge_passage' AND item_id = old.id;
         END`,
      )
      .execute(db);
  } else {
    await sql
      .raw(
        `CREATE FUNCTION kb_passages_forget_vectors() RETURNS trigger AS $$ BEGIN
           DELETE FROM search_vectors v USING old_rows o
            WHERE v.owner_id = o.owner_id AND v.source = 'knowledge_passage' AND v.item_id = o.id;
           RETURN NULL;
         END $$ LANGUAGE plpgsql`,
      )
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER kb_passages_vectors_delete AFTER DELETE ON kb_passages REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kb_passages_forget_vectors()`)
      .execute(db);
    // The statement triggers of migration 0028, on this table too.
    await sql
      .raw(
        `CREATE TRIGGER kb_passages_search_generation_insert AFTER INSERT ON kb_passages REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_search_generations_inserted()`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER kb_passages_search_generation_delete AFTER DELETE ON kb_passages REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_search_generations_deleted()`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER kb_passages_search_generation_update AFTER UPDATE ON kb_passages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_search_generations_updated()`,
      )
      .execute(db);
  }

  // Existing documents, a few at a time (each holds up to 10 MiB of text).
  let after = '';
  for (;;) {
    const page = await sql<{ id: string; owner_id: string; title: string; content: string; updated_at: string }>`
      SELECT id, owner_id, title, content, updated_at FROM kb_documents WHERE id > ${after} ORDER BY id LIMIT ${DOCUMENTS_PER_PAGE}`.execute(db);
    for (const document of page.rows) {
      // A document without a word gets one empty passage, so that its title is still found.
      const passages = splitPassages(document.content);
      if (passages.length === 0) passages.push({ text: '', start: 0, end: 0, headings: [] });
      const rows = passages.map((passage, ordinal) => ({
        id: `${document.id}:${ordinal}`,
        owner_id: document.owner_id,
        document_id: document.id,
        ordinal,
        start_offset: passage.start,
        end_offset: passage.end,
        heading_path: JSON.stringify(passage.headings),
        title: document.title,
        content: passage.text,
        updated_at: document.updated_at,
      }));
      for (let i = 0; i < rows.length; i += PASSAGE_ROWS_PER_INSERT) {
        await (db as Kysely<{ kb_passages: (typeof rows)[number] }>).insertInto('kb_passages').values(rows.slice(i, i + PASSAGE_ROWS_PER_INSERT)).execute();
      }
    }
    if (page.rows.length < DOCUMENTS_PER_PAGE) break;
    after = page.rows[page.rows.length - 1]!.id;
  }
}
