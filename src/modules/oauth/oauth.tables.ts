import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const oauthTables = ownedTables({
  oauth_connections: table({
    id: column.text(),
    owner_id: column.text(),
    provider: column.text(),
    account_email: column.text().orNull(),
    account_id: column.text().orNull(),
    /** JSON array of the scopes the provider granted. */
    scopes: column.json(),
    /** Sealed by the vault keyring; never stored in plain text. */
    access_token_sealed: column.text(),
    /** Sealed by the vault keyring; null when the provider gave none. */
    refresh_token_sealed: column.text().orNull(),
    expires_at: column.time(),
    status: column.text<'connected' | 'needs_reauth'>(),
    /** Bumped on every token write (connect, refresh). */
    token_version: column.integer(),
    last_error: column.text().orNull(),
    connected_at: column.time(),
    refreshed_at: column.time().orNull(),
    updated_at: column.time(),
    /** Who is refreshing the tokens right now (a random id), null when nobody is. */
    refresh_lease: column.text().orNull(),
    /** When that refresh's claim runs out, so a node that died mid-refresh blocks nobody for long. */
    refresh_lease_until: column.time().orNull(),
  }),
  oauth_states: table({
    /** SHA-256 (hex) of the state; the state itself is never stored. */
    id: column.text(),
    owner_id: column.text(),
    provider: column.text(),
    /** The PKCE code verifier, sealed by the vault keyring. */
    verifier_sealed: column.text(),
    redirect_uri: column.text(),
    /** JSON array of the scopes asked for. */
    scopes: column.json(),
    created_at: column.time(),
    expires_at: column.time(),
    used_at: column.time().orNull(),
    /** SHA-256 (hex) of the binder in the cookie of the browser whose owner signed in; null until then. */
    browser_binding: column.text().orNull(),
  }),
});

export type OAuthTables = TablesOf<typeof oauthTables>;
export type OAuthConnectionsTable = OAuthTables['oauth_connections'];
export type OAuthStatesTable = OAuthTables['oauth_states'];
