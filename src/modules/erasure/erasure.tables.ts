import { column, ownedTables, readsOfTables, table, type TablesOf } from '../../storage/columns.js';

export const erasureTables = ownedTables({
  /**
   * The accounts whose erasure is under way, for the audit log's guard (migration 0039): a row
   * lives only inside the erasing transaction, which removes it before it commits.
   */
  account_erasures: table({
    owner_id: column.text(),
    started_at: column.time(),
  }),
});

/**
 * What the erasure checks of the account itself (the accounts module owns `users`), and the
 * counters the nodes share on PostgreSQL (storage owns them): the account's rate-limit windows,
 * keyed by its id or its email, go with it.
 */
export const erasureReads = readsOfTables({
  users: table({ id: column.text(), role: column.text<'admin' | 'user'>() }),
  shared_counters: table({ key: column.text() }, { only: 'postgres' }),
});

export type ErasureTables = TablesOf<typeof erasureTables> & TablesOf<typeof erasureReads>;
