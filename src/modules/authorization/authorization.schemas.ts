import { Type, type Static } from '@sinclair/typebox';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { Data, IsoDateTime, List } from '../../http/schemas.js';

/** `{ error, error_description }`: how the OAuth endpoints refuse (RFC 6749 §5.2, RFC 7591 §3.2.2). */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: 'An OAuth error code: invalid_request, invalid_client, invalid_grant, invalid_target, unsupported_grant_type, invalid_redirect_uri, invalid_client_metadata' }),
    error_description: Type.String({ description: 'What is wrong, in words' }),
  },
  { title: 'OAuthError' },
);

const Strings = Type.Array(Type.String());

export const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: 'The MCP endpoint: <PUBLIC_BASE_URL>/mcp' }),
    authorization_servers: Strings,
    scopes_supported: Strings,
    bearer_methods_supported: Strings,
    resource_name: Type.String(),
    resource_documentation: Type.String(),
  },
  { title: 'ProtectedResourceMetadata' },
);

export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    registration_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    scopes_supported: Strings,
    response_types_supported: Strings,
    response_modes_supported: Strings,
    grant_types_supported: Strings,
    token_endpoint_auth_methods_supported: Strings,
    revocation_endpoint_auth_methods_supported: Strings,
    code_challenge_methods_supported: Strings,
    authorization_response_iss_parameter_supported: Type.Boolean(),
    client_id_metadata_document_supported: Type.Boolean(),
    service_documentation: Type.String(),
  },
  { title: 'AuthorizationServerMetadata' },
);

/**
 * Client metadata (RFC 7591 §2). Checked field by field by the service, which answers in the
 * RFC's words (invalid_redirect_uri, invalid_client_metadata); unknown fields are ignored, as the
 * RFC asks.
 */
export const ClientRegistration = Type.Object(
  {
    redirect_uris: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
    client_name: Type.Optional(Type.String({ maxLength: 1000 })),
    client_uri: Type.Optional(Type.String({ maxLength: 2000 })),
    token_endpoint_auth_method: Type.Optional(Type.String({ maxLength: 100 })),
    grant_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
    response_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
    scope: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true, title: 'ClientRegistration' },
);

export const RegisteredClientSchema = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    client_secret: Type.Optional(Type.String({ description: 'Only for clients that authenticate with a secret; shown this once' })),
    client_secret_expires_at: Type.Optional(Type.Integer({ description: '0: never' })),
    client_name: Type.String(),
    redirect_uris: Strings,
    grant_types: Strings,
    response_types: Strings,
    token_endpoint_auth_method: Type.String(),
  },
  { title: 'RegisteredClient' },
);

/** The authorization request's parameters; each is checked by the service, so errors can go back to the client. */
export const AuthorizeQuery = Type.Object(
  {
    response_type: Type.Optional(Type.String({ maxLength: 100 })),
    client_id: Type.Optional(Type.String({ maxLength: 2000 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
    scope: Type.Optional(Type.String({ maxLength: 2000 })),
    state: Type.Optional(Type.String({ maxLength: 2000 })),
    code_challenge: Type.Optional(Type.String({ maxLength: 200 })),
    code_challenge_method: Type.Optional(Type.String({ maxLength: 20 })),
    resource: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);

const FormValue = Type.Union([Type.String({ maxLength: 4000 }), Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 50 })]);

/** A protocol form (token, revocation): strings, each sent once (checked by the route). */
export const OAuthForm = Type.Record(Type.String(), FormValue, { title: 'OAuthForm' });

/** The consent page's form. */
export const ConsentForm = Type.Record(Type.String(), FormValue, { title: 'ConsentForm' });

export const TokenAnswer = Type.Object(
  {
    access_token: Type.String({ description: 'A Hearth token of kind oauth; send it as Authorization: Bearer' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires' }),
    refresh_token: Type.String({ description: 'Used once: each refresh answers a new one. Using a spent one revokes the grant' }),
    scope: Type.String({ description: 'The scopes the owner granted, space-separated' }),
  },
  { title: 'OAuthTokenAnswer' },
);

/** The waiting page's address: the request and the secret only that browser was given. */
export const WaitQuery = Type.Object({
  request_id: Type.String({ maxLength: 100 }),
  wait: Type.String({ maxLength: 200 }),
});

const ScopeNameSchema = Type.Union(
  SCOPE_NAMES.map((scope) => Type.Literal(scope)),
  { description: 'A scope name; GET /api/v1/scopes lists them' },
);

export const ConsoleAuthorizationRequestSchema = Type.Object(
  {
    id: Type.String(),
    client: Type.Object(
      {
        id: Type.String({ description: 'The OAuth client id' }),
        name: Type.String({ description: 'The name the client registered under (its own words: not proof of who it is)' }),
        redirectHost: Type.String({ description: 'Where the access would be sent: the host of the redirect URI' }),
      },
      { title: 'AuthorizationRequestClient' },
    ),
    requestedScopes: Type.Array(ScopeNameSchema),
    status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('denied')], {
      description: 'pending until the owner decides; the waiting browser then goes on to the client with a code or access_denied',
    }),
    grantedScopes: Type.Union([Type.Array(ScopeNameSchema), Type.Null()], { description: 'What the owner granted; null until approved' }),
    createdAt: IsoDateTime,
    expiresAt: Type.String({ format: 'date-time', description: 'Not decided by then, the request expires and the app must start again' }),
  },
  { title: 'AuthorizationRequest' },
);
export type ConsoleAuthorizationRequest = Static<typeof ConsoleAuthorizationRequestSchema>;

export const ConsoleAuthorizationRequestList = List(ConsoleAuthorizationRequestSchema);
export const ConsoleAuthorizationRequestResponse = Data(ConsoleAuthorizationRequestSchema);

export const ApproveAuthorizationRequestBody = Type.Object(
  {
    scopes: Type.Optional(
      Type.Array(ScopeNameSchema, {
        minItems: 1,
        maxItems: SCOPE_NAMES.length,
        description: 'The scopes to grant, more or fewer than were asked; without it, those asked for',
      }),
    ),
  },
  { additionalProperties: false },
);
