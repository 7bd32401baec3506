import { Type, type Static } from '@sinclair/typebox';
import type { Scope } from '../../http/access.js';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { Data, IsoDateTime, NullableDateTime, Page, PageQuery } from '../../http/schemas.js';

/** The scopes an agent may ask for through the public handshake. */
export const HANDSHAKE_SCOPES = ['read', 'professional', 'availability'] as const satisfies readonly Scope[];

export const HandshakeScope = Type.Union(
  HANDSHAKE_SCOPES.map((s) => Type.Literal(s)),
  { description: 'A scope an agent may ask for: read, professional or availability' },
);
/** A scope an agent may ask for through a handshake. */
export type HandshakeScope = Static<typeof HandshakeScope>;

export const HandshakeStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('denied')], {
  description: 'A handshake not decided in time, or revoked, reads `denied`',
});

/** Any scope of the vocabulary: the owner may grant more than an agent can ask for. */
const GrantedScope = Type.Union(
  SCOPE_NAMES.map((s) => Type.Literal(s)),
  { description: 'A scope name; GET /api/v1/scopes lists them' },
);

const DecidedAt = Type.Union([IsoDateTime, Type.Null()], {
  description: 'When the handshake left `pending`: the decision, or the revocation or expiry that closed it undecided; null while pending',
});

export const HandshakeSchema = Type.Object(
  {
    handshakeId: Type.String(),
    agentId: Type.String(),
    requestedScopes: Type.Array(HandshakeScope),
    message: Type.String(),
    status: HandshakeStatusSchema,
    tokenId: Type.Union([Type.String(), Type.Null()], { description: 'The token made on approval (never its secret)' }),
    clientIp: Type.Union([Type.String(), Type.Null()], { description: 'The address the request came from' }),
    userAgent: Type.Union([Type.String(), Type.Null()]),
    createdAt: IsoDateTime,
    expiresAt: Type.String({ format: 'date-time', description: 'A pending handshake not decided by then reads `denied`' }),
    decidedAt: DecidedAt,
    revokedAt: NullableDateTime,
    grantedScopes: Type.Union([Type.Array(GrantedScope), Type.Null()], {
      description: 'The scopes granted on approval, which may differ from those asked for; null until approved',
    }),
    claimedAt: Type.Union([IsoDateTime, Type.Null()], { description: 'When the agent collected its token with its claim secret' }),
  },
  { title: 'Handshake' },
);
export type Handshake = Static<typeof HandshakeSchema>;

export const CreateHandshakeBody = Type.Object(
  {
    agentId: Type.String({ minLength: 1, maxLength: 128, description: 'A unique id the agent chooses for itself' }),
    requestedScopes: Type.Array(HandshakeScope, {
      minItems: 1,
      maxItems: HANDSHAKE_SCOPES.length,
      uniqueItems: true,
      description: 'The scopes the agent asks for: read, professional or availability',
    }),
    message: Type.String({ maxLength: 1000, description: 'A short self-description of the agent, shown to the owner' }),
    ownerId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "The user id of the account to ask; without it the request goes to the instance's administrator",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateHandshakeBody = Static<typeof CreateHandshakeBody>;

export const CreatedHandshakeResponse = Data(
  Type.Object(
    {
      handshakeId: Type.String({ description: 'Keep it: it is the only way to read the answer' }),
      status: Type.Literal('pending'),
      expiresAt: IsoDateTime,
      statusUrl: Type.String({ description: 'Poll this path until the status is approved or denied' }),
      claimSecret: Type.String({
        description:
          'Shown this once: keep it secret. Once the status reads approved, POST it to claimUrl to receive the token (once)',
      }),
      claimUrl: Type.String({ description: 'Where to collect the token after approval' }),
    },
    { title: 'HandshakeCreated' },
  ),
);

/** What the agent that asked may read of its handshake (GET /handshake/{id}/status). */
export const HandshakeStatusViewSchema = Type.Object(
  {
    handshakeId: Type.String(),
    status: HandshakeStatusSchema,
    expiresAt: IsoDateTime,
    decidedAt: DecidedAt,
  },
  { title: 'HandshakeStatus' },
);
export type HandshakeStatusView = Static<typeof HandshakeStatusViewSchema>;
export const HandshakeStatusResponse = Data(HandshakeStatusViewSchema);

export const ListHandshakesQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(HandshakeStatusSchema),
});

export const ApproveHandshakeBody = Type.Object(
  {
    scopes: Type.Optional(
      Type.Array(GrantedScope, {
        minItems: 1,
        maxItems: SCOPE_NAMES.length,
        uniqueItems: true,
        description:
          'The scopes to grant, which may differ from those asked for (for example memory or personas besides read); the requested ones when absent',
      }),
    ),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: "When the agent's token stops working; never when absent" })),
  },
  { additionalProperties: false, description: 'May be left out entirely to approve exactly what was asked' },
);
export type ApproveHandshakeBody = Static<typeof ApproveHandshakeBody>;

export const ApprovedHandshakeResponse = Data(
  Type.Object(
    {
      handshake: HandshakeSchema,
      token: Type.String({ description: "The agent's new token. Shown this once: pass it on to the agent out of band" }),
    },
    { title: 'HandshakeApproval' },
  ),
);

export const HandshakeResponse = Data(HandshakeSchema);
export const HandshakePage = Page(HandshakeSchema);

export const ClaimHandshakeBody = Type.Object(
  {
    claimSecret: Type.String({ minLength: 1, maxLength: 200, description: 'The claimSecret the handshake was created with' }),
  },
  { additionalProperties: false },
);

export const ClaimedHandshakeTokenSchema = Type.Object(
  {
    token: Type.String({ description: 'Your bearer token. Handed over this once: store it safely' }),
    scopes: Type.Array(GrantedScope, { description: 'What the owner granted, which may differ from what was asked' }),
  },
  { title: 'HandshakeClaim' },
);
export type ClaimedHandshakeToken = Static<typeof ClaimedHandshakeTokenSchema>;
export const ClaimedHandshakeResponse = Data(ClaimedHandshakeTokenSchema);
