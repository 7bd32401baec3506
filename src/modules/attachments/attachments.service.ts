import { notFound } from '../../http/errors.js';
import { isoNowOrdered } from '../../lib/time.js';
import type { ChangePublisher } from '../events/events.changes.js';
import type { AttachmentsRepo } from './attachments.repo.js';
import type { AttachedDocument, AttachedSkill, AttachingPersona, DocumentUsage } from './attachments.schemas.js';

/** What a persona or a skill is, for attaching documents to it. */
export type DocumentHolder = { type: 'persona'; id: string } | { type: 'skill'; id: number };

/**
 * Links between an owner's personas, skills and documents. Every method checks that each side
 * belongs to the owner and answers 404 NOT_FOUND otherwise, so another owner's id looks exactly
 * like one that does not exist. Attaching is idempotent: `created` says whether the link is new.
 */
export function createAttachmentsService(deps: {
  repo: AttachmentsRepo;
  /** Told after each successful attach or detach, as a change of the persona or skill it holds (MCP sessions list again). */
  changes?: ChangePublisher | undefined;
}) {
  const { repo } = deps;
  const changed = (ownerId: string, holder: DocumentHolder['type']) =>
    deps.changes?.publish({ type: holder === 'persona' ? 'personas.changed' : 'skills.changed', ownerId });

  async function requireHolder(ownerId: string, holder: DocumentHolder): Promise<void> {
    const exists = holder.type === 'persona' ? await repo.personaExists(ownerId, holder.id) : await repo.skillExists(ownerId, holder.id);
    if (!exists) throw notFound(holder.type === 'persona' ? 'Persona' : 'Skill', holder.id);
  }
  async function requireDocument(ownerId: string, documentId: string): Promise<void> {
    if (!(await repo.documentExists(ownerId, documentId))) throw notFound('Knowledge-base document', documentId);
  }
  async function requireSkill(ownerId: string, skillId: number): Promise<void> {
    if (!(await repo.skillExists(ownerId, skillId))) throw notFound('Skill', skillId);
  }
  async function requirePersona(ownerId: string, personaId: string): Promise<void> {
    if (!(await repo.personaExists(ownerId, personaId))) throw notFound('Persona', personaId);
  }

  const toPersona = (r: { id: string; name: string; active: number; attached_at: string }) => ({
    id: r.id,
    name: r.name,
    active: r.active === 1,
    attachedAt: r.attached_at,
  });
  const toDocument = (r: { id: string; title: string; source: string; size_bytes: number; attached_at: string }) => ({
    id: r.id,
    title: r.title,
    source: r.source,
    sizeBytes: r.size_bytes,
    attachedAt: r.attached_at,
  });

  return {
    async attachDocument(ownerId: string, holder: DocumentHolder, documentId: string): Promise<{ created: boolean }> {
      await requireHolder(ownerId, holder);
      await requireDocument(ownerId, documentId);
      const created =
        holder.type === 'persona'
          ? await repo.insertPersonaDocument(ownerId, holder.id, documentId, isoNowOrdered())
          : await repo.insertSkillDocument(ownerId, holder.id, documentId, isoNowOrdered());
      changed(ownerId, holder.type);
      return { created };
    },

    async detachDocument(ownerId: string, holder: DocumentHolder, documentId: string): Promise<void> {
      await requireHolder(ownerId, holder);
      const removed =
        holder.type === 'persona'
          ? await repo.deletePersonaDocument(ownerId, holder.id, documentId)
          : await repo.deleteSkillDocument(ownerId, holder.id, documentId);
      if (!removed) throw notFound(`Document attached to ${holder.type} ${holder.id}:`, documentId);
      changed(ownerId, holder.type);
    },

    async listDocuments(ownerId: string, holder: DocumentHolder): Promise<AttachedDocument[]> {
      await requireHolder(ownerId, holder);
      const rows =
        holder.type === 'persona' ? await repo.documentsOfPersona(ownerId, holder.id) : await repo.documentsOfSkill(ownerId, holder.id);
      return rows.map(toDocument);
    },

    async attachSkillToPersona(ownerId: string, personaId: string, skillId: number): Promise<{ created: boolean }> {
      await requirePersona(ownerId, personaId);
      await requireSkill(ownerId, skillId);
      const created = await repo.insertPersonaSkill(ownerId, personaId, skillId, isoNowOrdered());
      changed(ownerId, 'persona');
      return { created };
    },

    async detachSkillFromPersona(ownerId: string, personaId: string, skillId: number): Promise<void> {
      await requirePersona(ownerId, personaId);
      if (!(await repo.deletePersonaSkill(ownerId, personaId, skillId))) {
        throw notFound(`Skill attached to persona ${personaId}:`, skillId);
      }
      changed(ownerId, 'persona');
    },

    async listSkillsOfPersona(ownerId: string, personaId: string): Promise<AttachedSkill[]> {
      await requirePersona(ownerId, personaId);
      const rows = await repo.skillsOfPersona(ownerId, personaId);
      return rows.map((r) => ({
        id: r.id,
        slug: r.slug,
        name: r.name,
        description: r.description,
        category: r.category,
        attachedAt: r.attached_at,
      }));
    },

    /** GET /skills/{id}/attachments: the personas the skill is attached to. */
    async listPersonasOfSkill(ownerId: string, skillId: number): Promise<AttachingPersona[]> {
      await requireSkill(ownerId, skillId);
      return (await repo.personasOfSkill(ownerId, skillId)).map(toPersona);
    },

    /** GET /brain/knowledge-base/{id}/attachments: the personas and skills using the document. */
    async usageOfDocument(ownerId: string, documentId: string): Promise<DocumentUsage> {
      await requireDocument(ownerId, documentId);
      const [personas, skills] = await Promise.all([repo.personasOfDocument(ownerId, documentId), repo.skillsOfDocument(ownerId, documentId)]);
      return {
        documentId,
        personas: personas.map(toPersona),
        skills: skills.map((r) => ({ id: r.id, slug: r.slug, name: r.name, attachedAt: r.attached_at })),
      };
    },

    /**
     * The skills and documents of the owner's active persona (gateway context), in two queries
     * that need no persona id, so they run in parallel with reading the persona. Each item
     * names its persona, so a caller can drop items of a persona activated in between.
     */
    async ofActivePersona(ownerId: string) {
      const [skills, documents] = await Promise.all([repo.skillsOfActivePersona(ownerId), repo.documentsOfActivePersona(ownerId)]);
      return {
        skills: skills.map((r) => ({ personaId: r.persona_id, id: r.id, slug: r.slug, name: r.name })),
        documents: documents.map((r) => ({ personaId: r.persona_id, id: r.id, title: r.title })),
      };
    },

    /** The text of the documents attached to a persona (for chat prompts). */
    async documentContentsOfPersona(ownerId: string, personaId: string) {
      return repo.documentContentsOfPersona(ownerId, personaId);
    },
  };
}

export type AttachmentsService = ReturnType<typeof createAttachmentsService>;
