import { column, ownedTables, readsOfTables, table, type TablesOf } from '../../storage/columns.js';

export const tokensTables = ownedTables({
  tokens: table({
    id: column.text(),
    owner_id: column.text(),
    kind: column.text<'master' | 'session' | 'api' | 'handshake' | 'oauth'>(),
    name: column.text(),
    /** JSON array of scope names; empty for master and session tokens, which hold every scope. */
    scopes: column.json(),
    secret_hash: column.text(),
    hint: column.text(),
    handshake_id: column.text().orNull(),
    /** The OAuth client a token of kind `oauth` was issued to (authorization_clients.id). */
    client_id: column.text().orNull(),
    created_at: column.time(),
    updated_at: column.time(),
    expires_at: column.time().orNull(),
    last_used_at: column.time().orNull(),
    revoked_at: column.time().orNull(),
    /** JSON array of the normalized tags the token's memory is limited to; null: no limit. */
    memory_tags: column.json().orNull(),
  }),
});

/**
 * Recognising a token answers its owner's role, and whether the administrator disabled the
 * account, in the same query (the accounts module owns `users`).
 */
export const tokensReads = readsOfTables({
  users: table({ id: column.text(), role: column.text<'admin' | 'user'>(), disabled_at: column.time().orNull() }),
  // And who the token was issued to (the authorization and handshakes modules own these): what
  // memory records as the agent behind an entry's author, known without a query of its own.
  authorization_clients: table({ id: column.text(), name: column.text() }),
  handshakes: table({ id: column.text(), agent_id: column.text() }),
});

export type TokensTables = TablesOf<typeof tokensTables> & TablesOf<typeof tokensReads>;
export type TokensTable = TokensTables['tokens'];
