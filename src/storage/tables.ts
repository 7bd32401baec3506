import { column, ownedTables, table, type TablesOf } from './columns.js';

/**
 * The tables storage itself owns: the migrations' bookkeeping and what the nodes sharing a
 * PostgreSQL database keep between them. Every module declares its own tables beside its
 * repository (`src/modules/<module>/<module>.tables.ts`); storage never names them (see
 * docs/decisions/storage.md, "Each module owns its tables").
 */
export const storageTables = ownedTables({
  /** Kysely's Migrator's record of the migrations applied, kept as it makes them. */
  kysely_migration: table({ name: column.text(), timestamp: column.text() }),
  kysely_migration_lock: table({ id: column.text(), is_locked: column.integer() }),
  /** A node sharing the PostgreSQL database (times read only through SQL comparisons). */
  cluster_nodes: table({
    node_id: column.text(),
    started_at: column.timestamptz(),
    heartbeat_at: column.timestamptz(),
  }),
  /** Rate-limit counts shared by the nodes (shared-counters.ts). */
  shared_counters: table({ key: column.text(), window_end: column.integer(), count: column.integer() }, { only: 'postgres' }),
  /** Per owner and table, the generation of the search index cache (search-index.ts). */
  search_generations: table(
    { owner_id: column.text(), table_name: column.text(), shard: column.integer(), generation: column.integer() },
    { only: 'postgres' },
  ),
});

export type StorageTables = TablesOf<typeof storageTables>;
