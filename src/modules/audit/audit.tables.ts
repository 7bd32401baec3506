import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const auditTables = ownedTables({
  audit_log: table({
    id: column.text(),
    owner_id: column.text().orNull(),
    action: column.text(),
    outcome: column.text<'success' | 'failure' | 'denied'>(),
    token_id: column.text().orNull(),
    ip: column.text().orNull(),
    user_agent: column.text().orNull(),
    target_type: column.text().orNull(),
    target_id: column.text().orNull(),
    /** JSON object of non-secret details. */
    details: column.json().orNull(),
    created_at: column.time(),
  }),
});

export type AuditTables = TablesOf<typeof auditTables>;
export type AuditLogTable = AuditTables['audit_log'];
