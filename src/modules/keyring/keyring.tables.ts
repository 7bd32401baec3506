import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const keyringTables = ownedTables({
  vault_data_keys: table({
    id: column.text(),
    owner_id: column.text(),
    /** The root key that wraps this data key now (re-wrapping changes it, never the data key). */
    root_key_id: column.text(),
    /** base64url of IV | ciphertext | GCM tag. */
    wrapped_key: column.text(),
    created_at: column.time(),
    rewrapped_at: column.time().orNull(),
  }),
});

export type KeyringTables = TablesOf<typeof keyringTables>;
export type VaultDataKeysTable = KeyringTables['vault_data_keys'];
