import { column, ownedTables, readsOfTables, table, type TablesOf } from '../../storage/columns.js';

export const portabilityTables = ownedTables({
  export_jobs: table({
    id: column.text(),
    owner_id: column.text(),
    status: column.text<'running' | 'done' | 'failed' | 'expired'>(),
    include_secrets: column.boolean(),
    done_items: column.integer(),
    total_items: column.integer(),
    size_bytes: column.integer().orNull(),
    sha256: column.text().orNull(),
    error: column.text().orNull(),
    created_at: column.time(),
    updated_at: column.time(),
    finished_at: column.time().orNull(),
    expires_at: column.time().orNull(),
  }),
});

/**
 * What the manifest names of the account. The carried tables are not declared here: an archive
 * carries whole rows, so it takes each table's declaration from the module that owns it (handed
 * in by the composition root, see `CarriedDeclarations` in portability.format.ts).
 */
export const portabilityReads = readsOfTables({
  users: table({ id: column.text(), email: column.text(), name: column.text().orNull() }),
});

export type PortabilityTables = TablesOf<typeof portabilityTables> & TablesOf<typeof portabilityReads>;
export type ExportJobsTable = PortabilityTables['export_jobs'];
