import { Type, type Static } from '@sinclair/typebox';
import { Data, List, NullableDateTime, IsoDateTime, UrlSafe } from '../../http/schemas.js';

export const ServiceParams = Type.Object({
  service: Type.String({ minLength: 1, maxLength: 40, ...UrlSafe, description: 'The OAuth provider: `google`' }),
});

export const AuthorizationSchema = Type.Object(
  {
    url: Type.String({
      description:
        "Hearth's connect page: the owner opens it in a browser, signs in with the account password, and goes on to the provider's consent page. It works once, for 10 minutes, and only in the browser that signed in",
    }),
    provider: Type.String(),
    redirectUri: Type.String({ description: 'Where the provider sends the browser back; the OAuth client must list it' }),
    expiresAt: IsoDateTime,
  },
  { title: 'OAuthAuthorization' },
);
export type Authorization = Static<typeof AuthorizationSchema>;

export const AuthorizeResponse = Data(AuthorizationSchema);

export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  // Google adds these to the redirect; they are read from the token answer instead.
  scope: Type.Optional(Type.String({ maxLength: 4096 })),
  authuser: Type.Optional(Type.String({ maxLength: 20 })),
  hd: Type.Optional(Type.String({ maxLength: 300 })),
  prompt: Type.Optional(Type.String({ maxLength: 100 })),
  iss: Type.Optional(Type.String({ maxLength: 300 })),
});

/** The connect page's address carries the flow's state. */
const ConnectState = Type.String({
  maxLength: 512,
  description: 'The connect flow this page belongs to: the `state` of the address GET /api/v1/oauth/authorize/{service} answered',
});

export const ConnectQuery = Type.Object({ state: ConnectState });

/** The connect page's sign-in form. */
export const ConnectForm = Type.Object({
  state: ConnectState,
  password: Type.Optional(Type.String({ maxLength: 1024, description: "The Hearth account's password, proving that its owner is the one connecting" })),
});

export const ProviderStatusSchema = Type.Object(
  {
    provider: Type.String(),
    configured: Type.Boolean({ description: 'Whether the server has client credentials for the provider' }),
    connected: Type.Boolean(),
    status: Type.Union([Type.Literal('connected'), Type.Literal('needs_reauth'), Type.Literal('not_connected')], {
      description: '`needs_reauth`: the provider refused the stored grant; reconnect with GET /api/v1/oauth/authorize/{service}',
    }),
    account: Type.Union([Type.String(), Type.Null()], { description: "The connected account's email address" }),
    scopes: Type.Array(Type.String(), { description: 'The scopes the provider granted' }),
    expiresAt: Type.Union([NullableDateTime], { description: 'When the current access token expires (it is refreshed automatically)' }),
    connectedAt: NullableDateTime,
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the connection needs re-authorisation' }),
  },
  { title: 'OAuthProviderStatus' },
);

export type ProviderStatus = Static<typeof ProviderStatusSchema>;
export type ConnectionStatus = ProviderStatus['status'];

export const StatusResponse = List(ProviderStatusSchema);

export const DisconnectionSchema = Type.Object(
  {
    provider: Type.String(),
    disconnected: Type.Literal(true),
    revoked: Type.Boolean({ description: 'Whether the provider confirmed the grant is revoked' }),
    revokeError: Type.Union([Type.String(), Type.Null()], {
      description: 'Why revocation at the provider failed; the tokens are deleted from this server all the same',
    }),
  },
  { title: 'OAuthDisconnection' },
);
export type DisconnectResult = Static<typeof DisconnectionSchema>;

export const DisconnectResponse = Data(DisconnectionSchema);
