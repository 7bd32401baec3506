import { Type, type Static } from '@sinclair/typebox';
import { IsoDateTime, List } from '../../http/schemas.js';

/** A knowledge-base document as listed under a persona or a skill. */
export const AttachedDocumentSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    source: Type.String(),
    sizeBytes: Type.Integer(),
    attachedAt: IsoDateTime,
  },
  { title: 'AttachedDocument' },
);
export type AttachedDocument = Static<typeof AttachedDocumentSchema>;

/** A skill as listed under a persona. */
export const AttachedSkillSchema = Type.Object(
  {
    id: Type.Integer(),
    slug: Type.String(),
    name: Type.String(),
    description: Type.String(),
    category: Type.String(),
    attachedAt: IsoDateTime,
  },
  { title: 'AttachedSkill' },
);
export type AttachedSkill = Static<typeof AttachedSkillSchema>;

/** A persona as listed under a skill or a document. */
export const AttachingPersonaSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    active: Type.Boolean(),
    attachedAt: IsoDateTime,
  },
  { title: 'AttachingPersona' },
);
export type AttachingPersona = Static<typeof AttachingPersonaSchema>;

/** A skill as listed under a document. */
export const AttachingSkillSchema = Type.Object(
  {
    id: Type.Integer(),
    slug: Type.String(),
    name: Type.String(),
    attachedAt: IsoDateTime,
  },
  { title: 'AttachingSkill' },
);

export const AttachDocumentBody = Type.Object(
  { documentId: Type.String({ minLength: 1, maxLength: 100, description: 'The id of one of your knowledge-base documents' }) },
  { additionalProperties: false },
);
export const AttachSkillBody = Type.Object(
  { skillId: Type.Integer({ minimum: 1, description: 'The id (an integer) of one of your skills' }) },
  { additionalProperties: false },
);

export const AttachedDocumentList = List(AttachedDocumentSchema);
export const AttachedSkillList = List(AttachedSkillSchema);
export const AttachingPersonaList = List(AttachingPersonaSchema);

/** GET /brain/knowledge-base/{id}/attachments */
export const DocumentUsageSchema = Type.Object({
  documentId: Type.String(),
  personas: Type.Array(AttachingPersonaSchema),
  skills: Type.Array(AttachingSkillSchema),
});
export type DocumentUsage = Static<typeof DocumentUsageSchema>;
export const DocumentUsageResponse = Type.Object(
  { data: DocumentUsageSchema },
  { title: 'DocumentUsageResponse' },
);

/** The answer of an attach: the link, and whether it was new (201) or already there (200). */
export const AttachResultResponse = Type.Object(
  {
    data: Type.Object({
      attached: Type.Boolean({ const: true }),
      created: Type.Boolean({ description: 'false when the link already existed (attaching is idempotent)' }),
    }),
  },
  { title: 'AttachResultResponse' },
);
