import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const accountsTables = ownedTables({
  users: table({
    id: column.text(),
    email: column.text(),
    name: column.text().orNull(),
    password_hash: column.text(),
    role: column.text<'admin' | 'user'>(),
    plan_id: column.text(),
    created_at: column.time(),
    updated_at: column.time(),
    /** When the administrator disabled the account; null while it is enabled. */
    disabled_at: column.time().orNull(),
  }),
  /** One-time password reset links (accounts.resets.ts): the secret's SHA-256 only. */
  password_resets: table({
    id: column.text(),
    owner_id: column.text(),
    secret_hash: column.text(),
    created_at: column.time(),
    expires_at: column.time(),
    used_at: column.time().orNull(),
    superseded_at: column.time().orNull(),
  }),
});

export type AccountsTables = TablesOf<typeof accountsTables>;
export type UsersTable = AccountsTables['users'];
export type PasswordResetsTable = AccountsTables['password_resets'];
