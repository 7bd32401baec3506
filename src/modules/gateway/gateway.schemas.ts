import { Type, type Static } from '@sinclair/typebox';
import { Data } from '../../http/schemas.js';
import { MEMORY_CONTEXT_CAP } from '../memory/memory.context.js';
import { MemoryEntrySchema } from '../memory/memory.schemas.js';

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
      persona: Type.Optional(
        Type.Union(
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
        ),
      ),
      identity: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: "The owner's identity, limited to the sections the token may read (`read`, `professional`, `availability`, `identity`)",
        }),
      ),
      preferences: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The owner's preferences (scope `identity`)" })),
      memory: Type.Optional(
        Type.Object(
          {
            entries: Type.Array(MemoryEntrySchema),
            total: Type.Integer({ description: 'How many entries the owner has' }),
            truncated: Type.Boolean({ description: `True when only the newest entries are shown (GATEWAY_MEMORY_LIMIT, default ${MEMORY_CONTEXT_CAP})` }),
          },
          { description: `Memory entries with ids and timestamps, newest first, at most GATEWAY_MEMORY_LIMIT (default ${MEMORY_CONTEXT_CAP}) (scope \`memory\`)` },
        ),
      ),
      skills: Type.Optional(
        Type.Array(Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String(), description: Type.String(), category: Type.String() }), {
          description: 'The active skills (scope `skills`)',
        }),
      ),
      knowledge: Type.Optional(
        Type.Object(
          {
            documentCount: Type.Integer(),
            recent: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), updatedAt: Type.String({ format: 'date-time' }) })),
          },
          { description: 'The knowledge base: how many documents, and the most recently changed (scope `knowledge`)' },
        ),
      ),
      services: Type.Optional(
        Type.Array(
          Type.Object({
            provider: Type.String(),
            account: Type.Union([Type.String(), Type.Null()]),
            status: Type.String({ description: '`connected`, or `needs_reauth` when the owner must connect again' }),
            scopes: Type.Array(Type.String()),
          }),
          { description: 'Accounts connected through OAuth (scope `services:read`); never their tokens' },
        ),
      ),
      connectors: Type.Optional(
        Type.Array(
          Type.Object({
            id: Type.String(),
            name: Type.String(),
            baseUrl: Type.String(),
            authType: Type.String(),
            connected: Type.Boolean(),
          }),
          { description: "The owner's own services, callable by name through /services/{name}/execute and /proxy (scope `services:read`)" },
        ),
      ),
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
