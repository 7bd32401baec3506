import type { Executor } from '../../storage/columns.js';
import type { AttachmentsTables } from './attachments.tables.js';

/**
 * The links between an owner's personas, skills and knowledge-base documents. The link tables
 * belong to this module; listings join the linked tables to show names and titles in one query.
 */
export function createAttachmentsRepo(db: Executor<AttachmentsTables>) {
  return {
    async personaExists(ownerId: string, id: string): Promise<boolean> {
      return !!(await db.selectFrom('personas').select('id').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst());
    },
    async skillExists(ownerId: string, id: number): Promise<boolean> {
      return !!(await db.selectFrom('skills').select('id').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst());
    },
    async documentExists(ownerId: string, id: string): Promise<boolean> {
      return !!(await db.selectFrom('kb_documents').select('id').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst());
    },

    async insertPersonaDocument(ownerId: string, personaId: string, documentId: string, at: string): Promise<boolean> {
      const result = await db
        .insertInto('persona_documents')
        .values({ owner_id: ownerId, persona_id: personaId, document_id: documentId, created_at: at })
        .onConflict((oc) => oc.columns(['persona_id', 'document_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async insertSkillDocument(ownerId: string, skillId: number, documentId: string, at: string): Promise<boolean> {
      const result = await db
        .insertInto('skill_documents')
        .values({ owner_id: ownerId, skill_id: skillId, document_id: documentId, created_at: at })
        .onConflict((oc) => oc.columns(['skill_id', 'document_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async insertPersonaSkill(ownerId: string, personaId: string, skillId: number, at: string): Promise<boolean> {
      const result = await db
        .insertInto('persona_skills')
        .values({ owner_id: ownerId, persona_id: personaId, skill_id: skillId, created_at: at })
        .onConflict((oc) => oc.columns(['persona_id', 'skill_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async deletePersonaDocument(ownerId: string, personaId: string, documentId: string): Promise<boolean> {
      const r = await db
        .deleteFrom('persona_documents')
        .where('owner_id', '=', ownerId)
        .where('persona_id', '=', personaId)
        .where('document_id', '=', documentId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async deleteSkillDocument(ownerId: string, skillId: number, documentId: string): Promise<boolean> {
      const r = await db
        .deleteFrom('skill_documents')
        .where('owner_id', '=', ownerId)
        .where('skill_id', '=', skillId)
        .where('document_id', '=', documentId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async deletePersonaSkill(ownerId: string, personaId: string, skillId: number): Promise<boolean> {
      const r = await db
        .deleteFrom('persona_skills')
        .where('owner_id', '=', ownerId)
        .where('persona_id', '=', personaId)
        .where('skill_id', '=', skillId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async documentsOfPersona(ownerId: string, personaId: string) {
      return db
        .selectFrom('persona_documents as l')
        .innerJoin('kb_documents as d', 'd.id', 'l.document_id')
        .select(['d.id', 'd.title', 'd.source', 'd.size_bytes', 'l.created_at as attached_at'])
        .where('l.owner_id', '=', ownerId)
        .where('l.persona_id', '=', personaId)
        .orderBy('l.created_at')
        .orderBy('d.id')
        .execute();
    },
    async documentsOfSkill(ownerId: string, skillId: number) {
      return db
        .selectFrom('skill_documents as l')
        .innerJoin('kb_documents as d', 'd.id', 'l.document_id')
        .select(['d.id', 'd.title', 'd.source', 'd.size_bytes', 'l.created_at as attached_at'])
        .where('l.owner_id', '=', ownerId)
        .where('l.skill_id', '=', skillId)
        .orderBy('l.created_at')
        .orderBy('d.id')
        .execute();
    },
    /** The full text of a persona's documents, for building a chat prompt. */
    async documentContentsOfPersona(ownerId: string, personaId: string) {
      return db
        .selectFrom('persona_documents as l')
        .innerJoin('kb_documents as d', 'd.id', 'l.document_id')
        .select(['d.id', 'd.title', 'd.content'])
        .where('l.owner_id', '=', ownerId)
        .where('l.persona_id', '=', personaId)
        .orderBy('l.created_at')
        .orderBy('d.id')
        .execute();
    },
    async skillsOfPersona(ownerId: string, personaId: string) {
      return db
        .selectFrom('persona_skills as l')
        .innerJoin('skills as s', 's.id', 'l.skill_id')
        .select(['s.id', 's.slug', 's.name', 's.description', 's.category', 'l.created_at as attached_at'])
        .where('l.owner_id', '=', ownerId)
        .where('l.persona_id', '=', personaId)
        .orderBy('l.created_at')
        .orderBy('s.id')
        .execute();
    },
    /**
     * The skills and documents of the owner's active persona, found through its active flag
     * rather than its id, so that the gateway can read them alongside the persona itself.
     */
    async skillsOfActivePersona(ownerId: string) {
      return db
        .selectFrom('personas as p')
        .innerJoin('persona_skills as l', 'l.persona_id', 'p.id')
        .innerJoin('skills as s', 's.id', 'l.skill_id')
        .select(['l.persona_id', 's.id', 's.slug', 's.name'])
        .where('p.owner_id', '=', ownerId)
        .where('p.active', '=', 1)
        .orderBy('l.created_at')
        .orderBy('s.id')
        .execute();
    },
    async documentsOfActivePersona(ownerId: string) {
      return db
        .selectFrom('personas as p')
        .innerJoin('persona_documents as l', 'l.persona_id', 'p.id')
        .innerJoin('kb_documents as d', 'd.id', 'l.document_id')
        .select(['l.persona_id', 'd.id', 'd.title'])
        .where('p.owner_id', '=', ownerId)
        .where('p.active', '=', 1)
        .orderBy('l.created_at')
        .orderBy('d.id')
        .execute();
    },
    async personasOfSkill(ownerId: string, skillId: number) {
      return db
        .selectFrom('persona_skills as l')
        .innerJoin('personas as p', 'p.id', 'l.persona_id')
        .select(['p.id', 'p.name', 'p.active', 'l.created_at as attached_at'])
        .where('l.owner_id', '=', ownerId)
        .where('l.skill_id', '=', skillId)
        .orderBy('l.created_at')
        .orderBy('p.id')
        .execute();
    },
    async personasOfDocument(ownerId: string, documentId: string) {
      return db
        .selectFrom('persona_documents as l')
        .innerJoin('personas as p', 'p.id', 'l.persona_id')
        .select(['p.id', 'p.name', 'p.active', 'l.created_at as attached_at'])
        .where('l.owner_id', '=', ownerId)
        .where('l.document_id', '=', documentId)
        .orderBy('l.created_at')
        .orderBy('p.id')
        .execute();
    },
    async skillsOfDocument(ownerId: string, documentId: string) {
      return db
        .selectFrom('skill_documents as l')
        .innerJoin('skills as s', 's.id', 'l.skill_id')
        .select(['s.id', 's.slug', 's.name', 'l.created_at as attached_at'])
        .where('l.owner_id', '=', ownerId)
        .where('l.document_id', '=', documentId)
        .orderBy('l.created_at')
        .orderBy('s.id')
        .execute();
    },
  };
}

export type AttachmentsRepo = ReturnType<typeof createAttachmentsRepo>;
