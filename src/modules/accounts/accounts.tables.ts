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
});

export type AccountsTables = TablesOf<typeof accountsTables>;
export type UsersTable = AccountsTables['users'];
