import type { Executor } from '../../storage/columns.js';
import type { AfpDevicesTable, AfpTables } from './afp.tables.js';

export type DeviceRow = AfpDevicesTable;

/** What a daemon reports each time it connects. */
export type DeviceReport = Pick<AfpDevicesTable, 'platform' | 'privilege' | 'root' | 'daemon_version' | 'last_seen_at'>;

export function createAfpRepo(db: Executor<AfpTables>) {
  return {
    async list(ownerId: string): Promise<DeviceRow[]> {
      return db.selectFrom('afp_devices').selectAll().where('owner_id', '=', ownerId).orderBy('name').orderBy('id').execute();
    },

    async get(ownerId: string, id: string): Promise<DeviceRow | undefined> {
      return db.selectFrom('afp_devices').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst();
    },

    async findByName(ownerId: string, name: string, trx?: Executor<AfpTables>): Promise<DeviceRow | undefined> {
      return (trx ?? db).selectFrom('afp_devices').selectAll().where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst();
    },

    async count(ownerId: string, trx?: Executor<AfpTables>): Promise<number> {
      const row = await (trx ?? db)
        .selectFrom('afp_devices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async insert(row: DeviceRow, trx?: Executor<AfpTables>): Promise<void> {
      await (trx ?? db).insertInto('afp_devices').values(row).execute();
    },

    async report(id: string, report: DeviceReport, trx?: Executor<AfpTables>): Promise<DeviceRow | undefined> {
      return (trx ?? db).updateTable('afp_devices').set(report).where('id', '=', id).returningAll().executeTakeFirst();
    },

    async touch(id: string, lastSeenAt: string): Promise<void> {
      await db.updateTable('afp_devices').set({ last_seen_at: lastSeenAt }).where('id', '=', id).where('last_seen_at', '<', lastSeenAt).execute();
    },

    async delete(ownerId: string, id: string, trx?: Executor<AfpTables>): Promise<DeviceRow | undefined> {
      return (trx ?? db).deleteFrom('afp_devices').where('owner_id', '=', ownerId).where('id', '=', id).returningAll().executeTakeFirst();
    },
  };
}

export type AfpRepo = ReturnType<typeof createAfpRepo>;
