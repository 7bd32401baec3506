import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery, Pattern } from '../../http/schemas.js';

const WebsiteUrl = Type.String({
  format: 'uri',
  minLength: 1,
  maxLength: 2048,
  description: 'An http(s) address, e.g. https://api.example.com',
});

/** DiscoveryRequest, as the specification names it. */
export const DiscoveryRequest = Type.Object(
  { websiteUrl: WebsiteUrl },
  { title: 'DiscoveryRequest', additionalProperties: false },
);
export type DiscoveryRequest = Static<typeof DiscoveryRequest>;

/**
 * How an API takes its calls, declared by whoever knows it (the catalogue, the owner for a
 * connector or a discovered API). Some APIs are RPC-style: one path per method, and writes taken
 * over GET as readily as over POST (Slack's `GET /chat.postMessage?channel=…&text=…` posts). For
 * them the HTTP method says nothing, so only the methods declared reads are reads.
 */
export const ApiStyle = Type.Union([Type.Literal('rest'), Type.Literal('rpc')], {
  description:
    'rest (the default): a GET or HEAD reads, any other method may write. rpc: one path per method, and the API may take writes over GET (as Slack\'s Web API does): a call is a read only when it is a GET or HEAD of a method listed in readMethods; everything else needs services:write and is services.write under a token\'s policy',
});
export type ApiStyle = Static<typeof ApiStyle>;

/** One method of an RPC-style API, as the path after the base address. */
export const ReadMethod = Type.String({
  minLength: 1,
  maxLength: 200,
  ...Pattern(
    '^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$',
    'a method is its path after the base address, without the leading slash: letters, digits and . _ ~ - in segments separated by /, none starting with a dot',
  ),
  description: 'A method of the API, as its path after the base address without the leading slash (`conversations.list`)',
});
export const ReadMethods = Type.Array(ReadMethod, {
  maxItems: 500,
  uniqueItems: true,
  description:
    'For apiStyle rpc: the methods that only read, as paths after the base address (`conversations.list`, `users.info`). A GET or HEAD of exactly one of them is a read (services:read); any other call is a write. Matched exactly, case included',
});

/** VaultTokenCreateRequest: the specification's fields, and two optional ones for the discovered API's reads. */
export const VaultTokenCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'A name to recognise the token by' }),
    service: Type.String({
      minLength: 1,
      maxLength: 100,
      ...Pattern(
        '^[A-Za-z0-9](?:[A-Za-z0-9 ._-]*[A-Za-z0-9])?$',
        'a service is named with letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit',
      ),
      description: 'The service the token is for (`github`, `openai`); matched case-insensitively. Letters, digits, space, `.`, `_`, `-`',
    }),
    token: Type.String({ minLength: 1, maxLength: 32768, description: 'The secret to store. It is encrypted and never shown again except by reveal' }),
    websiteUrl: WebsiteUrl,
    discoverApi: Type.Optional(
      Type.Boolean({
        default: false,
        description: "Discover the site's API (OpenAPI, llms.txt, AI plugin manifest) and offer it as a callable service that uses this token",
      }),
    ),
    apiStyle: Type.Optional({
      ...ApiStyle,
      description: `Added to the specification's fields, with discoverApi only: how the discovered API takes its calls. ${ApiStyle.description}. To change it later, store the token again`,
    }),
    readMethods: Type.Optional({ ...ReadMethods, description: `Added to the specification's fields, with apiStyle rpc only. ${ReadMethods.description}` }),
  },
  { title: 'VaultTokenCreateRequest', additionalProperties: false },
);
export type VaultTokenCreateRequest = Static<typeof VaultTokenCreateRequest>;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ApiDocumentRefSchema = Type.Object({
  kind: Type.Union([Type.Literal('openapi'), Type.Literal('llms'), Type.Literal('ai-plugin')]),
  url: Type.String(),
});
/** A document discovery read: an OpenAPI or Swagger document, an llms.txt, an AI plugin manifest. */
export type ApiDocumentRef = Static<typeof ApiDocumentRefSchema>;

export const ApiAuthSchemeSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'OpenAPI 3 terms: http, apiKey, oauth2, openIdConnect, mutualTLS' }),
  scheme: Type.Optional(Type.String({ description: 'For http: bearer, basic, …' })),
  in: Type.Optional(Type.String({ description: 'For apiKey: header, query or cookie' })),
  paramName: Type.Optional(Type.String({ description: 'For apiKey: the header, query parameter or cookie name' })),
});
/** A security scheme named in the document (`bearerAuth`), or `ai-plugin` for a manifest's auth. */
export type ApiAuthScheme = Static<typeof ApiAuthSchemeSchema>;

export const ApiOperationSchema = Type.Object({
  operationId: Type.String(),
  method: Type.String(),
  path: Type.String(),
  summary: Nullable(Type.String()),
});
export type ApiOperation = Static<typeof ApiOperationSchema>;

export const DiscoveredApiSchema = Type.Object(
  {
    title: Nullable(Type.String()),
    description: Nullable(Type.String()),
    baseUrl: Type.String({ description: "The document's first server, else the site's origin" }),
    baseUrlRejected: Type.Optional(
      Type.String({ description: "The document's server, when it is not on the website's site (or is cleartext for an https site): baseUrl is then the site's origin" }),
    ),
    documents: Type.Array(ApiDocumentRefSchema),
    authSchemes: Type.Array(ApiAuthSchemeSchema),
    operationCount: Type.Integer({ description: 'All operations in the document' }),
    operations: Type.Array(ApiOperationSchema, { description: 'The first 200 operations' }),
  },
  { title: 'DiscoveredApi' },
);
/**
 * What a website publishes for machines. The token's secret goes to `baseUrl`, so a document's
 * server off the website's site is not kept there but reported as `baseUrlRejected`.
 */
export type DiscoveredApi = Static<typeof DiscoveredApiSchema>;

/** What API discovery found for a stored token; the integrations module lists its operations. */
export const VaultApiSummarySchema = Type.Object(
  {
    status: Type.Union([Type.Literal('found'), Type.Literal('none'), Type.Literal('failed')], {
      description: 'found: an API description; none: the site publishes nothing for machines; failed: discovery could not run (see error)',
    }),
    discoveredAt: IsoDateTime,
    error: Type.Optional(Type.String()),
    title: Type.Optional(Nullable(Type.String())),
    description: Type.Optional(Nullable(Type.String())),
    baseUrl: Type.Optional(Type.String()),
    baseUrlRejected: Type.Optional(Type.String({ description: "The document's server, not used: it is not on the website's site" })),
    documents: Type.Optional(Type.Array(ApiDocumentRefSchema)),
    authSchemes: Type.Optional(Type.Array(ApiAuthSchemeSchema)),
    operationCount: Type.Optional(Type.Integer()),
    apiStyle: { ...ApiStyle, description: `As stored with the token (rest unless it said rpc). ${ApiStyle.description}` },
    readMethods: { ...ReadMethods, description: 'The read methods of an rpc API, as stored with the token; empty for rest' },
  },
  { title: 'VaultApiSummary' },
);
export type VaultApiSummary = Static<typeof VaultApiSummarySchema>;

export const VaultTokenSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    service: Type.String(),
    websiteUrl: Type.String(),
    hint: Type.String({ description: 'The last four characters (`…abcd`), to recognise the token; never the secret' }),
    discoverApi: Type.Boolean(),
    api: Type.Union([VaultApiSummarySchema, Type.Null()], { description: 'What API discovery found; null when not asked for' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'VaultToken' },
);
/** A vault token as the API shows it: never the secret. */
export type VaultToken = Static<typeof VaultTokenSchema>;

export const RevealedVaultTokenSchema = Type.Object(
  { ...VaultTokenSchema.properties, token: Type.String({ description: 'The decrypted secret' }) },
  { title: 'RevealedVaultToken' },
);

export const ListVaultTokensQuery = Type.Object({
  ...PageQuery,
  service: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only tokens for this service (case-insensitive)' })),
});

export const VaultTokenResponse = Data(VaultTokenSchema);
export const VaultTokenPage = Page(VaultTokenSchema);
export const RevealedVaultTokenResponse = Data(RevealedVaultTokenSchema);
export const DeletedVaultTokenResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));
export const DiscoveryResponse = Data(DiscoveredApiSchema);
