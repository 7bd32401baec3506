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

/** VaultTokenCreateRequest, exactly the specification's fields. */
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
  },
  { title: 'VaultTokenCreateRequest', additionalProperties: false },
);
export type VaultTokenCreateRequest = Static<typeof VaultTokenCreateRequest>;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ApiDocumentRefSchema = Type.Object({
  kind: Type.Union([Type.Literal('openapi'), Type.Literal('llms'), Type.Literal('ai-plugin')]),
  url: Type.String(),
});

export const ApiAuthSchemeSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'OpenAPI 3 terms: http, apiKey, oauth2, openIdConnect, mutualTLS' }),
  scheme: Type.Optional(Type.String({ description: 'For http: bearer, basic, …' })),
  in: Type.Optional(Type.String({ description: 'For apiKey: header, query or cookie' })),
  paramName: Type.Optional(Type.String({ description: 'For apiKey: the header, query parameter or cookie name' })),
});

export const ApiOperationSchema = Type.Object({
  operationId: Type.String(),
  method: Type.String(),
  path: Type.String(),
  summary: Nullable(Type.String()),
});

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
