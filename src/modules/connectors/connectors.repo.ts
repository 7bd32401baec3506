import type { Executor } from '../../storage/columns.js';
import type { ConnectorsTable, ConnectorsTables } from './connectors.tables.js';

export type ConnectorChanges = Partial<
  Pick<ConnectorsTable, 'name' | 'name_key' | 'base_url' | 'auth_type' | 'vault_token_id' | 'header_name' | 'query_param' | 'api_style' | 'read_methods' | 'updated_at'>
>;

export function createConnectorsRepo(db: Executor<ConnectorsTables>) {
  return {
    async insert(row: ConnectorsTable, trx?: Executor<ConnectorsTables>): Promise<void> {
      await (trx ?? db).insertInto('connectors').values(row).execute();
    },

    async get(ownerId: string, id: string): Promise<ConnectorsTable | undefined> {
      return db.selectFrom('connectors').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async getByName(ownerId: string, nameKey: string): Promise<ConnectorsTable | undefined> {
      return db.selectFrom('connectors').selectAll().where('owner_id', '=', ownerId).where('name_key', '=', nameKey).executeTakeFirst();
    },

    /** Newest first; `cursor` is the last id of the previous page. */
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined }): Promise<ConnectorsTable[]> {
      let q = db.selectFrom('connectors').selectAll().where('owner_id', '=', ownerId);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    /** Every connector of the owner, for the services list (owners keep a handful). */
    async listAll(ownerId: string): Promise<ConnectorsTable[]> {
      return db.selectFrom('connectors').selectAll().where('owner_id', '=', ownerId).orderBy('name_key').execute();
    },

    async update(ownerId: string, id: string, changes: ConnectorChanges): Promise<ConnectorsTable | undefined> {
      return db
        .updateTable('connectors')
        .set(changes)
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    async delete(ownerId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('connectors').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type ConnectorsRepo = ReturnType<typeof createConnectorsRepo>;

/** The stored read methods of an rpc connector (a JSON array); none for rest. */
export function readMethodsOf(row: Pick<ConnectorsTable, 'api_style' | 'read_methods'>): string[] {
  if (row.api_style !== 'rpc' || !row.read_methods) return [];
  const parsed: unknown = JSON.parse(row.read_methods);
  return Array.isArray(parsed) ? parsed.filter((m): m is string => typeof m === 'string') : [];
}
