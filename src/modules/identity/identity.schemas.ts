import { Type, type TSchema } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';

/**
 * `type: [T, 'null']` rather than `anyOf: [T, null]`: with the app's `coerceTypes` Ajv would
 * coerce a null through the first `anyOf` branch (null → "" or [null]) before trying the next,
 * and null is what deletes a key in a merge patch.
 */
function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<T['static'] | null>({ ...schema, type: [schema.type as string, 'null'] });
}

const MERGE_PATCH =
  'A JSON Merge Patch (RFC 7396): objects merge recursively, null deletes a key, arrays and other values replace. ' +
  'The stored document is at most 64 KiB of JSON (413 beyond) and nests at most 32 levels';

const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

const profileFields = {
  name: Type.Optional(Type.String({ maxLength: 200 })),
  bio: Type.Optional(Type.String()),
  location: Type.Optional(Type.String({ maxLength: 200 })),
  links: Type.Optional(Type.Array(Type.Unknown(), { description: 'URLs or `{ label, url }` objects' })),
};

/** The whole identity document, as the owner stores it. */
export const IdentitySchema = Type.Object(
  {
    ...profileFields,
    professional: Type.Optional(FreeObject('Work: role, company, skills… (scope `professional` or `identity`)')),
    availability: Type.Optional(FreeObject('When and how the owner can be reached (scope `availability` or `identity`)')),
  },
  {
    additionalProperties: true,
    title: 'Identity',
    description: "The owner's public profile with any further fields the owner keeps; sections the token may not read are absent",
  },
);

export const IdentityPatchBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    bio: Type.Optional(Nullable(Type.String())),
    location: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    links: Type.Optional(Nullable(Type.Array(Type.Unknown()))),
    professional: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    availability: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
  },
  {
    additionalProperties: true,
    title: 'IdentityPatch',
    description: MERGE_PATCH
  },
);

export const IdentitySection = Type.Object(
  {},
  { additionalProperties: true, description: 'One section of the identity', title: 'IdentitySection' },
);

export const PreferencesSchema = Type.Object({}, { additionalProperties: true, title: 'Preferences', description: 'A free JSON object' });

export const PreferencesPatchBody = Type.Object(
  {},
  {
    additionalProperties: true,
    title: 'PreferencesPatch',
    description: MERGE_PATCH
  },
);

export const IdentityResponse = Data(IdentitySchema);
export const IdentitySectionResponse = Data(IdentitySection);
export const PreferencesResponse = Data(PreferencesSchema);
