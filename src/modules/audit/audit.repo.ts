import { sql } from 'kysely';
import { decodeJson, isJsonObject, type Executor } from '../../storage/columns.js';
import type { AuditLogTable, AuditTables } from './audit.tables.js';

export interface AuditQuery {
  limit: number;
  cursor?: string | undefined;
  action?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  tokenId?: string | undefined;
}

/** Append and read; the table itself refuses updates and deletes (see migration 0001). */
export function createAuditRepo(db: Executor<AuditTables>) {
  return {
    async insert(row: AuditLogTable, trx?: Executor<AuditTables>): Promise<void> {
      await (trx ?? db).insertInto('audit_log').values(row).execute();
    },

    /** Newest first; ids are ULIDs, so id order is time order and the cursor is the last id. */
    async list(ownerId: string, query: AuditQuery): Promise<AuditLogTable[]> {
      let q = db.selectFrom('audit_log').selectAll().where('owner_id', '=', ownerId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      if (query.action) {
        // `token.*` style prefixes select a family of actions. Not LIKE: `_` and `%` in the
        // filter would be wildcards, and SQLite's LIKE ignores case where PostgreSQL's does not.
        const prefix = query.action.slice(0, -1);
        q = query.action.endsWith('.*')
          ? q.where(sql<string>`substr(action, 1, ${sql.lit(prefix.length)})`, '=', prefix)
          : q.where('action', '=', query.action);
      }
      if (query.tokenId) q = q.where('token_id', '=', query.tokenId);
      if (query.from) q = q.where('created_at', '>=', query.from);
      if (query.to) q = q.where('created_at', '<', query.to);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;

/** The entry's details (a JSON object of non-secret facts), decoded. */
export function detailsOf(row: Pick<AuditLogTable, 'details'>): Record<string, unknown> | null {
  return row.details === null ? null : decodeJson(row.details, isJsonObject, 'audit_log.details');
}
