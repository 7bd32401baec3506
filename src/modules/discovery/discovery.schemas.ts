import { Type, type Static } from '@sinclair/typebox';
import { Data, List } from '../../http/schemas.js';

const EndpointString = Type.String({ description: '`METHOD /path`, e.g. `GET /api/v1/memory`' });

export const DiscoveryDocumentSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String({ description: 'The API version; the same as the OpenAPI document\'s info.version' }),
    important: Type.String({ description: 'Guidance every agent client must follow' }),
    description: Type.String(),
    canonicalBaseUrl: Type.String({
      description: 'The base address to use as is (PUBLIC_BASE_URL): every path already begins with /api/v1, so add the paths to it unchanged',
    }),
    documentation: Type.Object({
      openapi: Type.String({ description: 'Absolute address of the OpenAPI 3.1 document' }),
      quickStart: Type.String({ description: 'Absolute address of the quick-start document' }),
      llms: Type.String({ description: 'Absolute address of the text guide for language-model clients' }),
    }),
    authentication: Type.Object({
      type: Type.Literal('bearer'),
      header: Type.String(),
      query_param: Type.String({ description: 'The query parameter that carries the token for tools that cannot set headers' }),
      hint: Type.String(),
    }),
    endpoints: Type.Record(Type.String(), EndpointString, {
      description: 'Every route: its operationId mapped to `METHOD /path`',
    }),
  },
  { title: 'DiscoveryDocument' },
);
export type DiscoveryDocument = Static<typeof DiscoveryDocumentSchema>;

const StepSchema = Type.Object(
  {
    step: Type.Integer({ minimum: 1 }),
    action: Type.String(),
    detail: Type.String(),
    endpoint: Type.Optional(EndpointString),
    body: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'An example request body' })),
    requiredScope: Type.Optional(Type.String({ description: 'The scope the endpoint needs' })),
    critical: Type.Optional(Type.Boolean({ description: 'Skipping this step makes the session fail or misbehave' })),
    done: Type.Optional(Type.Boolean({ description: 'Already done by this request (e.g. it carried a valid token)' })),
  },
  { title: 'QuickStartStep' },
);
export type QuickStartStep = Static<typeof StepSchema>;

export const QuickStartSchema = Type.Object(
  {
    title: Type.String(),
    important: Type.String(),
    authenticated: Type.Boolean({ description: 'True when this request carried a valid token' }),
    canonicalBaseUrl: Type.String({ description: 'The base address to use as is; paths already start with /api/v1' }),
    urlWarning: Type.String(),
    prerequisite: Type.Object({ action: Type.String(), detail: Type.String(), required: Type.Boolean() }),
    noTokenFlow: Type.Object({ description: Type.String(), steps: Type.Array(StepSchema) }),
    steps: Type.Array(StepSchema, { description: 'The recommended order of calls for an agent session' }),
    fullDocs: Type.String({ description: 'Absolute address of the OpenAPI document' }),
    mcp: Type.Object(
      {
        url: Type.String({ description: "Absolute address of the MCP endpoint (Streamable HTTP), reached with the same bearer token" }),
        prefer: Type.String({ description: 'When a client should use MCP rather than the HTTP API' }),
      },
      { description: 'The same capabilities as MCP tools, for clients that speak the Model Context Protocol' },
    ),
  },
  { title: 'QuickStart' },
);
export type QuickStart = Static<typeof QuickStartSchema>;

export const OpenApiDocumentSchema = Type.Object({}, { additionalProperties: true, title: 'OpenApiDocument' });

export const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('draining'), Type.Literal('unavailable')], {
      description:
        '`ok` (200): the node serves and its database answers. `draining` (503): the node is shutting down; it finishes what it has and takes nothing new. `unavailable` (503): its database does not answer',
    }),
    node: Type.Object(
      {
        id: Type.String({ description: 'This node (process) among several serving the same database' }),
        state: Type.Union([Type.Literal('serving'), Type.Literal('draining')]),
      },
      { title: 'HealthNode' },
    ),
    database: Type.Object(
      {
        engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
        reachable: Type.Boolean({ description: 'Whether a trivial query answered within a second (checked at most once a second)' }),
      },
      { title: 'HealthDatabase' },
    ),
  },
  { title: 'Health' },
);
export type Health = Static<typeof HealthSchema>;

export const ScopeInfoSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    grants: Type.Array(EndpointString, { description: 'The routes this scope opens' }),
  },
  { title: 'ScopeInfo' },
);
export type ScopeInfo = Static<typeof ScopeInfoSchema>;
export const ScopeListSchema = List(ScopeInfoSchema);

export const TokenCapabilitiesSchema = Data(
  Type.Object(
    {
      tokenId: Type.String(),
      kind: Type.Union([Type.Literal('master'), Type.Literal('session'), Type.Literal('api'), Type.Literal('handshake'), Type.Literal('oauth')]),
      scopes: Type.Array(Type.String(), { description: 'The scopes this token holds' }),
      memoryTags: Type.Union([Type.Array(Type.String()), Type.Null()], {
        description: 'The tags this token\'s memory is limited to: it sees and writes only entries carrying one of them; null: all of the owner\'s memory',
      }),
      ownerRights: Type.Boolean({ description: 'Master and session tokens: token management, handshakes, the audit log' }),
      master: Type.Boolean({ description: 'Only the master token may reveal vault tokens' }),
      admin: Type.Boolean({ description: "The administrator's master or session token: user management" }),
      endpoints: Type.Array(EndpointString, { description: 'Every non-public route this token may call' }),
    },
    { title: 'TokenCapabilities' },
  ),
);

/** The answer of GET /api/v1/tokens/me/capabilities. */
export type TokenCapabilities = Static<typeof TokenCapabilitiesSchema>;

export const CapabilityEndpointSchema = Type.Object({
  method: Type.String(),
  path: Type.String(),
  operationId: Type.String(),
  summary: Type.String(),
  allowed: Type.Boolean({ description: 'Whether this token may call it' }),
});

export const CapabilitySchema = Type.Object(
  {
    name: Type.String({ description: 'The capability: the OpenAPI tag of its routes, e.g. `memory`' }),
    available: Type.Boolean({ description: 'True when this token may call at least one of its endpoints' }),
    endpoints: Type.Array(CapabilityEndpointSchema),
    missingScopes: Type.Array(Type.String(), {
      description: 'Scopes that would open the endpoints this token may not call (owner-only routes need the master token or a login session instead)',
    }),
  },
  { title: 'Capability' },
);
export type Capability = Static<typeof CapabilitySchema>;

export const CapabilityManifestSchema = Data(
  Type.Object(
    {
      version: Type.String(),
      scopes: Type.Array(Type.String(), { description: 'The scopes this token holds' }),
      capabilities: Type.Array(CapabilitySchema),
    },
    { title: 'CapabilityManifest' },
  ),
);
