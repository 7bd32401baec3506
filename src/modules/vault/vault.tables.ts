import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const vaultTables = ownedTables({
  vault_tokens: table({
    id: column.text(),
    owner_id: column.text(),
    name: column.text(),
    service: column.text(),
    /** `service` lower-cased: case-insensitive lookups. */
    service_key: column.text(),
    website_url: column.text(),
    /** The secret, sealed by the vault keyring; never stored in plain text. */
    secret_sealed: column.text(),
    hint: column.text(),
    discover_api: column.boolean(),
    /** JSON of the discovered API (not secret), or null. */
    api_metadata: column.json().orNull(),
    created_at: column.time(),
    updated_at: column.time(),
  }),
});

export type VaultTables = TablesOf<typeof vaultTables>;
export type VaultTokensTable = VaultTables['vault_tokens'];
