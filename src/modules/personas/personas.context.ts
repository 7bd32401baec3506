import { Type } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import type { AttachmentsService } from '../attachments/attachments.service.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { PersonasService } from './personas.service.js';

const PersonaContextSchema = Type.Union(
  [
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      soul_content: Type.String({ description: 'The persona instructions to follow' }),
      skills: Type.Array(Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String() })),
      documents: Type.Array(Type.Object({ id: Type.String(), title: Type.String() })),
    }),
    Type.Null(),
  ],
  { description: 'The active persona (scope `personas`); null when none is active' },
);

/**
 * The gateway's `persona` section: the active persona with its instructions and what is
 * attached to it, or null when none is active. Three queries, all at once: the persona, its
 * skills and its documents are each found through the active flag.
 */
export function createPersonaContextSection(
  personas: Pick<PersonasService, 'getActive'>,
  attachments: Pick<AttachmentsService, 'ofActivePersona'>,
): ContextSection<typeof PersonaContextSchema> {
  return {
    name: 'persona',
    schema: PersonaContextSchema,
    tables: ['personas', 'persona_documents', 'persona_skills', 'skills', 'kb_documents'],
    visibleTo: (principal) => hasScope(principal, 'personas'),
    async load(ownerId) {
      const [persona, attached] = await Promise.all([personas.getActive(ownerId), attachments.ofActivePersona(ownerId)]);
      if (!persona) return null;
      // An activation landing between the queries could pair one persona with another's
      // attachments; keeping only this persona's items makes the answer consistent.
      const mine = <T extends { personaId: string }>(items: T[]) => items.filter((item) => item.personaId === persona.id);
      return {
        id: persona.id,
        name: persona.name,
        description: persona.description,
        soul_content: persona.soul_content,
        skills: mine(attached.skills).map(({ id, slug, name }) => ({ id, slug, name })),
        documents: mine(attached.documents).map(({ id, title }) => ({ id, title })),
      };
    },
  };
}
