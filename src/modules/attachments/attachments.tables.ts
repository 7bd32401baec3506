import { column, ownedTables, readsOfTables, table, type TablesOf } from '../../storage/columns.js';

/** The links between an owner's personas, skills and knowledge-base documents. */
export const attachmentsTables = ownedTables({
  persona_documents: table({
    persona_id: column.text(),
    document_id: column.text(),
    owner_id: column.text(),
    created_at: column.time(),
  }),
  persona_skills: table({
    persona_id: column.text(),
    skill_id: column.integer(),
    owner_id: column.text(),
    created_at: column.time(),
  }),
  skill_documents: table({
    skill_id: column.integer(),
    document_id: column.text(),
    owner_id: column.text(),
    created_at: column.time(),
  }),
});

/** What the links' listings and checks read of the linked tables, which other modules own. */
export const attachmentsReads = readsOfTables({
  personas: table({ id: column.text(), owner_id: column.text(), name: column.text(), active: column.boolean() }),
  skills: table({
    id: column.integer(),
    owner_id: column.text(),
    slug: column.text(),
    name: column.text(),
    description: column.text(),
    category: column.text(),
  }),
  kb_documents: table({
    id: column.text(),
    owner_id: column.text(),
    title: column.text(),
    content: column.text(),
    source: column.text(),
    size_bytes: column.integer(),
  }),
});

export type AttachmentsTables = TablesOf<typeof attachmentsTables> & TablesOf<typeof attachmentsReads>;
