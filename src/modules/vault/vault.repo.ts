import type { Executor } from '../../storage/columns.js';
import type { ApiStyle, DiscoveredApi } from './vault.schemas.js';
import type { VaultTables, VaultTokensTable } from './vault.tables.js';

/** Everything but the sealed secret: what lists and records are made of. */
const PUBLIC_COLUMNS = [
  'id',
  'owner_id',
  'name',
  'service',
  'service_key',
  'website_url',
  'hint',
  'discover_api',
  'api_metadata',
  'created_at',
  'updated_at',
] as const;

export type VaultTokenRow = Pick<VaultTokensTable, (typeof PUBLIC_COLUMNS)[number]>;

export function createVaultRepo(db: Executor<VaultTables>) {
  return {
    async insert(row: VaultTokensTable, trx?: Executor<VaultTables>): Promise<void> {
      await (trx ?? db).insertInto('vault_tokens').values(row).execute();
    },

    async get(ownerId: string, id: string): Promise<VaultTokenRow | undefined> {
      return db.selectFrom('vault_tokens').select(PUBLIC_COLUMNS).where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    /** The record with its sealed secret: only for revealing and for the services that use it. */
    async getWithSecret(ownerId: string, id: string): Promise<(VaultTokenRow & { secret_sealed: string }) | undefined> {
      return db
        .selectFrom('vault_tokens')
        .select([...PUBLIC_COLUMNS, 'secret_sealed'])
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Newest first; `cursor` is the last id of the previous page. */
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined; serviceKey?: string | undefined }): Promise<VaultTokenRow[]> {
      let q = db.selectFrom('vault_tokens').select(PUBLIC_COLUMNS).where('owner_id', '=', ownerId);
      if (query.serviceKey !== undefined) q = q.where('service_key', '=', query.serviceKey);
      if (query.cursor) q = q.where('id', '<', query.cursor);
      return q.orderBy('id', 'desc').limit(query.limit).execute();
    },

    async newestForService(ownerId: string, serviceKey: string): Promise<VaultTokenRow | undefined> {
      return db
        .selectFrom('vault_tokens')
        .select(PUBLIC_COLUMNS)
        .where('owner_id', '=', ownerId)
        .where('service_key', '=', serviceKey)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    /** The owner's tokens stored with API discovery, newest first. */
    async listDiscovered(ownerId: string): Promise<VaultTokenRow[]> {
      return db
        .selectFrom('vault_tokens')
        .select(PUBLIC_COLUMNS)
        .where('owner_id', '=', ownerId)
        .where('discover_api', '=', 1)
        .where('api_metadata', 'is not', null)
        .orderBy('id', 'desc')
        .execute();
    },

    async count(ownerId: string): Promise<number> {
      const row = await db
        .selectFrom('vault_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async delete(ownerId: string, id: string, trx?: Executor<VaultTables>): Promise<boolean> {
      const result = await (trx ?? db).deleteFrom('vault_tokens').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type VaultRepo = ReturnType<typeof createVaultRepo>;

/** What API discovery found, as stored with a token (JSON in `api_metadata`; not secret). */
export interface StoredApiMetadata {
  status: 'found' | 'none' | 'failed';
  discoveredAt: string;
  error?: string;
  api?: DiscoveredApi;
  /** Set by the owner when storing the token: absent means rest. */
  apiStyle?: ApiStyle;
  readMethods?: string[];
}

/** The stored discovery findings of a token, decoded; null when there are none or they do not parse. */
export function apiMetadataOf(row: Pick<VaultTokenRow, 'api_metadata'>): StoredApiMetadata | null {
  if (!row.api_metadata) return null;
  try {
    return JSON.parse(row.api_metadata) as StoredApiMetadata;
  } catch {
    return null;
  }
}
