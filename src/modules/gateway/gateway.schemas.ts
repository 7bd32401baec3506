import { Type, type Static } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';

/**
 * The gateway context. `endpoints` and `token` are always there; the other sections appear
 * only when the token's scopes allow them. Sections that later modules contribute are declared
 * open here and described by those modules; unknown section names still pass through.
 */
export const GatewayContextSchema = Data(
  Type.Object(
    {
      user: Type.Optional(
        Type.Object(
          {
            id: Type.String(),
            name: Type.Union([Type.String(), Type.Null()]),
            email: Type.Optional(Type.String({ description: 'Only for tokens holding the `identity` scope' })),
          },
          { description: 'The owner of this Hearth' },
        ),
      ),
      persona: Type.Optional(Type.Unknown({ description: 'The active persona with its `soul_content`' })),
      identity: Type.Optional(Type.Unknown({ description: "The owner's identity, limited to the sections the token may read" })),
      memory: Type.Optional(Type.Unknown({ description: 'Memory entries with ids and timestamps, newest first (scope `memory`)' })),
      services: Type.Optional(Type.Unknown({ description: 'Connected services (scope `services:read`)' })),
      endpoints: Type.Array(Type.String(), { description: 'Every non-public route this token may call, as `METHOD /path`' }),
      token: Type.Object(
        {
          id: Type.String(),
          kind: Type.String(),
          scopes: Type.Array(Type.String()),
        },
        { description: 'The calling token' },
      ),
    },
    { additionalProperties: true, title: 'GatewayContext' },
  ),
);

export type GatewayContext = Static<typeof GatewayContextSchema>['data'];
