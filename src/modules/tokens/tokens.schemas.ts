import { Type, type Static } from '@sinclair/typebox';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { Data, IsoDateTime, NullableDateTime, Page, PageQuery } from '../../http/schemas.js';
import { MemoryTagsField } from './tokens.memory-tags.js';

export const ScopeName = Type.Union(
  SCOPE_NAMES.map((s) => Type.Literal(s)),
  { description: 'A scope name; GET /api/v1/scopes lists them' },
);

export const TokenKindSchema = Type.Union([
  Type.Literal('master'),
  Type.Literal('session'),
  Type.Literal('api'),
  Type.Literal('handshake'),
  Type.Literal('oauth'),
]);

export const TokenSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    kind: TokenKindSchema,
    scopes: Type.Array(Type.String(), { description: 'Master and session tokens hold every scope' }),
    memoryTags: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: "The tags the token's memory is limited to: it sees and writes only entries carrying one of them; null: all of the owner's memory",
    }),
    hint: Type.String({ description: 'The prefix and last four characters, to recognise the token; never the secret' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
    handshakeId: Type.Union([Type.String(), Type.Null()]),
    clientId: Type.Union([Type.String(), Type.Null()], {
      description: 'For an `oauth` token: the client it was issued to through the authorization server (its registered id or metadata URL)',
    }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    expiresAt: NullableDateTime,
    lastUsedAt: Type.Union([IsoDateTime, Type.Null()], { description: 'Precise to the minute' }),
    revokedAt: NullableDateTime,
  },
  { title: 'Token' },
);

export const IssuedTokenSchema = Type.Object(
  {
    ...TokenSchema.properties,
    token: Type.String({ description: 'The secret. Shown this once: store it now' }),
  },
  { title: 'IssuedToken' },
);

export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'A name to recognise the token by, e.g. the agent it is for' }),
    scopes: Type.Array(ScopeName, {
      minItems: 1,
      maxItems: SCOPE_NAMES.length,
      uniqueItems: true,
      description: 'What the token may do: one or more scope names of GET /api/v1/scopes',
    }),
    expiresAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the token stops working; never when absent or null' }),
    ),
    memoryTags: Type.Optional(MemoryTagsField),
  },
  { additionalProperties: false },
);
export type CreateTokenBody = Static<typeof CreateTokenBody>;

export const UpdateTokenBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Type.Array(ScopeName, { minItems: 1, maxItems: SCOPE_NAMES.length, uniqueItems: true })),
    expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null removes the expiry' })),
    memoryTags: Type.Optional(MemoryTagsField),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** Optional: a login session replacing the master token confirms the account password. */
export const MasterProofBody = Type.Object(
  { password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'The account password; needed from a login session' })) },
  { additionalProperties: false },
);

export const ListTokensQuery = Type.Object({
  ...PageQuery,
  kind: Type.Optional(TokenKindSchema),
  includeRevoked: Type.Optional(Type.Boolean({ default: false })),
});

export const TokenResponse = Data(TokenSchema);
export const IssuedTokenResponse = Data(IssuedTokenSchema);
export const TokenPage = Page(TokenSchema);
