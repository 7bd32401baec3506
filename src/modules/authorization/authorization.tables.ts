import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const authorizationTables = ownedTables({
  authorization_clients: table({
    /** `mcpc_…` for a registered client; the metadata document's https URL otherwise. */
    id: column.text(),
    kind: column.text<'registered' | 'metadata_document'>(),
    name: column.text(),
    /** JSON array of exact redirect URIs. */
    redirect_uris: column.json(),
    auth_method: column.text<'none' | 'client_secret_post' | 'client_secret_basic'>(),
    secret_hash: column.text().orNull(),
    client_uri: column.text().orNull(),
    created_at: column.time(),
    /** When a metadata document was last fetched. */
    fetched_at: column.time().orNull(),
  }),
  authorization_requests: table({
    id: column.text(),
    client_id: column.text(),
    redirect_uri: column.text(),
    state: column.text().orNull(),
    code_challenge: column.text(),
    /** JSON array of the scopes asked for. */
    scopes: column.json(),
    resource: column.text(),
    csrf_hash: column.text(),
    created_at: column.time(),
    expires_at: column.time(),
    used_at: column.time().orNull(),
    /** SHA-256 of the email typed to send the request to a console (with or without an account). */
    console_email_hash: column.text().orNull(),
    /** The account whose console the request was sent to; null until then, and for an unknown email. */
    owner_id: column.text().orNull(),
    /** SHA-256 (hex) of the waiting page's secret. */
    wait_hash: column.text().orNull(),
    /** The owner's answer in the console: approved or denied; null while undecided. */
    decision: column.text<'approved' | 'denied'>().orNull(),
    /** JSON array of the scopes granted in the console. */
    granted_scopes: column.json().orNull(),
    decided_at: column.time().orNull(),
  }),
  authorization_codes: table({
    /** SHA-256 (hex) of the code. */
    id: column.text(),
    owner_id: column.text(),
    client_id: column.text(),
    redirect_uri: column.text(),
    code_challenge: column.text(),
    /** JSON array of the scopes granted. */
    scopes: column.json(),
    resource: column.text(),
    created_at: column.time(),
    expires_at: column.time(),
    used_at: column.time().orNull(),
    /** The token the code was exchanged for: revoked if the code is presented again. */
    token_id: column.text().orNull(),
  }),
  authorization_refresh_tokens: table({
    /** SHA-256 (hex) of the refresh token. */
    id: column.text(),
    owner_id: column.text(),
    /** The grant: the `oauth` token it renews. Reusing a spent refresh token revokes it. */
    token_id: column.text(),
    client_id: column.text(),
    created_at: column.time(),
    expires_at: column.time(),
    used_at: column.time().orNull(),
  }),
});

export type AuthorizationTables = TablesOf<typeof authorizationTables>;
export type AuthorizationClientsTable = AuthorizationTables['authorization_clients'];
export type AuthorizationRequestsTable = AuthorizationTables['authorization_requests'];
export type AuthorizationCodesTable = AuthorizationTables['authorization_codes'];
export type AuthorizationRefreshTokensTable = AuthorizationTables['authorization_refresh_tokens'];
