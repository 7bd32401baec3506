import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, Page, PageQuery, RecordId, Pattern, UrlSafe } from '../../http/schemas.js';
import { ApiStyle, ReadMethods } from '../vault/vault.schemas.js';

export const AUTH_TYPES = ['bearer', 'header', 'query', 'none'] as const;
export type ConnectorAuthType = (typeof AUTH_TYPES)[number];

const Name = Type.String({
  minLength: 1,
  maxLength: 64,
  ...Pattern('^[A-Za-z0-9][A-Za-z0-9._-]*$', 'a connector name is letters, digits, dots, dashes or underscores, starting with a letter or digit'),
  description:
    'How the connector is called in /services/{name}/…: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit; unique per owner whatever the case, and not a built-in service id',
});
const BaseUrl = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'The http(s) address every call is relative to, e.g. https://api.example.com/v2 (no query, fragment or user:password@)',
});
const AuthType = Type.Union(
  AUTH_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'How the credential travels: bearer = Authorization: Bearer <secret>; header = <headerName>: <secret>; query = ?<queryParam>=<secret>; none = no credential',
  },
);
const VaultTokenId = Type.String({
  minLength: 1,
  maxLength: 100,
  ...UrlSafe,
  description: "One of the owner's vault tokens (GET /vault/tokens); required unless authType is none",
});
const HeaderName = Type.String({
  minLength: 1,
  maxLength: 100,
  ...Pattern("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", 'a header name is letters, digits and the signs ! # $ % & \' * + . ^ _ ` | ~ -, without spaces or colons'),
  description: 'The header carrying the secret (authType header), e.g. X-API-Key',
});
const QueryParam = Type.String({
  minLength: 1,
  maxLength: 100,
  ...Pattern('^[A-Za-z0-9._~\\[\\]-]+$', 'a query parameter name is letters, digits, dots, dashes, underscores, tildes or square brackets'),
  description: 'The query parameter carrying the secret (authType query), e.g. api_key',
});

const ConnectorApiStyle = {
  ...ApiStyle,
  description: `${ApiStyle.description}. Mark a connector rpc when its API acts on GET requests (Slack-like Web APIs), so that a services:read token cannot write through it`,
};
const ConnectorReadMethods = {
  ...ReadMethods,
  description: `${ReadMethods.description}. Only with apiStyle rpc; an rpc connector without any makes every call a write`,
};

const Password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description:
    "The account password. Needed only from a login session, and only when this request binds the vault token to an address off the site it was stored for (its websiteUrl's host or a subdomain; https unless the site is http; the site's port when it names one). The master token needs none (a password sent with it is ignored); a scoped token can never bind off the site. Checked under the same attempt limits as login, never stored",
});

export const CreateConnectorBody = Type.Object(
  {
    name: Name,
    baseUrl: BaseUrl,
    authType: AuthType,
    vaultTokenId: Type.Optional(VaultTokenId),
    headerName: Type.Optional(HeaderName),
    queryParam: Type.Optional(QueryParam),
    apiStyle: Type.Optional(ConnectorApiStyle),
    readMethods: Type.Optional(ConnectorReadMethods),
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
);
export type CreateConnectorBody = Static<typeof CreateConnectorBody>;

export const UpdateConnectorBody = Type.Object(
  {
    name: Type.Optional(Name),
    baseUrl: Type.Optional(BaseUrl),
    authType: Type.Optional(AuthType),
    vaultTokenId: Type.Optional(VaultTokenId),
    headerName: Type.Optional(HeaderName),
    queryParam: Type.Optional(QueryParam),
    apiStyle: Type.Optional(ConnectorApiStyle),
    readMethods: Type.Optional(ConnectorReadMethods),
    password: Type.Optional(Password),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'The fields to change; at least one besides password. Changing authType drops the fields the new type does not use (headerName, queryParam, or the vault token for none); changing apiStyle to rest drops readMethods, and readMethods replaces the whole list',
  },
);
export type UpdateConnectorBody = Static<typeof UpdateConnectorBody>;

export const ConnectorSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    baseUrl: Type.String(),
    authType: Type.Union(AUTH_TYPES.map((t) => Type.Literal(t))),
    vaultTokenId: Type.Union([Type.String(), Type.Null()]),
    headerName: Type.Union([Type.String(), Type.Null()]),
    queryParam: Type.Union([Type.String(), Type.Null()]),
    apiStyle: ConnectorApiStyle,
    readMethods: { ...ReadMethods, description: 'The read methods of an rpc connector; empty for rest' },
    connected: Type.Boolean({ description: 'False when the vault token the connector uses has been deleted' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'Connector' },
);
export type Connector = Static<typeof ConnectorSchema>;

export const ConnectorParams = Type.Object({ id: RecordId });
export const ListConnectorsQuery = Type.Object(PageQuery);
export const ConnectorResponse = Data(ConnectorSchema);
export const ConnectorPage = Page(ConnectorSchema);
export const DeletedConnectorResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' }));
