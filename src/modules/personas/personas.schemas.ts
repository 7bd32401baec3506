import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery, Pattern } from '../../http/schemas.js';

/** The largest `soul_content` accepted, in UTF-8 bytes; a larger one answers 413. */
export const SOUL_CONTENT_MAX_BYTES = 64 * 1024;

const Name = Type.String({ minLength: 1, maxLength: 100, ...Pattern('\\S', 'a name must hold something other than spaces'), description: '1 to 100 characters, not only spaces' });
const Description = Type.String({ maxLength: 2000, description: 'A short description shown in listings; up to 2000 characters' });
// No maxLength here: the limit is in bytes and answers 413, which a schema keyword cannot.
const SoulContent = Type.String({
  description: `The persona's instructions (markdown), applied to chat while it is active. Up to ${SOUL_CONTENT_MAX_BYTES} bytes of UTF-8; more answers 413`,
});

export const PersonaSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    soul_content: Type.String(),
    active: Type.Boolean({ description: 'At most one persona of an owner is active at a time' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'Persona' },
);
export type Persona = Static<typeof PersonaSchema>;

export const CreatePersonaBody = Type.Object(
  { name: Name, soul_content: SoulContent, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreatePersonaBody = Static<typeof CreatePersonaBody>;

export const UpdatePersonaBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), soul_content: Type.Optional(SoulContent) },
  { additionalProperties: false, minProperties: 1, description: 'The fields to change; at least one' },
);
export type UpdatePersonaBody = Static<typeof UpdatePersonaBody>;

export const ListPersonasQuery = Type.Object(PageQuery);

export const PersonaDocumentParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  docId: Type.String({ minLength: 1, maxLength: 100 }),
});
export const PersonaSkillParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  skillId: Type.Integer({ minimum: 1, description: 'A skill id (integer)' }),
});

export const PersonaResponse = Data(PersonaSchema);
export const PersonaPage = Page(PersonaSchema);
export const DeletedPersonaResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));
export const DetachResultResponse = Data(Type.Object({ detached: Type.Literal(true) }, { title: 'Detached' }));
