import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import { createFullTextIndex } from '../full-text.js';
import type { Dialect, MigrationContext } from '../dialect.js';

/**
 * Text-keyed tables that are searched carry, on SQLite, an explicit integer `rid` as their
 * rowid: FTS5 rows point at it, and SQLite would renumber an implicit rowid on VACUUM.
 * Repositories never read `rid` (nor PostgreSQL's `search_vector`): select columns by name.
 */
function textKeys(table: CreateTableBuilder<string, never>, dialect: Dialect) {
  return dialect === 'sqlite'
    ? table.addColumn('rid', 'integer', (c) => c.primaryKey()).addColumn('id', 'text', (c) => c.notNull().unique())
    : table.addColumn('id', 'text', (c) => c.primaryKey());
}

/** Identity, preferences, memory, knowledge base, skills, personas and their attachments. */
export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  const owner = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade');

  for (const name of ['identity', 'preferences']) {
    await db.schema
      .createTable(name)
      .addColumn('owner_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  }

  await textKeys(db.schema.createTable('memory_entries'), dialect)
    .addColumn('owner_id', 'text', owner)
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('memory_entries_owner').on('memory_entries').columns(['owner_id', 'id']).execute();
  await createFullTextIndex(db, dialect, {
    table: 'memory_entries',
    rowKey: dialect === 'sqlite' ? 'rid' : 'id',
    columns: [{ name: 'content', weight: 1 }],
  });

  await textKeys(db.schema.createTable('kb_documents'), dialect)
    .addColumn('owner_id', 'text', owner)
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text')
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The title is the upsert key: unique per owner, so concurrent upserts cannot make two.
  await db.schema.createIndex('kb_documents_owner_title').unique().on('kb_documents').columns(['owner_id', 'title']).execute();
  await db.schema.createIndex('kb_documents_owner').on('kb_documents').columns(['owner_id', 'id']).execute();
  await createFullTextIndex(db, dialect, {
    table: 'kb_documents',
    rowKey: dialect === 'sqlite' ? 'rid' : 'id',
    columns: [
      { name: 'title', weight: 4 },
      { name: 'content', weight: 1 },
    ],
  });

  await db.schema
    .createTable('skills')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'serial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('owner_id', 'text', owner)
    .addColumn('slug', 'text', (c) => c.notNull())
    // Lower-cased in JavaScript, not by the engine, so both engines fold case the same way.
    .addColumn('slug_key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category_key', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('script_content', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('skills_owner_slug').unique().on('skills').columns(['owner_id', 'slug_key']).execute();
  await db.schema.createIndex('skills_owner_category').on('skills').columns(['owner_id', 'category_key']).execute();
  await db.schema.createIndex('skills_owner_id').on('skills').columns(['owner_id', 'id']).execute();
  await createFullTextIndex(db, dialect, {
    table: 'skills',
    rowKey: 'id',
    columns: [
      { name: 'name', weight: 10 },
      { name: 'description', weight: 4 },
      { name: 'category', weight: 2 },
    ],
  });

  await db.schema
    .createTable('personas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', owner)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('soul_content', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('personas_owner').on('personas').columns(['owner_id', 'id']).execute();
  // At most one active persona per owner, enforced by the database.
  await sql`CREATE UNIQUE INDEX personas_one_active ON personas (owner_id) WHERE active = 1`.execute(db);

  // Attachments: deleting either side removes the link (ON DELETE CASCADE).
  const links = [
    { table: 'persona_documents', left: ['persona_id', 'text', 'personas.id'], right: ['document_id', 'text', 'kb_documents.id'] },
    { table: 'persona_skills', left: ['persona_id', 'text', 'personas.id'], right: ['skill_id', 'integer', 'skills.id'] },
    { table: 'skill_documents', left: ['skill_id', 'integer', 'skills.id'], right: ['document_id', 'text', 'kb_documents.id'] },
  ] as const;
  for (const link of links) {
    await db.schema
      .createTable(link.table)
      .addColumn(link.left[0], link.left[1], (c) => c.notNull().references(link.left[2]).onDelete('cascade'))
      .addColumn(link.right[0], link.right[1], (c) => c.notNull().references(link.right[2]).onDelete('cascade'))
      .addColumn('owner_id', 'text', owner)
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${link.table}_pk`, [link.left[0], link.right[0]])
      .execute();
    await db.schema.createIndex(`${link.table}_right`).on(link.table).columns([link.right[0]]).execute();
  }
}
