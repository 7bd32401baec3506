import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const handshakesTables = ownedTables({
  handshakes: table({
    id: column.text(),
    owner_id: column.text(),
    agent_id: column.text(),
    /** JSON array of the scopes asked for. */
    requested_scopes: column.json(),
    message: column.text(),
    status: column.text<'pending' | 'approved' | 'denied'>(),
    token_id: column.text().orNull(),
    client_ip: column.text().orNull(),
    user_agent: column.text().orNull(),
    created_at: column.time(),
    expires_at: column.time(),
    decided_at: column.time().orNull(),
    revoked_at: column.time().orNull(),
    /** SHA-256 (hex) of the one-time claim secret; null on handshakes made before claiming existed. */
    claim_hash: column.text().orNull(),
    /** The approved token, sealed for the owner, until it is claimed or can no longer be. */
    claim_sealed: column.text().orNull(),
    claimed_at: column.time().orNull(),
    /** JSON array of the scopes granted on approval. */
    granted_scopes: column.json().orNull(),
  }),
});

export type HandshakesTables = TablesOf<typeof handshakesTables>;
export type HandshakesTable = HandshakesTables['handshakes'];
