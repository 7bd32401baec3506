/**
 * The `vault_data_keys` table: each owner's data keys, wrapped by a root key. Only the keyring
 * reads it; the rows hold no key in the clear.
 */
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { KeyringTables, VaultDataKeysTable } from './keyring.tables.js';

export type DataKeyRow = Pick<VaultDataKeysTable, 'id' | 'owner_id' | 'root_key_id' | 'wrapped_key'>;

const ROW = ['id', 'owner_id', 'root_key_id', 'wrapped_key'] as const;

export function createKeyringRepo(db: Executor<KeyringTables>) {
  return {
    /** How many data keys each root key wraps. */
    async countByRootKey(): Promise<Array<{ rootKeyId: string; count: number }>> {
      const rows = await db
        .selectFrom('vault_data_keys')
        .select(['root_key_id', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('root_key_id')
        .execute();
      return rows.map((r) => ({ rootKeyId: r.root_key_id, count: Number(r.n) }));
    },

    async insert(row: DataKeyRow): Promise<void> {
      await db
        .insertInto('vault_data_keys')
        .values({ ...row, created_at: isoNow(), rewrapped_at: null })
        .execute();
    },

    /** The owner's newest data key. */
    async newestFor(ownerId: string): Promise<DataKeyRow | undefined> {
      return db.selectFrom('vault_data_keys').select(ROW).where('owner_id', '=', ownerId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    },

    async find(ownerId: string, id: string): Promise<DataKeyRow | undefined> {
      return db.selectFrom('vault_data_keys').select(ROW).where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    },

    /** The next batch (by id, after `cursor`) of data keys not wrapped by `rootKeyId`. */
    async notWrappedBy(rootKeyId: string, cursor: string, limit: number): Promise<DataKeyRow[]> {
      return db
        .selectFrom('vault_data_keys')
        .select(ROW)
        .where('root_key_id', '!=', rootKeyId)
        .where('id', '>', cursor)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    /**
     * Stores a re-wrapped data key, only if it is still wrapped by the root key it was read with
     * (another rotation may have got there first). Answers whether it did.
     */
    async rewrap(id: string, fromRootKeyId: string, toRootKeyId: string, wrapped: string): Promise<boolean> {
      const result = await db
        .updateTable('vault_data_keys')
        .set({ root_key_id: toRootKeyId, wrapped_key: wrapped, rewrapped_at: isoNow() })
        .where('id', '=', id)
        .where('root_key_id', '=', fromRootKeyId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type KeyringRepo = ReturnType<typeof createKeyringRepo>;
